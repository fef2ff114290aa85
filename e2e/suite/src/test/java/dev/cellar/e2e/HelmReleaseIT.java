package dev.cellar.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalClusterExtension;
import dev.cellar.testkit.Prerequisites;
import dev.cellar.testkit.SharedRealNode;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cellar installed with Helm, as the README tells users, running for real: the operator's image
 * (Jib, operator/pom.xml profile {@code image}, on the project's Debian JRE base image) is loaded
 * into the local cluster's real node ({@code e2e/local-cluster node load}), and {@code helm
 * install} of deploy/helm/cellar puts the operator's pod there ({@code image.pullPolicy=Never}, a
 * nodeSelector and a toleration for the node's label and taint). The operator reaches the API
 * server with its in-cluster configuration (the {@code kubernetes} Service, through the node's
 * relay: e2e/realnode/node.sh) as the chart's ServiceAccount, so a missing RBAC rule in the chart
 * fails here. Then, in order:
 *
 * <ol>
 *   <li>the newcomer's journey of {@link NewcomerJourneyIT} passes against that operator (its
 *       Databases on the kwok nodes);
 *   <li>a real PostgreSQL Database on the real node becomes Ready, and a row is written;
 *   <li>{@code helm upgrade --set logFormat=text} rolls the Deployment: a new pod, logging text,
 *       takes over, the Database stays Ready, and turning its backups on gets their CronJob;
 *   <li>{@code helm uninstall} removes the operator and its RBAC, and leaves the CRD, the Database,
 *       its volume claim and its running server with the row.
 * </ol>
 *
 * <p>Runs only on the local cluster with {@code CELLAR_REAL_NODE=true} (as root), as bin/test runs
 * it (without the real node it is skipped, and in CI fails: {@link Prerequisites}); it shares the
 * real node with the suite's other classes that need it ({@link SharesRealNode}). It needs
 * operator/target/jib-image.tar (bin/test builds it: {@code mvn -Pimage}). Timings go to {@code
 * e2e/suite/target/e2e-logs/helm-release/timings.txt}.
 */
@ExtendWith(Prerequisites.RealNode.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SharesRealNode
class HelmReleaseIT {
  @RegisterExtension static LocalClusterExtension clusterExtension = new LocalClusterExtension();

  static final String RELEASE = "journey";
  static final String NAMESPACE = "cellar-helm";
  static final String NODE = "cellar-real-node";
  static final String NODE_LABEL = "cellar.dev/real-node";
  static final Path IMAGE = Path.of("operator/target/jib-image.tar");

  static LocalCluster cluster;
  static HelmRelease cellar;
  static String keptNamespace;
  static final List<String> timings = new ArrayList<>();

  @BeforeAll
  static void install() {
    cluster = clusterExtension.cluster();
    assumeTrue(cluster.isLocal(), "the real node is the local cluster's");
    Path image = cluster.repoRootDir().resolve(IMAGE);
    Prerequisites.require(
        Files.isRegularFile(image),
        "the operator's image " + image,
        "bin/test builds it (mvn -Pimage package -pl operator"
            + " -Djib.from.image=$(e2e/kind/kind-cluster jre-image))");
    Prerequisites.requireTool(HelmRelease.helmBinary());

    long start = System.nanoTime();
    SharedRealNode.up(cluster);
    timings.add("node up (or already up): " + seconds(start) + " s");

    start = System.nanoTime();
    LocalCluster.Result load = SharedRealNode.run(cluster, "load", image.toString());
    assertThat(load.exitCode()).as("node load:\n" + load.output()).isZero();
    timings.add(
        String.format(
            Locale.ROOT,
            "operator image loaded into the real node: %s s (%d MiB)",
            seconds(start),
            image.toFile().length() >> 20));

    start = System.nanoTime();
    cellar =
        HelmRelease.install(
            "helm-release",
            RELEASE,
            NAMESPACE,
            List.of(
                "--set",
                "image.pullPolicy=Never",
                "--set-string",
                "nodeSelector.cellar\\.dev/real-node=true",
                "--set",
                "tolerations[0].key=" + NODE_LABEL,
                "--set",
                "tolerations[0].operator=Exists"));
    timings.add("helm install to the operator's pod Ready: " + seconds(start) + " s");

    Pod pod = cellar.pods().get(0);
    assertThat(pod.getSpec().getNodeName()).isEqualTo(NODE);
    assertThat(pod.getSpec().getServiceAccountName()).isEqualTo(RELEASE + "-operator");
    // 10.96.0.1:443: the `kubernetes` Service, from the pod's in-cluster configuration.
    assertThat(cellar.log())
        .as("the operator found the API server through its in-cluster configuration")
        .contains("Cellar operator started against https:")
        .contains("10.96.0.1:443");
  }

  @AfterAll
  static void cleanUp() throws IOException {
    if (cluster == null) {
      return;
    }
    // No Database of the journey may land on the real node (it lacks their images).
    cluster.kubectl("taint", "node", NODE, NODE_LABEL + ":NoSchedule-");
    if (cellar != null) {
      Path logs = cellar.logs;
      cellar.close();
      Files.write(logs.resolve("timings.txt"), timings, StandardCharsets.UTF_8);
    }
    if (keptNamespace != null) {
      cluster.kubectl("delete", "namespace", keptNamespace, "--wait=true", "--timeout=120s");
    }
  }

  @Test
  @Order(1)
  void theNewcomersJourneyPassesAgainstTheReleasesOperator() {
    // The journey's Databases run on the kwok nodes with the official images, which the real node
    // lacks: while it runs, nothing new is scheduled there (the operator's pod tolerates it).
    ok("taint", "node", NODE, NODE_LABEL + "=true:NoSchedule", "--overwrite");
    long start = System.nanoTime();
    try {
      NewcomerJourneyIT.use(cluster, cellar, clusterExtension.newNamespace());
      new NewcomerJourneyIT().applyWaitGetDescribeScaleToggleBackupsAndDelete();
    } finally {
      ok("taint", "node", NODE, NODE_LABEL + ":NoSchedule-");
    }
    timings.add("the newcomer's journey: " + seconds(start) + " s");
    assertThat(cellar.pods()).hasSize(1);
    assertThat(cellar.pods().get(0).getStatus().getContainerStatuses().get(0).getRestartCount())
        .as("the operator ran the whole journey without a restart")
        .isZero();
  }

  @Test
  @Order(2)
  void upgradeRollsTheOperatorAndUninstallLeavesTheDatabaseAndItsData() {
    keptNamespace = clusterExtension.newNamespace();
    String ns = keptNamespace;
    long start = System.nanoTime();
    apply(
        ns,
        String.join(
            "\n",
            "apiVersion: cellar.dev/v1",
            "kind: Database",
            "metadata:",
            "  name: kept",
            "spec:",
            "  engine: postgresql",
            "  version: \"15\"",
            "  image: cellar.local/postgres:15",
            "  storage: 1Gi",
            "  storageClassName: real-local",
            "  replicas: 1",
            "  backupEnabled: false",
            // The real node has no exporter image (as RealNodeIT.database).
            "  monitoring: {enabled: false}",
            ""));
    waitReady(ns, "kept");
    timings.add("a real PostgreSQL Database Ready: " + seconds(start) + " s");
    sql(ns, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('outlives the chart')");

    // helm upgrade with a changed value rolls the Deployment.
    String before = cellar.pods().get(0).getMetadata().getName();
    HelmRelease.Rollout rollout = cellar.upgrade("--set", "logFormat=text");
    timings.add(
        String.format(
            Locale.ROOT,
            "helm upgrade (logFormat=text): new pod Ready %.1f s, the old pod gone %.1f s",
            rollout.newPodReady().toMillis() / 1e3,
            rollout.rolledOut().toMillis() / 1e3));
    assertThat(rollout.rolledOut().minus(rollout.newPodReady()))
        .as("the old pod exits on SIGTERM, well before its 30 s grace period ends")
        .isLessThan(Duration.ofSeconds(20));
    Pod pod = cellar.pods().get(0);
    assertThat(pod.getMetadata().getName()).as("a new pod").isNotEqualTo(before);
    assertThat(pod.getSpec().getNodeName()).isEqualTo(NODE);
    assertThat(
            pod.getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals("LOG_FORMAT"))
                .map(EnvVar::getValue)
                .findFirst())
        .contains("text");
    String newLog = ok("-n", NAMESPACE, "logs", pod.getMetadata().getName(), "--tail=-1").stdout();
    assertThat(newLog).contains("Cellar operator started against https://10.96.0.1:443/");
    assertThat(newLog.lines().filter(l -> l.startsWith("{\"timestamp\"")))
        .as("the new pod logs text, not JSON")
        .isEmpty();
    // The new operator reconciles: backups turned on now get their CronJob.
    ok(
        "-n",
        ns,
        "patch",
        "db",
        "kept",
        "--type=merge",
        "-p",
        "{\"spec\":{\"backupEnabled\":true}}");
    await("the backup CronJob, made by the upgraded operator")
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> cluster.kubectl("-n", ns, "get", "cronjob", "kept-backup").exitCode() == 0);
    waitReady(ns, "kept");

    // helm uninstall leaves the CRD, the Database and its data.
    start = System.nanoTime();
    cellar.uninstall();
    timings.add("helm uninstall: " + seconds(start) + " s");
    assertThat(
            cluster.kubectl("-n", NAMESPACE, "get", "deployment", RELEASE + "-operator").exitCode())
        .as("the operator's Deployment is gone")
        .isNotZero();
    assertThat(cluster.kubectl("get", "clusterrole", RELEASE + "-operator").exitCode())
        .as("its ClusterRole is gone")
        .isNotZero();
    await("the operator's pod gone")
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> cellar.allPods().isEmpty());
    ok("get", "crd", "databases.cellar.dev");
    assertThat(ok("-n", ns, "get", "db", "kept", "-o", "jsonpath={.status.phase}").stdout())
        .as("the Database and its status stay")
        .isEqualTo("Ready");
    assertThat(ok("-n", ns, "get", "pvc", "-o", "jsonpath={.items[*].status.phase}").stdout())
        .as("its volume claims stay bound")
        .contains("Bound")
        .doesNotContain("Lost")
        .doesNotContain("Pending");
    assertThat(sql(ns, "SELECT v FROM kept")).isEqualTo("outlives the chart");
  }

  /** Runs {@code statement} on the Database {@code kept}'s server; returns psql's output. */
  static String sql(String ns, String statement) {
    return ok(
            "-n",
            ns,
            "exec",
            "kept-0",
            "-c",
            "database",
            "--",
            "bash",
            "-c",
            "PGPASSWORD=$POSTGRES_PASSWORD psql -h 127.0.0.1 -U \"$POSTGRES_USER\" -d"
                + " \"$POSTGRES_DB\" -v ON_ERROR_STOP=1 -qtA -c \""
                + statement
                + "\"")
        .stdout()
        .strip();
  }

  static void waitReady(String ns, String name) {
    LocalCluster.Result result =
        cluster.kubectl("-n", ns, "wait", "--for=condition=Ready", "db/" + name, "--timeout=300s");
    assertThat(result.exitCode())
        .as(
            "Database %s/%s Ready:\n%s\n%s",
            ns,
            name,
            result.output(),
            cluster.kubectl("-n", ns, "get", "db,pods,pvc", "-o", "wide").stdout())
        .isZero();
  }

  static void apply(String ns, String yaml) {
    try {
      Path file = Files.createTempFile("helm-release", ".yaml");
      Files.writeString(file, yaml);
      ok("apply", "-n", ns, "-f", file.toString());
      Files.delete(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static LocalCluster.Result ok(String... args) {
    LocalCluster.Result result = cluster.kubectl(args);
    assertThat(result.exitCode())
        .as("kubectl " + String.join(" ", args) + "\n" + result.output())
        .isZero();
    return result;
  }

  static String seconds(long startNanos) {
    return String.format(Locale.ROOT, "%.1f", (System.nanoTime() - startNanos) / 1e9);
  }
}
