package dev.cellar.kubelean;

import java.util.function.UnaryOperator;

/**
 * A bounded table of shared instances: {@code slots} references, two per hash, and a value that
 * finds both taken replaces one. A miss only costs the sharing, never correctness (a value is
 * returned as it is or replaced by an equal one), so there is no lock, no per-entry object and no
 * reference queue; the table's own cost is fixed, and what it keeps alive that no object needs any
 * more is bounded by its size.
 *
 * <p>Racy by design: the slots are plain array elements. The values are immutable and published
 * through final fields (a {@code String}, an unmodifiable map), so a thread sees either an older
 * value, a newer one or null, each of which is a valid answer.
 */
final class LossyTable<T> {
  private final Object[] slots;
  private final int mask;

  /** A table of {@code slots} slots, a power of two, at least 2. */
  LossyTable(int slots) {
    if (slots < 2 || Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException("slots must be a power of two: " + slots);
    }
    this.slots = new Object[slots];
    this.mask = slots - 1;
  }

  /**
   * {@code value}, or an equal value this table returned before. {@code hash} is the value's hash
   * code; {@code stored} makes what is kept of a value seen for the first time (the value itself,
   * or an immutable view of it), which is then returned.
   */
  @SuppressWarnings("unchecked")
  T shared(T value, int hash, UnaryOperator<T> stored) {
    int h = hash ^ (hash >>> 16);
    int first = h & mask;
    int second = first ^ 1;
    T a = (T) slots[first];
    if (a != null && a.equals(value)) {
      return a;
    }
    T b = (T) slots[second];
    if (b != null && b.equals(value)) {
      return b;
    }
    T kept = stored.apply(value);
    // Fill an empty slot first; with both taken, a bit of the hash picks the one to replace, so
    // two values that share a pair do not keep evicting each other's partner alone.
    if (a == null) {
      slots[first] = kept;
    } else if (b == null || (h & (mask + 1)) != 0) {
      slots[second] = kept;
    } else {
      slots[first] = kept;
    }
    return kept;
  }
}
