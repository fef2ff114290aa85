package dev.cellar.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.testkit.LocalCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The operator installed as users install it with Helm: {@code helm install} of deploy/helm/cellar
 * (a real helm, e2e/cluster/build.sh tools) with the given {@code --set} values, its image already
 * on the nodes. The release's Deployment, pods, logs and HTTP endpoints are handled as {@link
 * OperatorDeployment}'s; {@link #upgrade} and {@link #uninstall} are helm's. The chart installs its
 * own ServiceAccount and RBAC (named after the release) and the CRD; nothing of deploy/operator is
 * applied.
 */
final class HelmRelease extends OperatorDeployment {
  final String release;
  private final Path helm;
  private boolean installed = true;

  private HelmRelease(
      LocalCluster cluster,
      Path logs,
      Path helm,
      String release,
      String namespace,
      Runnable install) {
    super(cluster, logs, namespace, release + "-operator", install);
    this.release = release;
    this.helm = helm;
  }

  /** The helm binary bin/test builds (e2e/cluster/build.sh tools). */
  static Path helmBinary() {
    return Path.of(System.getProperty("user.home"), ".cache/cellar/bin/tools/helm");
  }

  /**
   * {@code helm install RELEASE deploy/helm/cellar -n NAMESPACE --create-namespace} with {@code
   * values} (helm's arguments: {@code --set}, {@code --set-string}, ...), for {@code scenario}
   * (logs under e2e-logs/scenario); returns once the operator's pod is Ready.
   */
  static HelmRelease install(
      String scenario, String release, String namespace, List<String> values) {
    LocalCluster cluster = LocalCluster.get();
    Path logs = LocalCluster.repoRoot().resolve("e2e/suite/target/e2e-logs").resolve(scenario);
    try {
      Files.createDirectories(logs);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path helm = helmBinary();
    List<String> args =
        new ArrayList<>(
            List.of(
                "install",
                release,
                chart().toString(),
                "-n",
                namespace,
                "--create-namespace",
                // A CRD applied before with kubectl (other scenarios): helm's server-side apply
                // takes it over.
                "--force-conflicts",
                "--wait=false"));
    args.addAll(values);
    HelmRelease cellar =
        new HelmRelease(
            cluster, logs, helm, release, namespace, () -> run(cluster, helm, namespace, args));
    cellar.start();
    return cellar;
  }

  static Path chart() {
    return LocalCluster.repoRoot().resolve("deploy/helm/cellar");
  }

  static LocalCluster.Result run(
      LocalCluster cluster, Path helm, String namespace, List<String> args) {
    List<String> command = new ArrayList<>(List.of(helm.toString()));
    command.add("--kubeconfig=" + cluster.kubeconfig());
    command.addAll(args);
    LocalCluster.Result result = LocalCluster.exec(command, null);
    assertThat(result.exitCode()).as("helm %s: %s", args, result.output()).isZero();
    return result;
  }

  LocalCluster.Result helm(String... args) {
    return run(cluster, helm, namespace, List.of(args));
  }

  Deployment deploymentObject() {
    return client.apps().deployments().inNamespace(namespace).withName(deployment).get();
  }

  /** How long a rollout took: until a new pod was Ready, and until it ran alone. */
  record Rollout(Duration newPodReady, Duration rolledOut) {}

  /**
   * {@code helm upgrade --reuse-values} with {@code values} (helm's arguments); returns once the
   * Deployment's new generation is rolled out: one pod, of the new ReplicaSet, Ready, and no other
   * pod left.
   */
  Rollout upgrade(String... values) {
    long before = deploymentObject().getMetadata().getGeneration();
    List<String> old = allPods().stream().map(p -> p.getMetadata().getName()).toList();
    List<String> args =
        new ArrayList<>(
            List.of("upgrade", release, chart().toString(), "-n", namespace, "--reuse-values"));
    args.addAll(List.of(values));
    long start = System.nanoTime();
    helm(args.toArray(String[]::new));
    await("a new operator pod Ready")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                allPods().stream()
                    .filter(p -> !old.contains(p.getMetadata().getName()))
                    .anyMatch(
                        p ->
                            p.getStatus().getConditions().stream()
                                .anyMatch(
                                    c ->
                                        c.getType().equals("Ready")
                                            && c.getStatus().equals("True"))));
    Duration ready = Duration.ofNanos(System.nanoTime() - start);
    awaitRolledOut(before + 1);
    return new Rollout(ready, Duration.ofNanos(System.nanoTime() - start));
  }

  /** Waits until generation {@code generation} of the Deployment runs alone, Ready. */
  void awaitRolledOut(long generation) {
    await("Deployment " + deployment + " generation " + generation + " rolled out")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              Deployment d = deploymentObject();
              assertThat(d.getMetadata().getGeneration()).isEqualTo(generation);
              assertThat(d.getStatus().getObservedGeneration()).isEqualTo(generation);
              assertThat(d.getStatus().getUpdatedReplicas()).isEqualTo(1);
              assertThat(d.getStatus().getAvailableReplicas()).isEqualTo(1);
              assertThat(d.getStatus().getReplicas()).as("old pods gone").isEqualTo(1);
              List<Pod> pods = allPods();
              assertThat(pods).hasSize(1);
            });
  }

  /** Every pod of the release, terminating ones included. */
  List<Pod> allPods() {
    return client
        .pods()
        .inNamespace(namespace)
        .withLabel("app.kubernetes.io/instance", release)
        .list()
        .getItems();
  }

  /** {@code helm uninstall --wait}; the operator's logs so far are kept first. */
  void uninstall() {
    if (installed) {
      keepLogs();
      helm("uninstall", release, "-n", namespace, "--wait", "--timeout=3m");
      installed = false;
    }
  }

  private void keepLogs() {
    try {
      Files.writeString(logs.resolve("operator-" + release + ".log"), log());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    closeForward();
    try {
      uninstall();
    } finally {
      client.close();
    }
  }
}
