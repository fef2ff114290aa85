package dev.cellar.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.testkit.LocalClusterExtension;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The API server or etcd restarts under a running operator: it recovers on its own. */
class ControlPlaneRestartIT {
  @RegisterExtension static LocalClusterExtension clusterExtension = new LocalClusterExtension();

  static Cellar cellar;
  static KubernetesClient client;
  static String ns;

  @BeforeAll
  static void install() {
    Assumptions.assumeTrue(
        clusterExtension.cluster().isLocal(),
        "stopping control-plane components needs the local cluster");
    cellar = Cellar.install("control-plane-restart");
    client = clusterExtension.client();
    ns = clusterExtension.newNamespace();
  }

  @AfterAll
  static void stop() {
    if (cellar != null) {
      cellar.close();
    }
  }

  Database createAndAwaitReady(String name) {
    client
        .resources(Database.class)
        .inNamespace(ns)
        .resource(new Database(ns, name, new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi")))
        .create();
    await(name + " Ready")
        .atMost(Duration.ofMinutes(2))
        .ignoreExceptions()
        .until(
            () ->
                client
                        .resources(Database.class)
                        .inNamespace(ns)
                        .withName(name)
                        .get()
                        .getStatus()
                        .getPhase()
                    == Phase.Ready);
    return client.resources(Database.class).inNamespace(ns).withName(name).get();
  }

  @ParameterizedTest
  @ValueSource(strings = {"apiserver", "etcd"})
  void theOperatorRecoversWithoutARestart(String component) {
    createAndAwaitReady("before-" + component);
    long pid = cellar.pid();
    cellar.cluster.stop(component);
    cellar.cluster.start(component);
    createAndAwaitReady("after-" + component);
    // Drift after the restart is repaired too: the watch really came back.
    client.apps().statefulSets().inNamespace(ns).withName("before-" + component).delete();
    await("StatefulSet recreated")
        .atMost(Duration.ofMinutes(1))
        .ignoreExceptions()
        .until(
            () ->
                client.apps().statefulSets().inNamespace(ns).withName("before-" + component).get()
                    != null);
    assertThat(cellar.isAlive()).isTrue();
    assertThat(cellar.pid()).isEqualTo(pid);
    long traces = cellar.log().lines().filter(l -> l.startsWith("\tat ")).count();
    assertThat(traces).as("stack trace lines in the operator log: no storm").isLessThan(300);
  }
}
