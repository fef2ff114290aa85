package dev.cellar.operator.status;

import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.util.Optional;
import java.util.stream.Collectors;

/** Errors as one line each, for the log and the Degraded message, without stack traces. */
public final class ErrorMessages {
  private ErrorMessages() {}

  /**
   * One line per cause: JOSDK's aggregated workflow exception would otherwise carry every
   * dependent's whole stack trace.
   */
  public static String oneLine(Throwable e) {
    if (e instanceof AggregatedOperatorException aggregated) {
      return aggregated.getAggregatedExceptions().entrySet().stream()
          .map(entry -> entry.getKey() + ": " + oneLine(entry.getValue()))
          .collect(Collectors.joining("; "));
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = Optional.ofNullable(root.getMessage()).orElse(root.getClass().getSimpleName());
    // The API server's message, without the Status dump fabric8 appends.
    int status = message.indexOf(". Received status:");
    return (status > 0 ? message.substring(0, status) : message)
        .lines()
        .findFirst()
        .orElse(message);
  }
}
