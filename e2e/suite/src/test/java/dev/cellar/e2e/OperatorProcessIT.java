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
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The packaged jar as a process: leader election, namespaces, health, JSON logs. */
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
      for (String line : a.log().lines().filter(l -> l.startsWith("{")).toList()) {
        JsonNode node = json.readTree(line);
        assertThat(node.has("level")).isTrue();
        assertThat(node.has("formattedMessage")).isTrue();
        lines++;
      }
      assertThat(lines).as("JSON log lines of instance a").isPositive();
    }
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
      HttpClient http = HttpClient.newHttpClient();
      await("ready")
          .atMost(Duration.ofMinutes(1))
          .ignoreExceptions()
          .until(() -> status(http, cellar, "/readyz") == 200);
      cellar.cluster.stop("apiserver");
      try {
        await("healthz during the outage")
            .during(Duration.ofSeconds(10))
            .atMost(Duration.ofSeconds(15))
            .until(() -> status(http, cellar, "/healthz") == 200);
      } finally {
        cellar.cluster.start("apiserver");
      }
      createDatabase(ns, "after-restart");
      awaitReady(ns, "after-restart");
      assertThat(cellar.isAlive()).isTrue();
    }
  }

  static int status(HttpClient http, Cellar cellar, String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cellar.httpPort() + path))
                .timeout(Duration.ofSeconds(2))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
