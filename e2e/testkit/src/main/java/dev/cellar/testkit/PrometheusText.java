package dev.cellar.testkit;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4): every line must be a
 * comment, {@code # HELP}, {@code # TYPE} or a sample, or it throws naming the line.
 */
public final class PrometheusText {
  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final String LABEL = "[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\"";
  private static final String VALUE = "[-+]?(?:[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?|Inf|NaN)";
  private static final Pattern SAMPLE =
      Pattern.compile(
          "("
              + NAME
              + ")(\\{(?:"
              + LABEL
              + "(?:,"
              + LABEL
              + ")*,?)?\\})? ("
              + VALUE
              + ")( -?[0-9]+)?");
  private static final Pattern TYPE =
      Pattern.compile("# TYPE " + NAME + " (counter|gauge|histogram|summary|untyped)");
  private static final Pattern HELP = Pattern.compile("# HELP " + NAME + "( .*)?");

  private PrometheusText() {}

  /**
   * Every sample, keyed by its name and labels as written ({@code name{a="b"}}), in order.
   *
   * @throws IllegalArgumentException on the first line that is not in the format
   */
  public static Map<String, Double> parse(String text) {
    Map<String, Double> samples = new LinkedHashMap<>();
    int number = 0;
    for (String line : text.split("\n", -1)) {
      number++;
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("# TYPE") || line.startsWith("# HELP")) {
        if (!TYPE.matcher(line).matches() && !HELP.matcher(line).matches()) {
          throw new IllegalArgumentException("line " + number + " is malformed: " + line);
        }
        continue;
      }
      if (line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        throw new IllegalArgumentException("line " + number + " is not a sample: " + line);
      }
      String key = m.group(1) + (m.group(2) == null ? "" : m.group(2));
      samples.put(key, Double.parseDouble(m.group(3).replace("Inf", "Infinity")));
    }
    return samples;
  }

  /** The sum of the samples named {@code name} whose labels contain every one of {@code labels}. */
  public static double sum(Map<String, Double> samples, String name, String... labels) {
    return samples.entrySet().stream()
        .filter(e -> e.getKey().equals(name) || e.getKey().startsWith(name + "{"))
        .filter(
            e -> {
              for (String label : labels) {
                if (!e.getKey().contains(label)) {
                  return false;
                }
              }
              return true;
            })
        .mapToDouble(Map.Entry::getValue)
        .sum();
  }
}
