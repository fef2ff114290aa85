package dev.cellar.operator.storage;

import io.fabric8.kubernetes.api.model.Quantity;

/**
 * Sizes in the API server's canonical form ("1024Mi" is stored as "1Gi"), so that what the operator
 * applies equals what it reads back and no update repeats forever.
 */
public final class Quantities {
  private static final String[] UNITS = {"Mi", "Gi", "Ti", "Pi"};

  private Quantities() {}

  /** Canonical form of a size matching {@code ^[0-9]+(Mi|Gi|Ti)$}. */
  public static Quantity size(String size) {
    return new Quantity(canonical(size));
  }

  /** Canonical form of {@code mebibytes} Mi. */
  public static Quantity mebibytes(long mebibytes) {
    return new Quantity(canonical(mebibytes + "Mi"));
  }

  /** The size in Mi of a size matching {@code ^[0-9]+(Mi|Gi|Ti)$}. */
  public static long inMebibytes(String size) {
    String unit = size.substring(size.length() - 2);
    long amount = Long.parseLong(size.substring(0, size.length() - 2));
    int index = java.util.Arrays.asList(UNITS).indexOf(unit);
    if (index < 0) {
      throw new IllegalArgumentException("not a size in Mi, Gi or Ti: " + size);
    }
    for (int i = 0; i < index; i++) {
      amount *= 1024;
    }
    return amount;
  }

  static String canonical(String size) {
    String unit = size.substring(size.length() - 2);
    long amount = Long.parseLong(size.substring(0, size.length() - 2));
    int index = java.util.Arrays.asList(UNITS).indexOf(unit);
    if (index < 0) {
      throw new IllegalArgumentException("not a size in Mi, Gi or Ti: " + size);
    }
    while (amount != 0 && amount % 1024 == 0 && index < UNITS.length - 1) {
      amount /= 1024;
      index++;
    }
    return amount == 0 ? "0" : amount + UNITS[index];
  }
}
