package dev.cellar.e2e;

import static org.awaitility.Awaitility.await;

import dev.cellar.testkit.LocalCluster;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Cellar as users install it: the CRD and RBAC from deploy/ applied with kubectl, and the packaged
 * operator jar running as the {@code cellar-operator} ServiceAccount (a TokenRequest token), so a
 * missing RBAC rule fails the suite. Each scenario gets its own operator process and log directory
 * under {@code e2e/suite/target/e2e-logs/<scenario>/}. On any other cluster (CELLAR_KUBECONFIG,
 * e.g. kind) the operator runs as the Deployment from deploy/operator instead.
 */
final class Cellar implements AutoCloseable {
  static final String NAMESPACE = "cellar-system";
  static final String SERVICE_ACCOUNT = "cellar-operator";

  final LocalCluster cluster;
  final Path logs;
  private final Path kubeconfig;
  private final Map<String, String> env;
  private List<String> jvmOptions = List.of();
  private final java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
  private Process process;
  private int restarts;

  private Cellar(LocalCluster cluster, Path logs, Path kubeconfig, Map<String, String> env) {
    this.cluster = cluster;
    this.logs = logs;
    this.kubeconfig = kubeconfig;
    this.env = env;
  }

  /** Installs Cellar from deploy/ and starts the operator jar for {@code scenario}. */
  static Cellar install(String scenario) {
    return install(scenario, Map.of());
  }

  /** Like {@link #install(String)}, with extra or overriding operator settings. */
  static Cellar install(String scenario, Map<String, String> settings) {
    return install(scenario, settings, List.of("-Xmx256m"));
  }

  /** Like {@link #install(String, Map)}, with the operator JVM's options. */
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
    if (!cluster.isLocal()) {
      // Any other cluster (kind): the operator runs as the Deployment, its image loaded beforehand.
      kubectlOk(cluster, "apply", "-k", root.resolve("deploy/operator").toString());
      Cellar cellar = new Cellar(cluster, logs, null, Map.of());
      cellar.start();
      return cellar;
    }
    Path kubeconfig = logs.resolve("operator.kubeconfig");
    writeServiceAccountKubeconfig(cluster, kubeconfig);
    Map<String, String> env =
        new java.util.HashMap<>(
            Map.of(
                "KUBECONFIG",
                kubeconfig.toString(),
                "HTTP_PORT",
                String.valueOf(freePort()),
                "LOG_FORMAT",
                "text",
                "LEADER_ELECTION",
                "true",
                "OPERATOR_NAMESPACE",
                NAMESPACE));
    env.putAll(settings);
    Cellar cellar = new Cellar(cluster, logs, kubeconfig, env);
    cellar.jvmOptions = List.copyOf(jvmOptions);
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

  /** A kubeconfig for the operator's ServiceAccount: the admin's server and CA, a bound token. */
  private static void writeServiceAccountKubeconfig(LocalCluster cluster, Path file) {
    try (KubernetesClient admin = cluster.newClient()) {
      String token =
          admin
              .serviceAccounts()
              .inNamespace(NAMESPACE)
              .withName(SERVICE_ACCOUNT)
              .tokenRequest(
                  new TokenRequestBuilder()
                      .withNewSpec()
                      .withExpirationSeconds(7200L)
                      .endSpec()
                      .build())
              .getStatus()
              .getToken();
      Config config = cluster.config();
      String ca =
          config.getCaCertData() != null
              ? config.getCaCertData()
              : Base64.getEncoder()
                  .encodeToString(Files.readAllBytes(Path.of(config.getCaCertFile())));
      String yaml =
          String.join(
              "\n",
              "apiVersion: v1",
              "kind: Config",
              "clusters:",
              "- name: cellar",
              "  cluster:",
              "    server: " + config.getMasterUrl(),
              "    certificate-authority-data: " + ca,
              "users:",
              "- name: cellar-operator",
              "  user:",
              "    token: " + token,
              "contexts:",
              "- name: cellar-operator",
              "  context: {cluster: cellar, user: cellar-operator}",
              "current-context: cellar-operator",
              "");
      Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void start() {
    if (!cluster.isLocal()) {
      kubectlOk(
          cluster,
          "-n",
          NAMESPACE,
          "rollout",
          "status",
          "deployment/cellar-operator",
          "--timeout=180s");
      return;
    }
    Path jar = LocalCluster.repoRoot().resolve("operator/target/cellar-operator.jar");
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is missing: run mvn package first");
    }
    List<String> command = new ArrayList<>(List.of("java"));
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", jar.toString()));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    Path log = logs.resolve(restarts == 0 ? "operator.log" : "operator-" + restarts + ".log");
    builder.redirectErrorStream(true).redirectOutput(log.toFile());
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    restarts++;
  }

  /** When the current process started. */
  java.time.Instant startedAt() {
    return process.info().startInstant().orElseThrow();
  }

  /** Stops the operator as Kubernetes would (SIGTERM, then SIGKILL after 20 s). */
  void stop() {
    if (process != null && process.isAlive()) {
      process.destroy();
      try {
        process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      process.destroyForcibly();
    }
  }

  /** Kills the operator as the OOM killer or a node failure would: SIGKILL, no shutdown. */
  void kill9() {
    if (!cluster.isLocal()) {
      kubectlOk(
          cluster,
          "-n",
          NAMESPACE,
          "delete",
          "pod",
          "-l",
          "app.kubernetes.io/name=cellar-operator",
          "--grace-period=0",
          "--force");
      return;
    }
    process.destroyForcibly();
    await("operator killed").atMost(Duration.ofSeconds(10)).until(() -> !process.isAlive());
  }

  boolean isAlive() {
    return process == null || process.isAlive();
  }

  /** GET {@code path} on the operator's HTTP port (/healthz, /readyz, /metrics). */
  java.net.http.HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + httpPort() + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
  }

  /** The operator's /metrics, parsed. */
  Map<String, Double> metrics() throws IOException, InterruptedException {
    return dev.cellar.testkit.PrometheusText.parse(get("/metrics").body());
  }

  /** The operator's HTTP port (health and readiness). */
  int httpPort() {
    return Integer.parseInt(env.getOrDefault("HTTP_PORT", "8080"));
  }

  long pid() {
    return process == null ? 0 : process.pid();
  }

  /** Every line the operator logged so far, across restarts. */
  String log() {
    if (!cluster.isLocal()) {
      return cluster
          .kubectl("-n", NAMESPACE, "logs", "deployment/cellar-operator", "--tail=-1")
          .stdout();
    }
    StringBuilder all = new StringBuilder();
    try (var files = Files.list(logs)) {
      for (Path file :
          files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList()) {
        all.append(Files.readString(file));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return all.toString();
  }

  @Override
  public void close() {
    stop();
    // Keep the cluster components' logs next to the operator's for this scenario.
    Path clusterLogs = LocalCluster.stateDir().resolve("logs");
    if (cluster.isLocal() && Files.isDirectory(clusterLogs)) {
      try (var files = Files.list(clusterLogs)) {
        for (Path file :
            files
                .filter(f -> f.toString().endsWith(".log") && !f.toString().endsWith("audit.log"))
                .toList()) {
          Files.copy(
              file,
              logs.resolve("cluster-" + file.getFileName()),
              java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      } catch (IOException e) {
        // Logs are a courtesy; a failed copy must not hide the scenario's own result.
      }
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
