package dev.cellar.e2e;

import dev.cellar.testkit.LocalCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Cellar as users install it: the CRD and RBAC from deploy/ applied with kubectl, and the operator
 * running as the {@code cellar-operator} ServiceAccount, so a missing RBAC rule fails the suite.
 * There is one implementation per way of running the operator, chosen once by {@link #install}:
 *
 * <ul>
 *   <li>{@link OperatorJar}: on the project's local cluster, the packaged jar as a process of the
 *       test JVM's machine, with a TokenRequest token of the ServiceAccount; one process per
 *       scenario;
 *   <li>{@link OperatorDeployment}: on any other cluster (CELLAR_KUBECONFIG, e.g. kind), the
 *       Deployment from deploy/operator ({@code kubectl apply -k}), its image loaded beforehand.
 * </ul>
 *
 * Each scenario keeps its logs under {@code e2e/suite/target/e2e-logs/<scenario>/}.
 */
abstract sealed class Cellar implements AutoCloseable permits OperatorJar, OperatorDeployment {
  static final String NAMESPACE = "cellar-system";
  static final String SERVICE_ACCOUNT = "cellar-operator";

  final LocalCluster cluster;
  final Path logs;

  Cellar(LocalCluster cluster, Path logs) {
    this.cluster = cluster;
    this.logs = logs;
  }

  /** Installs Cellar from deploy/ and starts the operator for {@code scenario}. */
  static Cellar install(String scenario) {
    return install(scenario, Map.of());
  }

  /**
   * Like {@link #install(String)}, with extra or overriding operator settings (the jar only: the
   * Deployment runs with the settings deploy/operator gives it).
   */
  static Cellar install(String scenario, Map<String, String> settings) {
    return install(scenario, settings, List.of("-Xmx256m"));
  }

  /** Like {@link #install(String, Map)}, with the operator JVM's options (the jar only). */
  static Cellar install(String scenario, Map<String, String> settings, List<String> jvmOptions) {
    LocalCluster cluster = LocalCluster.get();
    Path root = LocalCluster.repoRoot();
    Path logs = root.resolve("e2e/suite/target/e2e-logs").resolve(scenario);
    try {
      Files.createDirectories(logs);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    kubectlOk(cluster, "apply", "-f", root.resolve("deploy/crd").toString());
    kubectlOk(
        cluster,
        "apply",
        "-f",
        root.resolve("deploy/operator/namespace.yaml").toString(),
        "-f",
        root.resolve("deploy/operator/serviceaccount.yaml").toString(),
        "-f",
        root.resolve("deploy/operator/rbac.yaml").toString());
    kubectlOk(
        cluster,
        "wait",
        "--for=condition=Established",
        "crd/databases.cellar.dev",
        "--timeout=60s");
    Cellar cellar =
        cluster.isLocal()
            ? new OperatorJar(cluster, logs, settings, jvmOptions)
            : new OperatorDeployment(cluster, logs);
    cellar.start();
    return cellar;
  }

  static LocalCluster.Result kubectlOk(LocalCluster cluster, String... args) {
    LocalCluster.Result result = cluster.kubectl(args);
    if (result.exitCode() != 0) {
      throw new IllegalStateException(
          "kubectl " + String.join(" ", args) + " failed:\n" + result.output());
    }
    return result;
  }

  /** Starts the operator (again) and returns once it runs. */
  abstract void start();

  /** When the current operator started. */
  abstract Instant startedAt();

  /** Stops the operator as Kubernetes would (SIGTERM, then SIGKILL after the grace period). */
  abstract void stop();

  /** Kills the operator as the OOM killer or a node failure would: SIGKILL, no shutdown. */
  abstract void kill9();

  /** Whether the operator runs (has not exited since it was last started). */
  abstract boolean isAlive();

  /** GET {@code path} on the operator's HTTP port (/healthz, /readyz, /metrics). */
  abstract HttpResponse<String> get(String path) throws IOException, InterruptedException;

  /** The operator's /metrics, parsed. */
  Map<String, Double> metrics() throws IOException, InterruptedException {
    return dev.cellar.testkit.PrometheusText.parse(get("/metrics").body());
  }

  /** The operator's HTTP port (health and readiness). */
  abstract int httpPort();

  /** The operator's process id on this machine; 0 when it runs elsewhere. */
  abstract long pid();

  /** Every line the operator logged so far, across restarts. */
  abstract String log();

  /** Stops what this handle started and keeps the logs. */
  @Override
  public abstract void close();

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
