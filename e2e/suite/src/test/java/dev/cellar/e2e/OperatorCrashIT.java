package dev.cellar.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.testkit.LocalClusterExtension;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kill -9 in the middle of a burst of creates: everything converges, once, with no Secret
 * rewritten. On the local cluster only: 50 Databases Ready on a cluster of real nodes are 50 real
 * servers, more than a test cluster holds, and the operator's bookkeeping proven here is the same
 * on any cluster (OperatorDeploymentIT kills the Deployment's leader pod on kind).
 */
class OperatorCrashIT {
  @RegisterExtension static LocalClusterExtension clusterExtension = new LocalClusterExtension();

  static final int COUNT = 50;
  static Cellar cellar;
  static KubernetesClient client;
  static String ns;

  @BeforeAll
  static void install() {
    assumeTrue(
        clusterExtension.cluster().isLocal(),
        "50 real database servers: the local cluster's kwok nodes only");
    cellar = Cellar.install("operator-crash");
    client = clusterExtension.client();
    ns = clusterExtension.newNamespace();
  }

  @AfterAll
  static void stop() {
    if (cellar != null) {
      cellar.close();
    }
  }

  static Engine engine(int i) {
    return i % 2 == 0 ? Engine.POSTGRESQL : i % 4 == 1 ? Engine.MYSQL : Engine.MARIADB;
  }

  static String version(Engine engine) {
    return Map.of(Engine.POSTGRESQL, "16", Engine.MYSQL, "8.4", Engine.MARIADB, "11.4").get(engine);
  }

  @Test
  void everyDatabaseConvergesAfterTheOperatorIsKilledMidBurst() {
    List<String> names = IntStream.range(0, COUNT).mapToObj(i -> "burst-" + i).toList();
    IntStream.range(0, COUNT)
        .parallel()
        .forEach(
            i -> {
              Engine engine = engine(i);
              client
                  .resources(Database.class)
                  .inNamespace(ns)
                  .resource(
                      new Database(
                          ns, names.get(i), new DatabaseSpec(engine, version(engine), "1Gi")))
                  .create();
            });
    // Kill once the operator is part-way through: some Secrets exist, not all Databases are Ready.
    await("the operator is part-way through the burst")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> secrets().size() >= 5);
    cellar.kill9();
    Map<String, String> secretsAtCrash = secretVersions();

    cellar.start();
    await("all " + COUNT + " Ready after the restart")
        .atMost(Duration.ofMinutes(4))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () ->
                assertThat(client.resources(Database.class).inNamespace(ns).list().getItems())
                    .hasSize(COUNT)
                    .allSatisfy(
                        db ->
                            assertThat(db.getStatus() == null ? null : db.getStatus().getPhase())
                                .as(db.getMetadata().getName())
                                .isEqualTo(Phase.Ready)));

    assertThat(names(client.apps().statefulSets().inNamespace(ns).list().getItems()))
        .containsExactlyInAnyOrderElementsOf(names);
    assertThat(names(client.batch().v1().cronjobs().inNamespace(ns).list().getItems()))
        .containsExactlyInAnyOrderElementsOf(names.stream().map(n -> n + "-backup").toList());
    assertThat(names(client.services().inNamespace(ns).list().getItems()))
        .hasSize(2 * COUNT)
        .doesNotHaveDuplicates();
    // Each Database's credentials, its CA, its server certificate and its exporter's account, once.
    assertThat(names(secrets()))
        .containsExactlyInAnyOrderElementsOf(
            names.stream()
                .flatMap(
                    n -> Stream.of(n + "-credentials", n + "-ca", n + "-tls", n + "-monitoring"))
                .toList());
    Map<String, String> after = secretVersions();
    secretsAtCrash.forEach(
        (name, version) ->
            assertThat(after.get(name)).as(name + " was not regenerated").isEqualTo(version));
  }

  static List<String> names(List<? extends HasMetadata> items) {
    return items.stream().map(i -> i.getMetadata().getName()).toList();
  }

  static List<Secret> secrets() {
    return client
        .secrets()
        .inNamespace(ns)
        .withLabel("app.kubernetes.io/managed-by", "cellar-operator")
        .list()
        .getItems();
  }

  /**
   * Each Secret's identity and contents (passwords, keys, certificates), without ca.crt and uri:
   * those two are added to the credentials once the CA exists (TLS), which may come after a crash.
   */
  static Map<String, String> secretVersions() {
    return secrets().stream()
        .collect(
            Collectors.toMap(
                s -> s.getMetadata().getName(),
                s ->
                    s.getMetadata().getUid()
                        + "/"
                        + new java.util.TreeMap<>(
                            s.getData().entrySet().stream()
                                .filter(e -> !Set.of("ca.crt", "uri").contains(e.getKey()))
                                .collect(Collectors.toMap(e -> e.getKey(), e -> e.getValue())))));
  }
}
