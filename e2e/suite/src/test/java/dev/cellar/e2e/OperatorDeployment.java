package dev.cellar.e2e;

import static org.awaitility.Awaitility.await;

import dev.cellar.testkit.LocalCluster;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.LocalPortForward;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator as the Deployment from deploy/operator ({@code kubectl apply -k}, as the README
 * tells users), its image loaded into the cluster beforehand; on any cluster but the local one
 * (kind). Its HTTP endpoints are reached through the pod (a port-forward to the leader, or to any
 * running pod when none leads). {@link HelmRelease} is the same Deployment installed by the Helm
 * chart instead.
 */
sealed class OperatorDeployment extends Cellar permits HelmRelease {
  static final String DEPLOYMENT = "cellar-operator";
  static final String POD_LABEL = "app.kubernetes.io/name=cellar-operator";
  static final int PORT = 8080;

  final String namespace;
  final String deployment;
  final KubernetesClient client;
  private final HttpClient http = HttpClient.newHttpClient();
  private LocalPortForward forward;
  private String forwardedPod;
  private int replicas = 1;
  private int logsKept;

  OperatorDeployment(LocalCluster cluster, java.nio.file.Path logs) {
    this(
        cluster,
        logs,
        NAMESPACE,
        DEPLOYMENT,
        () ->
            kubectlOk(
                cluster,
                "apply",
                "-k",
                LocalCluster.repoRoot().resolve("deploy/operator").toString()));
  }

  /** The Deployment {@code deployment} in {@code namespace}, which {@code install} creates. */
  OperatorDeployment(
      LocalCluster cluster,
      java.nio.file.Path logs,
      String namespace,
      String deployment,
      Runnable install) {
    super(cluster, logs);
    this.namespace = namespace;
    this.deployment = deployment;
    this.client = cluster.newClient();
    install.run();
    Integer declared =
        client
            .apps()
            .deployments()
            .inNamespace(namespace)
            .withName(deployment)
            .get()
            .getSpec()
            .getReplicas();
    replicas = declared == null || declared == 0 ? 1 : declared;
  }

  @Override
  void start() {
    scale(replicas);
  }

  /** Scales the Deployment to {@code count} pods and waits for the rollout. */
  void scale(int count) {
    replicas = Math.max(count, 1);
    kubectlOk(cluster, "-n", namespace, "scale", "deployment/" + deployment, "--replicas=" + count);
    if (count > 0) {
      kubectlOk(
          cluster,
          "-n",
          namespace,
          "rollout",
          "status",
          "deployment/" + deployment,
          "--timeout=180s");
    } else {
      await("no operator pod left").atMost(Duration.ofSeconds(60)).until(() -> pods().isEmpty());
    }
  }

  /** The operator's pods, oldest first. */
  List<Pod> pods() {
    return client
        .pods()
        .inNamespace(namespace)
        .withLabel("app.kubernetes.io/name", DEPLOYMENT)
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .sorted(Comparator.comparing(p -> p.getMetadata().getCreationTimestamp()))
        .toList();
  }

  /** The pod holding the leader-election Lease (its identity is the pod's name), if any. */
  Optional<String> leader() {
    Lease lease = client.leases().inNamespace(namespace).withName("cellar-operator").get();
    return Optional.ofNullable(lease)
        .map(l -> l.getSpec().getHolderIdentity())
        .filter(h -> pods().stream().anyMatch(p -> p.getMetadata().getName().equals(h)));
  }

  /** Deletes one pod as a node failure would: no grace period. */
  void killPod(String name) {
    saveLogs();
    kubectlOk(
        cluster,
        "-n",
        namespace,
        "delete",
        "pod",
        name,
        "--grace-period=0",
        "--force",
        "--wait=false");
  }

  @Override
  Instant startedAt() {
    return pods().stream()
        .map(p -> p.getStatus().getContainerStatuses())
        .filter(Objects::nonNull)
        .flatMap(List::stream)
        .map(ContainerStatus::getState)
        .filter(s -> s != null && s.getRunning() != null)
        .map(s -> Instant.parse(s.getRunning().getStartedAt()))
        .max(Comparator.naturalOrder())
        .orElseThrow();
  }

  @Override
  void stop() {
    saveLogs();
    scale(0);
  }

  @Override
  void kill9() {
    saveLogs();
    kubectlOk(
        cluster, "-n", namespace, "delete", "pod", "-l", POD_LABEL, "--grace-period=0", "--force");
  }

  @Override
  boolean isAlive() {
    return pods().stream().anyMatch(p -> "Running".equals(p.getStatus().getPhase()));
  }

  @Override
  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    String pod =
        leader()
            .or(
                () ->
                    pods().stream()
                        .filter(p -> "Running".equals(p.getStatus().getPhase()))
                        .map(p -> p.getMetadata().getName())
                        .findFirst())
            .orElseThrow(() -> new IOException("no operator pod runs"));
    if (forward == null || !pod.equals(forwardedPod) || !forward.isAlive()) {
      closeForward();
      forward = client.pods().inNamespace(namespace).withName(pod).portForward(PORT);
      forwardedPod = pod;
    }
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + forward.getLocalPort() + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Override
  int httpPort() {
    return PORT;
  }

  @Override
  long pid() {
    return 0;
  }

  @Override
  String log() {
    return cluster
        .kubectl("-n", namespace, "logs", "-l", POD_LABEL, "--tail=-1", "--max-log-requests=10")
        .stdout();
  }

  /** Keeps the operator pods' logs so far in this scenario's log directory. */
  private void saveLogs() {
    try {
      Files.writeString(logs.resolve("operator-" + logsKept++ + ".log"), log());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void closeForward() {
    if (forward != null) {
      try {
        forward.close();
      } catch (IOException e) {
        // A port-forward to a pod that is gone has nothing left to close.
      }
      forward = null;
    }
  }

  @Override
  public void close() {
    closeForward();
    stop();
    client.close();
  }
}
