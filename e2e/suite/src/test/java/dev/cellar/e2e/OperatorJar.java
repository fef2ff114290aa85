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
 * cellar-operator} ServiceAccount, which it finds as in its Deployment's pod: fabric8's in-cluster
 * configuration (the API server's host and port in {@code KUBERNETES_SERVICE_HOST} and {@code
 * _PORT}, a token file from a TokenRequest and the cluster's CA file, their paths in fabric8's own
 * variables for the pod's fixed ones), and no kubeconfig. A kubeconfig is read through fabric8's
 * static serialization, which instantiates every model class it knows first (about 700 classes, 5
 * MiB of the process's memory: docs/performance.md, What bin/bench measures) that the Deployment
 * never loads.
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
    Map<String, String> env = new HashMap<>(serviceAccount(cluster, logs));
    env.putAll(
        Map.of(
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

  /**
   * The environment that makes fabric8 configure the operator's client as in its pod: the admin's
   * server and CA, a bound token of the ServiceAccount in a file (without a final newline, as the
   * kubelet writes it: fabric8 sends the file's text as it is).
   */
  private static Map<String, String> serviceAccount(LocalCluster cluster, Path dir) {
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
      Path ca = dir.resolve("operator-ca.crt");
      if (config.getCaCertData() != null) {
        Files.write(ca, Base64.getDecoder().decode(config.getCaCertData()));
      } else {
        Files.copy(Path.of(config.getCaCertFile()), ca, StandardCopyOption.REPLACE_EXISTING);
      }
      Path tokenFile = dir.resolve("operator-token");
      Files.writeString(tokenFile, token.strip());
      URI server = URI.create(config.getMasterUrl());
      return Map.of(
          "KUBERNETES_AUTH_TRYKUBECONFIG",
          "false",
          "KUBERNETES_SERVICE_HOST",
          server.getHost(),
          "KUBERNETES_SERVICE_PORT",
          String.valueOf(server.getPort() > 0 ? server.getPort() : 443),
          "KUBERNETES_CERTS_CA_FILE",
          ca.toString(),
          "KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN",
          tokenFile.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  void start() {
    Path log = logs.resolve(restarts == 0 ? "operator.log" : "operator-" + restarts + ".log");
    process = launch(List.of("-jar", jar().toString()), log);
    restarts++;
  }

  /**
   * Another main class run as the operator is: its JVM options, its ServiceAccount, the operator
   * jar's classes (fabric8's client among them) and then those of {@code main}'s own location.
   */
  Process launch(Class<?> main, Path log) {
    try {
      Path classes = Path.of(main.getProtectionDomain().getCodeSource().getLocation().toURI());
      return launch(
          List.of("-cp", jar() + java.io.File.pathSeparator + classes, main.getName()), log);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private Process launch(List<String> what, Path log) {
    List<String> command = new ArrayList<>(List.of("java"));
    command.addAll(jvmOptions);
    command.addAll(what);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    builder.redirectErrorStream(true).redirectOutput(log.toFile());
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The packaged operator: {@code operator/target/cellar-operator.jar}. */
  private static Path jar() {
    Path jar = LocalCluster.repoRoot().resolve("operator/target/cellar-operator.jar");
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is missing: run mvn package first");
    }
    return jar;
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
