package dev.cellar.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.MonitoringSpec;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.DatabaseReconciler;
import dev.cellar.operator.wiring.LeanInformers;
import dev.cellar.testkit.EngineImages;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import dev.cellar.testkit.Prerequisites;
import dev.cellar.testkit.SharedRealNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The commands that need real database processes, on the local cluster's real node or on another
 * cluster of real nodes named by {@code CELLAR_KUBECONFIG}, such as kind's (only with {@code
 * CELLAR_REAL_NODE=true}, as bin/test runs it, else skipped or in CI failed; for the real node as
 * root, under {@code flock /work/coord/realnode.lock} on shared machines): psql through kubectl
 * exec, a backup now that ends in a dump, and a restore of that dump into a new Database that
 * answers with the data. The plugin runs as users run it: the launcher {@code
 * target/kubectl-cellar}, with the project's kubectl. The reconciler runs in the test JVM: on
 * another cluster, no Cellar operator of its own may run there (the e2e suite leaves its Deployment
 * scaled to zero).
 */
@ExtendWith(Prerequisites.RealNode.class)
class PluginRealNodeIT {
  static final Duration READY = Duration.ofMinutes(5);
  static final String STORAGE_CLASS = "real-local";

  static LocalCluster cluster;

  /**
   * The PostgreSQL image: the real node's, or on another cluster the one its nodes hold
   * (CELLAR_E2E_IMAGES), whose tag is the version.
   */
  static String image = "cellar.local/postgres:15";

  static KubernetesClient admin() {
    return LocalCluster.get().newClient();
  }

  @BeforeAll
  static void realNode() {
    cluster = LocalCluster.get();
    if (!cluster.isLocal()) {
      // Another cluster (kind): its pods are real already, and no registry may be reachable.
      Optional<String> held = EngineImages.fromEnvironment().of("postgresql");
      assumeTrue(
          held.isPresent(),
          "CELLAR_E2E_IMAGES names no postgresql image that the nodes hold"
              + " (e2e/kind/kind-cluster engine-images prints it for kind)");
      image = held.get();
      return;
    }
    SharedRealNode.up(cluster);
  }

  /** The only class of this module on the real node: it stops the node if it started it. */
  @AfterAll
  static void nodeDown() {
    SharedRealNode.release();
  }

  @RegisterExtension
  static LocalOperator<Database> operator =
      LocalOperator.of(
          admin(), new DatabaseReconciler(), c -> c.withItemStore(LeanInformers.databaseStore()));

  static Database awaitReady(String name) {
    await(name + " Ready")
        .atMost(READY)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              Database db = operator.get(Database.class, name);
              return db != null
                  && db.getStatus() != null
                  && db.getMetadata().getGeneration().equals(db.getStatus().getObservedGeneration())
                  && db.getStatus().getPhase() == Phase.Ready;
            });
    return operator.get(Database.class, name);
  }

  /** {@code kubectl-cellar ARGS} as a process, with the local cluster's kubectl; its output. */
  static String cellar(String... args) throws Exception {
    Path launcher = Path.of("target/kubectl-cellar").toAbsolutePath();
    List<String> command = new ArrayList<>();
    command.add(launcher.toString());
    command.add("--kubeconfig=" + cluster.kubeconfig());
    command.add("-n");
    command.add(operator.getNamespace());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    Map<String, String> env = new HashMap<>(pb.environment());
    // The local cluster's kubectl, else the one built with kind's node image.
    for (String bin : List.of("current", "kind")) {
      Path kubectl = Path.of(System.getProperty("user.home"), ".cache/cellar/bin", bin, "kubectl");
      if (Files.isExecutable(kubectl)) {
        env.put("KUBECTL", kubectl.toString());
        break;
      }
    }
    pb.environment().putAll(env);
    Process p = pb.start();
    p.getOutputStream().close();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", args) + ":\n" + output).isZero();
    return output;
  }

  @Test
  void psqlBackupAndRestoreWithRealPostgres() throws Exception {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, EngineImages.tag(image), "1Gi");
    spec.setImage(image);
    // The nodes have no exporter image (the Go module proxy here does not serve the exporters).
    spec.setMonitoring(new MonitoringSpec(false, null));
    // The real node's local volumes; elsewhere the cluster's default StorageClass.
    spec.setStorageClassName(cluster.isLocal() ? STORAGE_CLASS : null);
    spec.getBackup().setVerify(false);
    operator.create(new Database(null, "pg", spec));
    awaitReady("pg");

    String created =
        cellar(
            "psql",
            "pg",
            "--",
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            "create table orders (id int primary key, item text)",
            "-c",
            "insert into orders values (1, 'tea'), (2, 'cake')");
    assertThat(created).contains("INSERT 0 2");
    assertThat(cellar("psql", "pg", "--", "-tAc", "select string_agg(item, ',') from orders"))
        .contains("tea,cake");
    String password =
        new String(
            java.util.Base64.getDecoder()
                .decode(
                    operator
                        .get(io.fabric8.kubernetes.api.model.Secret.class, "pg-credentials")
                        .getData()
                        .get("password")),
            StandardCharsets.UTF_8);
    assertThat(created).doesNotContain(password);

    String backup = cellar("backup", "pg", "--wait", "--timeout", "300");
    assertThat(backup).contains("backup requested", "done: pg-");

    String restore = cellar("restore", "pg", "--to", "pg-restored");
    assertThat(restore).contains("database.cellar.dev/pg-restored created from pg's latest dump");
    awaitReady("pg-restored");
    assertThat(
            cellar("psql", "pg-restored", "--", "-tAc", "select string_agg(item, ',') from orders"))
        .contains("tea,cake");
    assertThat(cellar("status", "pg")).contains("Phase          Ready", "Last           pg-");
  }
}
