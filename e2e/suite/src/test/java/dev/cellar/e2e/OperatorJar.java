package dev.cellar.e2e;

import static org.awaitility.Awaitility.await;

import dev.cellar.testkit.LocalCluster;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged operator jar as a process on this machine, against the local cluster, as the {@code
 * cellar-operator} ServiceAccount (a kubeconfig with a TokenRequest token).
 */
final class OperatorJar extends Cellar {
  private final Map<String, String> env;
  private final List<String> jvmOptions;
  private final HttpClient http = HttpClient.newHttpClient();
  private Process process;
  private int restarts;

  OperatorJar(
      LocalCluster cluster, Path logs, Map<String, String> settings, List<String> jvmOptions) {
    super(cluster, logs);
    Path kubeconfig = logs.resolve("operator.kubeconfig");
    writeServiceAccountKubeconfig(cluster, kubeconfig);
    Map<String, String> env =
        new HashMap<>(
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
    this.env = env;
    this.jvmOptions = List.copyOf(jvmOptions);
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

  @Override
  void start() {
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

  @Override
  Instant startedAt() {
    return process.info().startInstant().orElseThrow();
  }

  @Override
  void stop() {
    if (process != null && process.isAlive()) {
      process.destroy();
      try {
        process.waitFor(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      process.destroyForcibly();
    }
  }

  @Override
  void kill9() {
    process.destroyForcibly();
    await("operator killed").atMost(Duration.ofSeconds(10)).until(() -> !process.isAlive());
  }

  @Override
  boolean isAlive() {
    return process == null || process.isAlive();
  }

  @Override
  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort() + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Override
  int httpPort() {
    return Integer.parseInt(env.get("HTTP_PORT"));
  }

  @Override
  long pid() {
    return process == null ? 0 : process.pid();
  }

  @Override
  String log() {
    StringBuilder all = new StringBuilder();
    try (var files = Files.list(logs)) {
      for (Path file :
          files
              .filter(
                  f ->
                      f.getFileName().toString().startsWith("operator")
                          && f.getFileName().toString().endsWith(".log"))
              .sorted()
              .toList()) {
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
    if (Files.isDirectory(clusterLogs)) {
      try (var files = Files.list(clusterLogs)) {
        for (Path file :
            files
                .filter(f -> f.toString().endsWith(".log") && !f.toString().endsWith("audit.log"))
                .toList()) {
          Files.copy(
              file,
              logs.resolve("cluster-" + file.getFileName()),
              StandardCopyOption.REPLACE_EXISTING);
        }
      } catch (IOException e) {
        // Logs are a courtesy; a failed copy must not hide the scenario's own result.
      }
    }
  }
}
