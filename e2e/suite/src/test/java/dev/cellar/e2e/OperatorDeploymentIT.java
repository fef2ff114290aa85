package dev.cellar.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.testkit.LocalClusterExtension;
import dev.cellar.testkit.Prerequisites;
import dev.cellar.testkit.PrometheusText;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator as users run it on a cluster (kind): the Deployment from deploy/operator, from its
 * Jib image, with its probes, read-only root file system and memory limit. Health, readiness and
 * metrics answer through the pod; with two replicas one leads, and when the leader's pod is killed
 * the other takes over and reconciles.
 */
@RunsOnKind
class OperatorDeploymentIT {
  @RegisterExtension static LocalClusterExtension clusterExtension = new LocalClusterExtension();

  static KubernetesClient client;

  @BeforeAll
  static void setUp() {
    client = clusterExtension.client();
    Prerequisites.require(
        !clusterExtension.cluster().isLocal(),
        "a cluster that runs the operator's Deployment (kind), not the local cluster",
        "bin/test runs the scenarios tagged kind on kind (e2e/kind/suite)");
  }

  static void createDatabase(String ns, String name) {
    client
        .resources(Database.class)
        .inNamespace(ns)
        .resource(new Database(ns, name, new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi")))
        .create();
  }

  static Optional<Phase> phase(String ns, String name) {
    Database db = client.resources(Database.class).inNamespace(ns).withName(name).get();
    return Optional.ofNullable(db).map(Database::getStatus).map(s -> s.getPhase());
  }

  /**
   * Reconciled: the operator wrote a status (Ready needs the database's image, which a test cluster
   * may not have; a phase is the operator's answer).
   */
  static void awaitReconciled(String ns, String name) {
    await(name + " reconciled")
        .atMost(Duration.ofMinutes(2))
        .ignoreExceptions()
        .until(() -> phase(ns, name).isPresent());
  }

  @Test
  void healthReadinessAndMetricsAnswerThroughThePod() throws Exception {
    String ns = clusterExtension.newNamespace();
    try (Cellar cellar = Cellar.install("deployment-http")) {
      await("ready through the pod")
          .atMost(Duration.ofMinutes(1))
          .ignoreExceptions()
          .until(() -> cellar.get("/readyz").statusCode() == 200);
      assertThat(cellar.get("/healthz").statusCode()).isEqualTo(200);
      createDatabase(ns, "measured");
      awaitReconciled(ns, "measured");
      await("reconciles counted")
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(
              () ->
                  PrometheusText.sum(cellar.metrics(), "operator_sdk_reconciliations_started_total")
                      > 0);
      HttpResponse<String> metrics = cellar.get("/metrics");
      assertThat(metrics.headers().firstValue("Content-Type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
      Map<String, Double> values = PrometheusText.parse(metrics.body());
      assertThat(PrometheusText.sum(values, "jvm_memory_used_bytes")).isPositive();
      assertThat(cellar.log()).doesNotContain("\tat ");
    }
  }

  @Test
  void withTwoReplicasAnotherPodLeadsWhenTheLeaderIsKilled() {
    String ns = clusterExtension.newNamespace();
    try (Cellar cellar = Cellar.install("deployment-leader")) {
      OperatorDeployment deployment = (OperatorDeployment) cellar;
      deployment.scale(2);
      await("a leader among two pods")
          .atMost(Duration.ofMinutes(2))
          .until(() -> deployment.leader().isPresent() && deployment.pods().size() == 2);
      String leader = deployment.leader().orElseThrow();
      createDatabase(ns, "before");
      awaitReconciled(ns, "before");

      deployment.killPod(leader);
      await("another pod holds the Lease")
          .atMost(Duration.ofMinutes(2))
          .until(() -> deployment.leader().filter(l -> !l.equals(leader)).isPresent());
      createDatabase(ns, "after");
      awaitReconciled(ns, "after");
      await("two replicas again")
          .atMost(Duration.ofMinutes(2))
          .until(
              () ->
                  deployment.pods().stream()
                          .filter(p -> "Running".equals(p.getStatus().getPhase()))
                          .count()
                      == 2);
    }
  }
}
