package dev.cellar.operator.runtime;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.guard.WriteBudget;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Errors as one line each, for the log and the Degraded message, without stack traces. */
public final class ErrorMessages {
  /** Longer messages are cut: a condition message is read in kubectl's columns. */
  static final int MAX_LENGTH = 1000;

  /**
   * An Authorization header's value as the JDK's HTTP client quotes it when it refuses the header
   * ({@code invalid header value: "Bearer eyJ..."}, as for a token file that ends in a newline):
   * the scheme stays, the credential goes.
   */
  private static final Pattern CREDENTIAL = Pattern.compile("\\b(Bearer|Basic)\\s+[^\\s\"']+");

  private ErrorMessages() {}

  /**
   * One line: per failed dependent its name and the API server's own message (which names the
   * object and the field). JOSDK's aggregated workflow exception arrives wrapped (the metrics
   * decorator wraps what the controller throws) and its own message carries every dependent's whole
   * stack trace, so the aggregate is looked for along the causes.
   */
  public static String oneLine(Throwable e) {
    Optional<AggregatedOperatorException> aggregated = find(e, AggregatedOperatorException.class);
    String line =
        aggregated.isPresent()
            ? aggregated.get().getAggregatedExceptions().entrySet().stream()
                .map(entry -> entry.getKey() + ": " + oneLine(entry.getValue()))
                .collect(Collectors.joining("; "))
            : rootMessage(e);
    // The line goes to the log and to the Database's status, which anyone who can read the
    // Database reads: never the operator's own credential.
    line = CREDENTIAL.matcher(line).replaceAll("$1 (redacted)");
    return line.length() > MAX_LENGTH ? line.substring(0, MAX_LENGTH - 3) + "..." : line;
  }

  /** A failed reconcile as the status reports it: a write loop, or any other error. */
  public static Failure failure(Throwable e) {
    boolean loop =
        find(e, WriteBudget.WriteLoop.class).isPresent()
            || find(e, AggregatedOperatorException.class)
                .map(
                    a ->
                        a.getAggregatedExceptions().values().stream()
                            .anyMatch(c -> find(c, WriteBudget.WriteLoop.class).isPresent()))
                .orElse(false);
    return new Failure(loop ? Reason.WRITE_LOOP : Reason.RECONCILE_ERROR, oneLine(e));
  }

  /** Whether the API server refused a write because the namespace is being deleted. */
  public static boolean namespaceTerminating(Throwable e) {
    return oneLine(e).contains("because it is being terminated");
  }

  private static String rootMessage(Throwable e) {
    Optional<String> apiServer =
        find(e, KubernetesClientException.class)
            .map(KubernetesClientException::getStatus)
            .map(Status::getMessage)
            .filter(m -> !m.isBlank());
    if (apiServer.isPresent()) {
      return firstLine(unservedType(e, apiServer.get()).orElse(apiServer.get()));
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = Optional.ofNullable(root.getMessage()).orElse(root.getClass().getSimpleName());
    if (root instanceof java.util.concurrent.TimeoutException
        || root instanceof java.net.http.HttpTimeoutException) {
      // fabric8 waits a request timeout for each answer; the bare class name told users nothing.
      return "the API server did not answer in time ("
          + (root.getMessage() == null ? message : root.getClass().getSimpleName() + ": " + message)
          + "): it is overloaded or unreachable; Cellar retries";
    }
    // Without the Status dump fabric8 appends.
    int status = message.indexOf(". Received status:");
    return firstLine(status > 0 ? message.substring(0, status) : message);
  }

  /**
   * A 404 whose message names nothing ("Not Found", "the server could not find the requested
   * resource") is the API server not serving the type at all, typically a CRD removed: the message
   * then names the type, as fabric8 recorded it from the request.
   */
  private static Optional<String> unservedType(Throwable e, String message) {
    if (!message.equals("Not Found")
        && !message.equals("the server could not find the requested resource")) {
      return Optional.empty();
    }
    return find(
            e,
            KubernetesClientException.class,
            k -> k.getCode() == 404 && k.getFullResourceName() != null)
        .map(
            k ->
                k.getFullResourceName()
                    + ": "
                    + message
                    + " (the API server does not serve this type: is its CRD installed?)");
  }

  private static String firstLine(String message) {
    return message.lines().findFirst().orElse(message);
  }

  private static <T extends Throwable> Optional<T> find(Throwable e, Class<T> type) {
    return find(e, type, t -> true);
  }

  /** The first of {@code e}'s causes (itself included) of {@code type} that passes {@code test}. */
  private static <T extends Throwable> Optional<T> find(
      Throwable e, Class<T> type, Predicate<T> test) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t) && test.test(type.cast(t))) {
        return Optional.of(type.cast(t));
      }
    }
    return Optional.empty();
  }
}
