package dev.cellar.operator.cache;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Remembered results of a costly pure function (a hash of 22 KB of scripts, a certificate's
 * checks), which every reconcile of every Database would otherwise compute again for the same
 * input. Bounded: past {@code limit} entries it starts afresh, so what Databases no longer use
 * goes; two threads computing one key at once both compute it, which only costs the time.
 */
public final class Memo<K, V> {
  private final int limit;
  private final Map<K, V> values = new ConcurrentHashMap<>();

  public Memo(int limit) {
    this.limit = limit;
  }

  /** The value for {@code key}: remembered, else computed by {@code compute} and remembered. */
  public V get(K key, Supplier<V> compute) {
    V value = values.get(key);
    if (value == null) {
      value = compute.get();
      put(key, value);
    }
    return value;
  }

  /** Remembers {@code value} for {@code key}, known without computing it. */
  public void put(K key, V value) {
    if (values.size() >= limit) {
      values.clear();
    }
    values.put(key, value);
  }
}
