package dev.cellar.e2e;

import static dev.cellar.e2e.ObjectStoreRealNodeIT.annotations;
import static dev.cellar.e2e.ObjectStoreRealNodeIT.status;
import static dev.cellar.e2e.RealNodeIT.apply;
import static dev.cellar.e2e.RealNodeIT.currentPrimary;
import static dev.cellar.e2e.RealNodeIT.database;
import static dev.cellar.e2e.RealNodeIT.kubectl;
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
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Database metrics in a real Prometheus (issue #19): Prometheus, Debian's package's binary
 * (e2e/cluster/build.sh prometheus), runs on this machine and scrapes the operator's /metrics, the
 * real node's kubelet (the data volumes' kubelet_volume_stats_*) and the exporter sidecar of every
 * database pod (pod address and the port named metrics, found from the pods and handed to
 * Prometheus as a file_sd file, labelled namespace and pod as a PodMonitor would). A PostgreSQL and
 * a MariaDB Database with replicas 2 run with monitoring on and {@code spec.monitoring.image} set
 * to the real node's exporter images, built from Debian trixie's prometheus-postgres-exporter and
 * prometheus-mysqld-exporter packages (e2e/realnode/images.sh; the upstream images cannot be pulled
 * here). Each takes a backup and verifies it; then, for each Database, the replica's replication
 * lag (pg_replication_lag_seconds, mysql_slave_status_seconds_behind_master), the last backup's age
 * and the certificate's expiry have a value, every metric the Grafana dashboard
 * (deploy/grafana/cellar-databases.json) names is in Prometheus (the names found by Prometheus's
 * own parser), and each of the dashboard's queries returns series for one of the two Databases.
 *
 * <p>Only on the local cluster with {@code CELLAR_REAL_NODE=true}, like {@link RealNodeIT}, whose
 * lifecycle it shares.
 */
@SharesRealNode
class MetricsRealNodeIT {
  static Process prometheus;
  static Path prometheusDir;
  static int prometheusPort;
  static final HttpClient http = HttpClient.newHttpClient();
  static final ObjectMapper json = new ObjectMapper();

  /** The exporter image of each engine on the real node (e2e/realnode/images.sh's names). */
  static final Map<String, String> EXPORTER_IMAGES =
      Map.of("postgresql", "postgres-exporter", "mariadb", "mysqld-exporter");

  /** Where the real node's kubelet serves /metrics (e2e/realnode/node.sh). */
  static final String KUBELET = ObjectStoreRealNodeIT.NODE_IP + ":10250";

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

    // The exporter images, into the node's containerd: a node that was up already has only the
    // images it was started with.
    start = System.nanoTime();
    for (String image : EXPORTER_IMAGES.values()) {
      LocalCluster.Result archive = images(root, "build", image);
      LocalCluster.Result loaded = RealNodeIT.node("load", archive.stdout().strip());
      assertThat(loaded.exitCode()).as("node load " + image + ":\n" + loaded.tail(20)).isZero();
    }
    timings.add("exporter images built (or cached) and loaded in " + seconds(start) + " s");

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
            // The kubelet lets anonymous clients read (e2e/realnode/config/kubelet.yaml); its
            // serving certificate is its own, self-signed.
            "  - job_name: kubelet",
            "    scheme: https",
            "    tls_config:",
            "      insecure_skip_verify: true",
            "    static_configs:",
            "      - targets: ['" + KUBELET + "']",
            // The exporters: the test writes their pods' addresses once the pods run; the file is
            // watched, so no reload is needed.
            "  - job_name: exporters",
            "    file_sd_configs:",
            "      - files: ['" + prometheusDir.resolve("exporters.json") + "']",
            "        refresh_interval: 5s",
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
        // Refused until it listens: a loaded machine starts it later than the first poll.
        .ignoreExceptionsInstanceOf(IOException.class)
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

  static LocalCluster.Result images(Path root, String... args) {
    List<String> command =
        new ArrayList<>(List.of(root.resolve("e2e/realnode/images.sh").toString()));
    command.addAll(List.of(args));
    LocalCluster.Result result = LocalCluster.exec(command, root.toFile());
    assertThat(result.exitCode())
        .as("images.sh " + String.join(" ", args) + ":\n" + result.tail(30))
        .isZero();
    return result;
  }

  /**
   * The Database of RealNodeIT's scenarios with the exporter on, from the real node's image of the
   * engine's exporter.
   */
  static String monitoredDatabase(Engine engine) {
    String off = "  monitoring:\n    enabled: false\n";
    String yaml = database("orders", engine, 2, true);
    assertThat(yaml).as("RealNodeIT.database's monitoring lines").contains(off);
    String image =
        images(LocalCluster.get().repoRootDir(), "ref", EXPORTER_IMAGES.get(engine.name()))
            .stdout()
            .strip();
    return yaml.replace(off, "  monitoring:\n    enabled: true\n    image: " + image + "\n");
  }

  /**
   * Hands Prometheus every database pod's exporter of the namespaces: its address and the port
   * named metrics, labelled namespace and pod (the labels a PodMonitor gives, which the dashboard's
   * queries select on).
   */
  static void writeExporterTargets(List<String> namespaces) throws IOException {
    List<Map<String, Object>> groups = new ArrayList<>();
    for (String ns : namespaces) {
      String pods =
          ok(
                  "get",
                  "pods",
                  "-n",
                  ns,
                  "-l",
                  "app.kubernetes.io/instance=orders,app.kubernetes.io/component=database",
                  "-o",
                  "jsonpath={range .items[*]}{.metadata.name} {.status.podIP}"
                      + " {.spec.containers[?(@.name==\"exporter\")].ports[?(@.name==\"metrics\")]"
                      + ".containerPort}{\"\\n\"}{end}")
              .stdout();
      List<String> lines = pods.lines().filter(l -> !l.isBlank()).toList();
      assertThat(lines).as(ns + ": database pods with an exporter port\n" + pods).hasSize(2);
      for (String line : lines) {
        String[] f = line.trim().split(" ");
        assertThat(f).as(ns + ": pod, address and metrics port: " + line).hasSize(3);
        groups.add(
            Map.of(
                "targets",
                List.of(f[1] + ":" + f[2]),
                "labels",
                Map.of("namespace", ns, "pod", f[0])));
      }
    }
    // Written whole, then renamed: Prometheus never reads half a file.
    Path tmp = prometheusDir.resolve("exporters.json.tmp");
    json.writeValue(tmp.toFile(), groups);
    Files.move(
        tmp,
        prometheusDir.resolve("exporters.json"),
        StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  /** The exporters' logs, for a failure's message. */
  static String exporterLogs(List<String> namespaces) {
    StringBuilder logs = new StringBuilder();
    for (String ns : namespaces) {
      for (String pod : List.of("orders-0", "orders-1")) {
        logs.append("\n--- ")
            .append(ns)
            .append('/')
            .append(pod)
            .append(" exporter:\n")
            .append(kubectl("logs", "-n", ns, pod, "-c", "exporter", "--tail=20").output());
      }
    }
    return logs.toString();
  }

  /**
   * Every PromQL expression of the Grafana dashboard: its panels' targets and its variables'
   * queries (label_values(SELECTOR, label) stands for SELECTOR).
   */
  static List<String> dashboardQueries() throws IOException {
    JsonNode dashboard =
        json.readTree(
            LocalCluster.get()
                .repoRootDir()
                .resolve("deploy/grafana/cellar-databases.json")
                .toFile());
    List<String> queries = new ArrayList<>();
    dashboard
        .path("panels")
        .forEach(p -> p.path("targets").forEach(t -> queries.add(t.path("expr").asText())));
    dashboard
        .path("templating")
        .path("list")
        .forEach(
            v -> {
              if ("query".equals(v.path("type").asText())) {
                queries.add(
                    v.path("query")
                        .path("query")
                        .asText()
                        .replaceFirst("^label_values\\((.*),\\s*\\w+\\)$", "$1"));
              }
            });
    assertThat(queries).as("the dashboard's queries").hasSizeGreaterThan(5).doesNotContain("");
    return queries;
  }

  /**
   * The metric names a query selects: every name before a label matcher ({@code name{...}}), the
   * form all of the dashboard's selectors take (each picks a namespace), or the whole query when it
   * is a bare name (a variable's {@code label_values(name, label)}, see dashboardQueries). Debian's
   * Prometheus (2.42) has no parse_query API to ask; a selector of another form would be missed
   * here, but not by the test: its query must still return series.
   */
  static Set<String> metricNames(String query) {
    Set<String> names = new TreeSet<>();
    Matcher m = SELECTOR.matcher(query);
    while (m.find()) {
      names.add(m.group(1) != null ? m.group(1) : m.group(2));
    }
    assertThat(names).as(query + ": the metrics it selects").isNotEmpty();
    return names;
  }

  static final Pattern SELECTOR =
      Pattern.compile("^\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*$|([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*\\{");

  @Test
  void prometheusHasTheExportersAndCellarsMetricsOfEachDatabase() throws Exception {
    List<Engine> engines = List.of(RealNodeIT.postgresql(), RealNodeIT.mariadb());
    List<String> namespaces = new ArrayList<>();
    long start = System.nanoTime();
    for (Engine engine : engines) {
      String ns = newNamespace(engine.name() + "-metrics");
      namespaces.add(ns);
      apply(ns, monitoredDatabase(engine));
    }
    for (String ns : namespaces) {
      waitReady(ns, "orders");
    }
    timings.add("two Databases of 2 Ready in " + seconds(start) + " s");

    // The exporter's account exists on the replica too (replicated, or seeded with the primary's
    // accounts) and logs in over TCP with the monitoring Secret's password.
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

    // A verified backup too, for the dashboard's cellar_database_last_verified_backup_age_seconds.
    start = System.nanoTime();
    for (String ns : namespaces) {
      ok("annotate", "db", "-n", ns, "orders", "cellar.dev/verify-now=metrics");
    }
    for (String ns : namespaces) {
      await(ns + ": the dump verified")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  !annotations(ns, "orders").contains("verify-now")
                      && status(ns, "orders", ".lastVerifiedBackup.job").contains("verify-now"));
    }
    timings.add("two verifications in " + seconds(start) + " s");

    writeExporterTargets(namespaces);
    start = System.nanoTime();
    await("every exporter scraped")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () ->
                assertThat(query("up{job=\"exporters\"}").values())
                    .as(() -> "up of the four exporters" + exporterLogs(namespaces))
                    .hasSize(4)
                    .containsOnly(1.0));
    timings.add("four exporters up in Prometheus in " + seconds(start) + " s");

    start = System.nanoTime();
    for (int i = 0; i < engines.size(); i++) {
      String ns = namespaces.get(i);
      String replica = currentPrimary(ns).equals("orders-0") ? "orders-1" : "orders-0";
      String lag =
          (engines.get(i).name().equals("postgresql")
                  ? "pg_replication_lag_seconds"
                  : "mysql_slave_status_seconds_behind_master")
              + "{namespace=\""
              + ns
              + "\",pod=\""
              + replica
              + "\"}";
      String selector = "{namespace=\"" + ns + "\",database=\"orders\"}";
      // Cellar's own view of the same replica: polled into status.instances, then its /metrics.
      String cellarLag =
          "cellar_database_replication_lag_seconds{namespace=\""
              + ns
              + "\",database=\"orders\",pod=\""
              + replica
              + "\"}";
      String statusLag =
          "jsonpath={.status.instances[?(@.name==\"" + replica + "\")].replicationLagSeconds}";
      await(ns + ": replication lag, backup age and certificate expiry in Prometheus")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                // A value is what is asked: how large depends on the moment (an idle PostgreSQL
                // replica that has not replayed all it received counts from its last replay).
                assertThat(query(lag).values())
                    .as(() -> lag + exporterLogs(namespaces))
                    .singleElement()
                    .satisfies(seconds -> assertThat(seconds).isGreaterThanOrEqualTo(0.0));
                assertThat(
                        kubectl("get", "db", "-n", ns, "orders", "-o", statusLag).stdout().strip())
                    .as(ns + ": status.instances lag of " + replica)
                    .matches("[0-9]+");
                assertThat(query(cellarLag).values())
                    .as(cellarLag)
                    .singleElement()
                    .satisfies(seconds -> assertThat(seconds).isGreaterThanOrEqualTo(0.0));
                assertThat(query("cellar_database_last_backup_age_seconds" + selector).values())
                    .singleElement()
                    .satisfies(age -> assertThat(age).isBetween(0.0, 900.0));
                assertThat(
                        query("cellar_database_last_verified_backup_age_seconds" + selector)
                            .values())
                    .singleElement()
                    .satisfies(age -> assertThat(age).isBetween(0.0, 900.0));
                assertThat(
                        query("cellar_database_certificate_expires_in_seconds" + selector).values())
                    .singleElement()
                    .satisfies(left -> assertThat(left).isGreaterThan(86400.0));
              });
      timings.add(ns + ": " + lag + " = " + query(lag).values());
      timings.add(ns + ": " + cellarLag + " = " + query(cellarLag).values());
      for (String metric :
          List.of(
              "cellar_database_last_backup_age_seconds",
              "cellar_database_last_verified_backup_age_seconds",
              "cellar_database_certificate_expires_in_seconds")) {
        timings.add(ns + ": " + metric + " = " + query(metric + selector).values());
      }
    }
    timings.add("lag and backup metrics in Prometheus " + seconds(start) + " s after the targets");

    // The dashboard: every metric its queries name is in Prometheus, and each query, for the
    // dashboard's variables set to one of the two Databases, returns series.
    List<String> queries = dashboardQueries();
    Set<String> names = new TreeSet<>();
    for (String q : queries) {
      names.addAll(metricNames(q));
    }
    start = System.nanoTime();
    await("every metric of the dashboard in Prometheus, every query answered")
        // The kubelet computes volume statistics once a minute.
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              HttpResponse<String> response = get("/api/v1/label/__name__/values");
              assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
              Set<String> present = new TreeSet<>();
              json.readTree(response.body()).path("data").forEach(n -> present.add(n.asText()));
              assertThat(present).as("the metric names in Prometheus").containsAll(names);
              for (String q : queries) {
                List<Map<String, Double>> answers = new ArrayList<>();
                for (String ns : namespaces) {
                  answers.add(query(q.replace("$namespace", ns).replace("$database", "orders")));
                }
                assertThat(answers)
                    .as("the dashboard's query " + q + " for either Database")
                    .anySatisfy(a -> assertThat(a).isNotEmpty());
              }
            });
    for (String q : queries) {
      List<Integer> series = new ArrayList<>();
      for (String ns : namespaces) {
        series.add(query(q.replace("$namespace", ns).replace("$database", "orders")).size());
      }
      timings.add("series per Database " + series + ": " + q);
    }
    timings.add(
        "the dashboard's "
            + names.size()
            + " metrics and "
            + queries.size()
            + " queries answered in "
            + seconds(start)
            + " s: "
            + names);
  }
}
