package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.operator.status.ErrorMessages;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A reconcile error becomes one readable line, whatever JOSDK wraps it in. */
class ReconcileErrorMessageTest {
  @Test
  void aggregatedWorkflowErrorsBecomeOneLinePerDependent() {
    Map<String, Exception> causes = new LinkedHashMap<>();
    causes.put(
        "headless",
        new KubernetesClientException(
            "Failure executing: PUT at: https://x/services/a. Message: conflict. Received status:"
                + " Status(code=409)\n\tat some.Frame"));
    causes.put(
        "statefulset", new IllegalStateException("boom", new RuntimeException("root cause")));
    String message =
        ErrorMessages.oneLine(new AggregatedOperatorException("workflow failed", causes));
    assertThat(message)
        .isEqualTo(
            "headless: Failure executing: PUT at: https://x/services/a. Message: conflict;"
                + " statefulset: root cause")
        .doesNotContain("\n");
  }
}
