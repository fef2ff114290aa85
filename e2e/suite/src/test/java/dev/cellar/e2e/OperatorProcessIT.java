package dev.cellar.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.testkit.LocalClusterExtension;
import dev.cellar.testkit.PrometheusText;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The packaged jar as a process: leader election, namespaces, health, metrics, JSON logs. */
class OperatorProcessIT {
  @RegisterExtension static LocalClusterExtension clusterExtension = new LocalClusterExtension();

  static KubernetesClient client;

  @BeforeAll
  static void setUp() {
    client = clusterExtension.client();
    Assumptions.assumeTrue(clusterExtension.cluster().isLocal(), "runs the jar as a local process");
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

  static void awaitReady(String ns, String name) {
    await(name + " Ready")
        .atMost(Duration.ofMinutes(2))
        .ignoreExceptions()
        .until(() -> phase(ns, name).equals(Optional.of(Phase.Ready)));
  }

  static String holder() {
    Lease lease = client.leases().inNamespace(Cellar.NAMESPACE).withName("cellar-operator").get();
    return lease == null || lease.getSpec().getHolderIdentity() == null
        ? ""
        : lease.getSpec().getHolderIdentity();
  }

  @Test
  void oneLeaderReconcilesAndTheOtherTakesOverAfterKillMinus9() throws Exception {
    String ns = clusterExtension.newNamespace();
    try (Cellar a = Cellar.install("leader-a", Map.of("LOG_FORMAT", "json"));
        Cellar b = Cellar.install("leader-b", Map.of())) {
      await("a leader")
          .atMost(Duration.ofMinutes(1))
          .until(() -> holder().startsWith(a.pid() + "@") || holder().startsWith(b.pid() + "@"));
      Cellar leader = holder().startsWith(a.pid() + "@") ? a : b;
      Cellar follower = leader == a ? b : a;
      createDatabase(ns, "before");
      awaitReady(ns, "before");

      leader.kill9();
      await("the follower holds the Lease")
          .atMost(Duration.ofMinutes(1))
          .until(() -> holder().startsWith(follower.pid() + "@"));
      createDatabase(ns, "after");
      awaitReady(ns, "after");

      ObjectMapper json = new ObjectMapper();
      long lines = 0;
      java.util.Set<String> named = new java.util.HashSet<>();
      for (String line : a.log().lines().filter(l -> l.startsWith("{")).toList()) {
        JsonNode node = json.readTree(line);
        assertThat(node.has("level")).isTrue();
        assertThat(node.has("formattedMessage")).isTrue();
        // Other scenarios' Databases may still be reconciled while their namespaces go away:
        // only this scenario's are checked for their namespace.
        String name = node.path("mdc").path("resource.name").asText();
        if (List.of("before", "after").contains(name)
            && node.path("mdc").path("resource.namespace").asText().equals(ns)) {
          named.add(name);
        }
        lines++;
      }
      assertThat(lines).as("JSON log lines of instance a").isPositive();
      // Whichever instance reconciled a Database logged its events with the Database's name.
      if (leader == a) {
        assertThat(named).as("Databases named in a's reconcile log lines").contains("before");
      } else {
        assertThat(named).as("Databases named in a's reconcile log lines").contains("after");
      }
    }
  }

  /**
   * SIGTERM while reconciles run (a rolling update of a busy operator): they finish before JOSDK
   * stops, which would empty the caches under them and then interrupt them, an ERROR with its stack
   * trace for each.
   */
  @Test
  void sigtermLetsTheRunningReconcilesFinish() {
    String ns = clusterExtension.newNamespace();
    String log;
    try (Cellar cellar = Cellar.install("sigterm", Map.of("LEADER_ELECTION", "false"))) {
      await("operator ready")
          .atMost(Duration.ofMinutes(1))
          .ignoreExceptions()
          .until(() -> cellar.get("/readyz").statusCode() == 200);
      IntStream.range(0, 30).parallel().forEach(i -> createDatabase(ns, "busy-" + i));
      await("a first status")
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> phase(ns, "busy-29").isPresent() || phase(ns, "busy-0").isPresent());
      Instant stopped = Instant.now();
      cellar.stop();
      assertThat(cellar.isAlive()).as("the operator exited on SIGTERM").isFalse();
      assertThat(Duration.between(stopped, Instant.now()))
          .as("time to exit, within the grace")
          .isLessThan(Duration.ofSeconds(15));
      log = cellar.log();
    }
    assertThat(log)
        .as("the operator's log")
        .containsPattern("stopping: [1-9][0-9]* reconcile\\(s\\) running")
        .contains("] d.c.o.CellarOperator - - stopped")
        .doesNotContain("Thread interrupted")
        .doesNotContain("RejectedExecutionException")
        .doesNotContain("ERROR");
  }

  @Test
  void watchNamespacesLeavesOtherNamespacesAlone() {
    String watched = clusterExtension.newNamespace();
    String other = clusterExtension.newNamespace();
    try (Cellar cellar =
        Cellar.install(
            "watch-namespaces", Map.of("WATCH_NAMESPACES", watched, "LEADER_ELECTION", "false"))) {
      createDatabase(other, "ignored");
      createDatabase(watched, "served");
      awaitReady(watched, "served");
      await("the other namespace untouched")
          .during(Duration.ofSeconds(10))
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  phase(other, "ignored").isEmpty()
                      && client
                          .apps()
                          .statefulSets()
                          .inNamespace(other)
                          .list()
                          .getItems()
                          .isEmpty());
    }
  }

  @Test
  void healthzStaysUpWhileTheApiServerRestartsAndTheOperatorRecovers() {
    String ns = clusterExtension.newNamespace();
    try (Cellar cellar = Cellar.install("health", Map.of("LEADER_ELECTION", "false"))) {
      await("ready")
          .atMost(Duration.ofMinutes(1))
          .ignoreExceptions()
          .until(() -> cellar.get("/readyz").statusCode() == 200);
      cellar.cluster.stop("apiserver");
      try {
        await("healthz during the outage")
            .during(Duration.ofSeconds(10))
            .atMost(Duration.ofSeconds(15))
            .until(() -> cellar.get("/healthz").statusCode() == 200);
      } finally {
        cellar.cluster.start("apiserver");
      }
      createDatabase(ns, "after-restart");
      awaitReady(ns, "after-restart");
      assertThat(cellar.isAlive()).isTrue();
    }
  }

  @Test
  void metricsAreRecordedAsPrometheusTextAndGrowWithReconciles() throws Exception {
    String ns = clusterExtension.newNamespace();
    try (Cellar cellar = Cellar.install("metrics", Map.of("LEADER_ELECTION", "false"))) {
      createDatabase(ns, "first");
      awaitReady(ns, "first");
      Map<String, Double> before = metrics(cellar);
      double started = PrometheusText.sum(before, "operator_sdk_reconciliations_started_total");
      assertThat(started).isPositive();
      assertThat(PrometheusText.sum(before, "cellar_databases", "phase=\"Ready\""))
          .isGreaterThanOrEqualTo(1);
      assertThat(PrometheusText.sum(before, "cellar_reconcile_duration_seconds_count"))
          .isPositive();
      assertThat(PrometheusText.sum(before, "jvm_memory_used_bytes")).isPositive();
      // No per-resource tags on the operator's own series, which do not multiply with the
      // Databases; only the cellar_database_* family is per Database (backup age, certificate
      // expiry: what an on-call person asks of one Database).
      assertThat(before.keySet())
          .noneMatch(k -> k.contains("first") && !k.startsWith("cellar_database_"));
      assertThat(before.keySet())
          .anyMatch(
              k ->
                  k.startsWith("cellar_database_certificate_expires_in_seconds{")
                      && k.contains("database=\"first\""));

      createDatabase(ns, "second");
      awaitReady(ns, "second");
      await("reconcile counters grow")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  PrometheusText.sum(metrics(cellar), "operator_sdk_reconciliations_started_total")
                      > started);
      assertThat(PrometheusText.sum(metrics(cellar), "cellar_databases", "phase=\"Ready\""))
          .isGreaterThanOrEqualTo(2);
    }
  }

  @Test
  void startsWaitingForAnApiServerThatIsDownAndRunsOnceItAnswers() {
    String ns = clusterExtension.newNamespace();
    try (Cellar cellar = Cellar.install("api-server-down", Map.of("LEADER_ELECTION", "false"))) {
      cellar.kill9();
      cellar.cluster.stop("apiserver");
      try {
        cellar.start();
        await("the operator says it waits for the API server")
            .atMost(Duration.ofSeconds(60))
            .until(() -> cellar.log().contains("does not answer"));
        await("alive and live, not ready, while the API server is down")
            .during(Duration.ofSeconds(5))
            .atMost(Duration.ofSeconds(10))
            .ignoreExceptions()
            .until(
                () ->
                    cellar.isAlive()
                        && cellar.get("/healthz").statusCode() == 200
                        && cellar.get("/readyz").statusCode() == 503);
        assertThat(cellar.log()).doesNotContain("\tat ");
      } finally {
        cellar.cluster.start("apiserver");
      }
      createDatabase(ns, "after-start");
      awaitReady(ns, "after-start");
      assertThat(cellar.log()).contains("the API server answers after");
    }
  }

  static Map<String, Double> metrics(Cellar cellar) throws Exception {
    HttpResponse<String> response = cellar.get("/metrics");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
    return PrometheusText.parse(response.body());
  }
}
