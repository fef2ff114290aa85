package dev.cellar.operator.tls;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Remembered results of a costly pure function (a certificate's parsing and checks), which every
 * reconcile of every Database would otherwise compute again for the same input. Bounded: past
 * {@code limit} entries it starts afresh, so what Databases no longer use goes; two threads
 * computing one key at once both compute it, which only costs the time.
 */
final class Memo<K, V> {
  private final int limit;
  private final Map<K, V> values = new ConcurrentHashMap<>();

  Memo(int limit) {
    this.limit = limit;
  }

  /** The value for {@code key}: remembered, else computed by {@code compute} and remembered. */
  V get(K key, Supplier<V> compute) {
    V value = values.get(key);
    if (value == null) {
      value = compute.get();
      put(key, value);
    }
    return value;
  }

  /** Remembers {@code value} for {@code key}, known without computing it. */
  void put(K key, V value) {
    if (values.size() >= limit) {
      values.clear();
    }
    values.put(key, value);
  }
}
