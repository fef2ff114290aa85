package dev.cellar.operator.runtime;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The operator's configuration, from the environment. A bad value stops start-up with one line
 * naming the variable and what it accepts.
 */
public record OperatorSettings(
    Set<String> watchNamespaces,
    boolean leaderElection,
    String operatorNamespace,
    int httpPort,
    LogFormat logFormat,
    int reconcileThreads,
    Duration crdRecheck,
    Duration lagPoll,
    Duration credentialsRetry) {

  /** How log lines are written. */
  public enum LogFormat {
    TEXT,
    JSON
  }

  /** A setting with a value the operator cannot use. */
  public static final class InvalidSetting extends RuntimeException {
    public InvalidSetting(String message) {
      super(message);
    }
  }

  public static final String HELP =
      String.join(
          "\n",
          "Cellar operator: runs PostgreSQL, MySQL and MariaDB Databases (cellar.dev/v1).",
          "",
          "Settings (environment variables):",
          "  WATCH_NAMESPACES    comma-separated namespaces to watch; empty: all (default empty)",
          "  LEADER_ELECTION     true|false: hold the Lease cellar-operator before reconciling"
              + " (default false)",
          "  OPERATOR_NAMESPACE  namespace of the leader-election Lease (default cellar-system)",
          "  HTTP_PORT           port of /healthz, /readyz, /metrics (default 8080; 0: no server)",
          "  LOG_FORMAT          text|json (default text)",
          "  RECONCILE_THREADS   Databases reconciled at once, 1-100 (default 10)",
          "  CRD_RECHECK_SECONDS how often to look again whether the Prometheus Operator's and"
              + " cert-manager's CRDs are installed, 1-3600 (default 60)",
          "  LAG_POLL_SECONDS    how often each replica is asked how far behind it is, 1-3600"
              + " (default 30)",
          "  CREDENTIALS_RETRY_SECONDS  how soon changed passwords a server refused are applied"
              + " again, 1-3600 (default 30)",
          "",
          "The cluster comes from the in-cluster ServiceAccount or the current kubeconfig"
              + " (KUBECONFIG).");

  public static OperatorSettings from(Map<String, String> env) {
    return new OperatorSettings(
        namespaces(env.getOrDefault("WATCH_NAMESPACES", "")),
        bool(env, "LEADER_ELECTION", false),
        nonBlank(env.getOrDefault("OPERATOR_NAMESPACE", ""), "cellar-system"),
        integer(env, "HTTP_PORT", 8080, 0, 65535),
        logFormat(env.getOrDefault("LOG_FORMAT", "")),
        integer(env, "RECONCILE_THREADS", 10, 1, 100),
        Duration.ofSeconds(integer(env, "CRD_RECHECK_SECONDS", 60, 1, 3600)),
        Duration.ofSeconds(integer(env, "LAG_POLL_SECONDS", 30, 1, 3600)),
        Duration.ofSeconds(integer(env, "CREDENTIALS_RETRY_SECONDS", 30, 1, 3600)));
  }

  private static OperatorSettings ofProcess;

  /**
   * The settings of this process's environment, read once; {@code main} starts from the same
   * object. For what JOSDK makes itself from a class name, such as the CRD checks' activation
   * conditions, which therefore cannot be handed the settings; a reconciler run in a test's JVM
   * takes them from the environment its test runner gives it.
   */
  public static synchronized OperatorSettings ofProcess() {
    if (ofProcess == null) {
      ofProcess = from(System.getenv());
    }
    return ofProcess;
  }

  static Set<String> namespaces(String value) {
    return Arrays.stream(value.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .collect(Collectors.toUnmodifiableSet());
  }

  private static String nonBlank(String value, String fallback) {
    return value.isBlank() ? fallback : value.trim();
  }

  private static boolean bool(Map<String, String> env, String name, boolean fallback) {
    String value = env.getOrDefault(name, "").trim();
    if (value.isEmpty()) {
      return fallback;
    }
    if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(value);
    }
    throw new InvalidSetting(name + "=" + value + " is not valid: use true or false");
  }

  private static int integer(Map<String, String> env, String name, int fallback, int min, int max) {
    String value = env.getOrDefault(name, "").trim();
    if (value.isEmpty()) {
      return fallback;
    }
    try {
      int parsed = Integer.parseInt(value);
      if (parsed >= min && parsed <= max) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new InvalidSetting(
        name + "=" + value + " is not valid: use a whole number from " + min + " to " + max);
  }

  private static LogFormat logFormat(String value) {
    return switch (value.trim().toLowerCase()) {
      case "", "text" -> LogFormat.TEXT;
      case "json" -> LogFormat.JSON;
      default ->
          throw new InvalidSetting("LOG_FORMAT=" + value + " is not valid: use text or json");
    };
  }
}
