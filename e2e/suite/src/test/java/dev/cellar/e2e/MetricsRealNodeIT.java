package dev.cellar.e2e;

import static dev.cellar.e2e.ObjectStoreRealNodeIT.annotations;
import static dev.cellar.e2e.ObjectStoreRealNodeIT.status;
import static dev.cellar.e2e.RealNodeIT.apply;
import static dev.cellar.e2e.RealNodeIT.database;
import static dev.cellar.e2e.RealNodeIT.newNamespace;
import static dev.cellar.e2e.RealNodeIT.ok;
import static dev.cellar.e2e.RealNodeIT.seconds;
import static dev.cellar.e2e.RealNodeIT.timings;
import static dev.cellar.e2e.RealNodeIT.waitReady;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cellar.e2e.RealNodeIT.Engine;
import dev.cellar.testkit.LocalCluster;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Cellar's per-Database metrics in a real Prometheus (issue #19): Prometheus, built from its Go
 * module (e2e/cluster/build.sh prometheus), runs on this machine and scrapes the operator's
 * /metrics; a PostgreSQL and a MariaDB Database with replicas 2 on the real node each take a
 * backup, and queries for the last backup's age and the certificate's expiry return a value for
 * each. The exporter's own account logs in on each Database's replica. The exporters are not part
 * of it: their Go modules are not served by the module proxy this project reaches, so the real node
 * has no exporter image (its Databases run with monitoring off).
 *
 * <p>Only on the local cluster with {@code CELLAR_REAL_NODE=true}, like {@link RealNodeIT}, whose
 * lifecycle it shares.
 */
class MetricsRealNodeIT {
  static Process prometheus;
  static Path prometheusDir;
  static int prometheusPort;
  static final HttpClient http = HttpClient.newHttpClient();

  @RegisterExtension static final TestWatcher cleanUpPassed = RealNodeIT.cleanUpPassed;

  @BeforeAll
  static void up() throws IOException {
    assumeTrue(LocalCluster.get().isLocal(), "Prometheus runs on this machine: local cluster only");
    RealNodeIT.realNode("metrics-real-node");
    long start = System.nanoTime();
    Path root = LocalCluster.get().repoRootDir();
    LocalCluster.Result built =
        LocalCluster.exec(
            List.of(root.resolve("e2e/cluster/build.sh").toString(), "prometheus"), root.toFile());
    assertThat(built.exitCode()).as("build.sh prometheus:\n" + built.tail(30)).isZero();
    Path binary = Path.of(built.stdout().strip()).resolve("prometheus");
    timings.add("prometheus built (or cached) in " + seconds(start) + " s");

    prometheusDir = Files.createTempDirectory("cellar-prometheus-");
    try (ServerSocket socket = new ServerSocket(0)) {
      prometheusPort = socket.getLocalPort();
    }
    Files.writeString(
        prometheusDir.resolve("prometheus.yml"),
        String.join(
            "\n",
            "global:",
            "  scrape_interval: 2s",
            "scrape_configs:",
            "  - job_name: cellar",
            "    static_configs:",
            "      - targets: ['127.0.0.1:" + RealNodeIT.cellar.httpPort() + "']",
            ""));
    start = System.nanoTime();
    prometheus =
        new ProcessBuilder(
                binary.toString(),
                "--config.file=" + prometheusDir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + prometheusDir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + prometheusPort)
            .redirectErrorStream(true)
            .redirectOutput(prometheusDir.resolve("prometheus.log").toFile())
            .start();
    await("Prometheus ready")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> get("/-/ready").statusCode() == 200);
    timings.add("prometheus ready in " + seconds(start) + " s");
  }

  @AfterAll
  static void down() throws IOException, InterruptedException {
    if (prometheus != null) {
      prometheus.destroy();
      if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
        prometheus.destroyForcibly();
      }
      prometheus = null;
    }
    if (prometheusDir != null) {
      LocalCluster.exec(List.of("rm", "-rf", prometheusDir.toString()), Path.of("/").toFile());
    }
    RealNodeIT.cleanUp();
  }

  static HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + prometheusPort + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The value of each series {@code query} returns, by its labels. */
  static Map<String, Double> query(String query) throws IOException, InterruptedException {
    HttpResponse<String> response =
        get("/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode result = new ObjectMapper().readTree(response.body()).path("data").path("result");
    Map<String, Double> values = new LinkedHashMap<>();
    result.forEach(r -> values.put(r.path("metric").toString(), r.path("value").get(1).asDouble()));
    return values;
  }

  @Test
  void prometheusHasTheBackupAgeAndCertificateExpiryOfEachDatabase() {
    List<Engine> engines = List.of(RealNodeIT.postgresql(), RealNodeIT.mariadb());
    List<String> namespaces = new ArrayList<>();
    long start = System.nanoTime();
    for (Engine engine : engines) {
      String ns = newNamespace(engine.name() + "-metrics");
      namespaces.add(ns);
      apply(ns, database("orders", engine, 2, true));
    }
    for (String ns : namespaces) {
      waitReady(ns, "orders");
    }
    timings.add("two Databases of 2 Ready in " + seconds(start) + " s");

    // The exporter's account exists on the replica too (replicated, or seeded with the primary's
    // accounts) and logs in over TCP with the monitoring Secret's password, though monitoring is
    // off here.
    for (int i = 0; i < engines.size(); i++) {
      String login =
          engines.get(i).name().equals("postgresql")
              ? "PGPASSWORD=\"$CELLAR_MONITORING_PASSWORD\" psql -h 127.0.0.1 -p 5432"
                  + " -U \"$CELLAR_MONITORING_USER\" -d postgres -tAc"
                  + " \"SELECT current_user || ' ' || pg_has_role(current_user, 'pg_monitor',"
                  + " 'member')\""
              : "MYSQL_PWD=\"$CELLAR_MONITORING_PASSWORD\" mariadb -h 127.0.0.1 -P 3306"
                  + " --protocol=tcp -u \"$CELLAR_MONITORING_USER\" -N -e 'SELECT CURRENT_USER()'";
      assertThat(
              ok(
                      "exec",
                      "-n",
                      namespaces.get(i),
                      "orders-1",
                      "-c",
                      "database",
                      "--",
                      "bash",
                      "-c",
                      login)
                  .stdout()
                  .strip())
          .as(engines.get(i).name() + ": the monitoring account on the replica")
          .isIn("cellar_monitor true", "cellar_monitor@%");
    }

    start = System.nanoTime();
    for (String ns : namespaces) {
      ok("annotate", "db", "-n", ns, "orders", "cellar.dev/backup-now=metrics");
    }
    for (String ns : namespaces) {
      await(ns + ": the on-demand backup ended")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  !annotations(ns, "orders").contains("backup-now")
                      && status(ns, "orders", ".lastBackup.job").contains("backup-now"));
    }
    timings.add("two backups in " + seconds(start) + " s");

    start = System.nanoTime();
    for (String ns : namespaces) {
      String selector = "{namespace=\"" + ns + "\",database=\"orders\"}";
      await(ns + ": backup age and certificate expiry in Prometheus")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                assertThat(query("cellar_database_last_backup_age_seconds" + selector).values())
                    .singleElement()
                    .satisfies(age -> assertThat(age).isBetween(0.0, 600.0));
                assertThat(
                        query("cellar_database_certificate_expires_in_seconds" + selector).values())
                    .singleElement()
                    .satisfies(left -> assertThat(left).isGreaterThan(86400.0));
              });
    }
    timings.add("metrics in Prometheus " + seconds(start) + " s after the backups");
  }
}
