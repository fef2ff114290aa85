package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.operator.runtime.ErrorMessages;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.StandardHttpRequest;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import io.javaoperatorsdk.operator.OperatorException;
import java.net.URI;
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

  @Test
  void aWrappedAggregateKeepsTheApiServersMessagePerDependent() {
    Status refusal =
        new StatusBuilder()
            .withCode(422)
            .withMessage(
                "StatefulSet.apps \"orders\" is invalid: spec.template.spec.containers[0].image:"
                    + " Required value")
            .build();
    Map<String, Exception> causes = new LinkedHashMap<>();
    causes.put(
        "statefulset",
        new KubernetesClientException(
            "Failure executing: PATCH at: https://x/statefulsets/orders. Message: ...",
            422,
            refusal));
    Exception wrapped =
        new OperatorException(
            new AggregatedOperatorException("Exception(s) during workflow execution.", causes));
    assertThat(ErrorMessages.oneLine(wrapped))
        .isEqualTo(
            "statefulset: StatefulSet.apps \"orders\" is invalid:"
                + " spec.template.spec.containers[0].image: Required value")
        .doesNotContain("Exception(s) during workflow execution");
  }

  @Test
  void aTimeoutSaysTheApiServerDidNotAnswer() {
    // As seen with 5000 Databases on one API server: the status said only "TimeoutException".
    Map<String, Exception> causes = new LinkedHashMap<>();
    causes.put(
        "statefulset",
        new KubernetesClientException(
            "An error has occurred.", new java.util.concurrent.TimeoutException()));
    causes.put(
        "config",
        new KubernetesClientException(
            "An error has occurred.",
            new java.util.concurrent.CompletionException(
                new java.net.http.HttpTimeoutException("request timed out"))));

    assertThat(ErrorMessages.oneLine(new AggregatedOperatorException("workflow failed", causes)))
        .isEqualTo(
            "statefulset: the API server did not answer in time (TimeoutException): it is"
                + " overloaded or unreachable; Cellar retries; config: the API server did not"
                + " answer in time (HttpTimeoutException: request timed out): it is overloaded or"
                + " unreachable; Cellar retries");
  }

  @Test
  void theOperatorsTokenNeverReachesTheLine() {
    // What the JDK's client says of a token read with its file's trailing newline.
    String token = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJjZWxsYXIifQ.c2lnbmF0dXJl-_x";
    KubernetesClientException refused =
        new KubernetesClientException(
            "An error has occurred.",
            new IllegalArgumentException("invalid header value: \"Bearer " + token + "\""));
    assertThat(ErrorMessages.oneLine(new OperatorException(refused)))
        .isEqualTo("invalid header value: \"Bearer (redacted)\"")
        .doesNotContain(token);
    assertThat(ErrorMessages.oneLine(new IllegalStateException("Basic dXNlcjpwYXNz refused")))
        .isEqualTo("Basic (redacted) refused");
  }

  @Test
  void aVeryLongMessageIsCut() {
    String message = ErrorMessages.oneLine(new IllegalStateException("x".repeat(5000)));
    assertThat(message).hasSize(1000).endsWith("...");
  }

  @Test
  void aNamespaceBeingDeletedIsRecognised() {
    Map<String, Exception> causes = new LinkedHashMap<>();
    causes.put(
        "config",
        new KubernetesClientException(
            "Failure executing: POST",
            403,
            new StatusBuilder()
                .withCode(403)
                .withMessage(
                    "configmaps \"x-config\" is forbidden: unable to create new content in"
                        + " namespace shop because it is being terminated")
                .build()));
    assertThat(
            ErrorMessages.namespaceTerminating(
                new OperatorException(new AggregatedOperatorException("workflow", causes))))
        .isTrue();
    assertThat(ErrorMessages.namespaceTerminating(new IllegalStateException("conflict"))).isFalse();
  }

  @Test
  void aTypeTheApiServerDoesNotServeIsNamed() {
    Status notFound = new StatusBuilder().withCode(404).withMessage("Not Found").build();
    KubernetesClientException listed =
        new KubernetesClientException(
            "Failure executing: GET at: https://x/apis/monitoring.coreos.com/v1/namespaces/a/podmonitors",
            null,
            404,
            notFound,
            new StandardHttpRequest(
                Map.of(),
                URI.create("https://x/apis/monitoring.coreos.com/v1/namespaces/a/podmonitors"),
                "GET",
                null));
    assertThat(ErrorMessages.oneLine(new OperatorException(listed)))
        .isEqualTo(
            "podmonitors.monitoring.coreos.com: Not Found (the API server does not serve this"
                + " type: is its CRD installed?)");

    // A 404 that names its object already stays as the API server said it.
    Status named =
        new StatusBuilder().withCode(404).withMessage("namespaces \"a\" not found").build();
    KubernetesClientException missing =
        new KubernetesClientException(
            "Failure executing: POST",
            null,
            404,
            named,
            new StandardHttpRequest(
                Map.of(), URI.create("https://x/api/v1/namespaces/a/secrets"), "POST", null));
    assertThat(ErrorMessages.oneLine(missing)).isEqualTo("namespaces \"a\" not found");
  }
}
