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
import dev.cellar.operator.cache.CachePruning;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import dev.cellar.testkit.Prerequisites;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The commands that need real database processes, on the local cluster's real node (only with
 * {@code CELLAR_REAL_NODE=true}, as bin/test runs it, else skipped or in CI failed; as root, under
 * {@code flock /work/coord/realnode.lock} on shared machines): psql through kubectl exec, a backup
 * now that ends in a dump, and a restore of that dump into a new Database that answers with the
 * data. The plugin runs as users run it: the launcher {@code target/kubectl-cellar}, with the local
 * cluster's kubectl.
 */
@ExtendWith(Prerequisites.RealNode.class)
class PluginRealNodeIT {
  static final Duration READY = Duration.ofMinutes(5);
  static final String IMAGE = "cellar.local/postgres:15";
  static final String STORAGE_CLASS = "real-local";

  static LocalCluster cluster;
  static boolean startedNode;

  static KubernetesClient admin() {
    return LocalCluster.get().newClient();
  }

  @BeforeAll
  static void realNode() {
    cluster = LocalCluster.get();
    assumeTrue(cluster.isLocal(), "the real node joins the local cluster only");
    startedNode = node("status").exitCode() != 0;
    LocalCluster.Result up = node("up");
    assertThat(up.exitCode()).as("e2e/local-cluster node up:\n" + up.tail(40)).isZero();
  }

  @AfterAll
  static void nodeDown() {
    if (startedNode) {
      LocalCluster.Result down = node("down");
      assertThat(down.exitCode()).as("e2e/local-cluster node down:\n" + down.tail(40)).isZero();
    }
  }

  static LocalCluster.Result node(String verb) {
    Path root = LocalCluster.repoRoot();
    return LocalCluster.exec(
        List.of(root.resolve("e2e/local-cluster").toString(), "node", verb), root.toFile());
  }

  @RegisterExtension
  static LocalOperator<Database> operator =
      LocalOperator.of(
          admin(), new DatabaseReconciler(), c -> c.withItemStore(CachePruning.store()));

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
    Path kubectl = Path.of(System.getProperty("user.home"), ".cache/cellar/bin/current/kubectl");
    if (Files.isExecutable(kubectl)) {
      env.put("KUBECTL", kubectl.toString());
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
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "15", "1Gi");
    spec.setImage(IMAGE);
    // The real node has no exporter image (the Go module proxy here does not serve the exporters).
    spec.setMonitoring(new MonitoringSpec(false, null));
    spec.setStorageClassName(STORAGE_CLASS);
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
