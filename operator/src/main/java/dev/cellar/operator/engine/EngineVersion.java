package dev.cellar.operator.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A version as users write it ("16", "16.4", "8.0.36"). Missing components are unknown, not zero:
 * "16" names a series that contains "16.4".
 */
public record EngineVersion(List<Integer> parts) implements Comparable<EngineVersion> {

  // Compiled once: String.matches compiles its pattern on every call, and every reconcile parses
  // each engine's supported series (5.9 % of what the operator allocated while converging).
  private static final Pattern FORM = Pattern.compile("[0-9]+(\\.[0-9]+){0,2}");

  public static EngineVersion parse(String text) {
    if (text == null || !FORM.matcher(text).matches()) {
      throw new IllegalArgumentException("not a version: " + text);
    }
    List<Integer> parts = new ArrayList<>();
    for (String part : text.split("\\.")) {
      parts.add(Integer.parseInt(part));
    }
    return new EngineVersion(List.copyOf(parts));
  }

  public int major() {
    return parts.get(0);
  }

  /** Whether this version lies in {@code series}: "8.4.2" is in "8.4" and in "8", not in "8.0". */
  public boolean isIn(EngineVersion series) {
    return series.parts.size() <= parts.size()
        && parts.subList(0, series.parts.size()).equals(series.parts);
  }

  /**
   * Compares only the components both versions name, so "16" and "16.4" are equal: neither is a
   * downgrade of the other.
   */
  @Override
  public int compareTo(EngineVersion other) {
    int common = Math.min(parts.size(), other.parts.size());
    for (int i = 0; i < common; i++) {
      int c = Integer.compare(parts.get(i), other.parts.get(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  @Override
  public String toString() {
    return String.join(".", parts.stream().map(String::valueOf).toList());
  }
}
