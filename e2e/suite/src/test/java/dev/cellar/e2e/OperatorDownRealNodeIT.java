package dev.cellar.e2e;

import static dev.cellar.e2e.RealNodeIT.apply;
import static dev.cellar.e2e.RealNodeIT.client;
import static dev.cellar.e2e.RealNodeIT.currentPrimary;
import static dev.cellar.e2e.RealNodeIT.database;
import static dev.cellar.e2e.RealNodeIT.kubectl;
import static dev.cellar.e2e.RealNodeIT.newNamespace;
import static dev.cellar.e2e.RealNodeIT.podField;
import static dev.cellar.e2e.RealNodeIT.seconds;
import static dev.cellar.e2e.RealNodeIT.secretValue;
import static dev.cellar.e2e.RealNodeIT.stopServer;
import static dev.cellar.e2e.RealNodeIT.timings;
import static dev.cellar.e2e.RealNodeIT.waitReady;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.e2e.RealNodeIT.Engine;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The primary lost while the operator is stopped (issue #16), on the real node with PostgreSQL and
 * three replicas. Only the operator promotes (through pods/exec); a database pod never promotes
 * itself, so while it is down no second writable primary can appear, and the lost one cannot come
 * back writable either (a primary with an empty volume waits to be replaced). Once the operator
 * starts, it fails over as usual. At the end every pod is asked, by the server's own view, whether
 * it accepts writes: exactly one does, and it is status.currentPrimary.
 *
 * <p>Shares {@link RealNodeIT}'s lifecycle: local cluster with {@code CELLAR_REAL_NODE=true}, or
 * kind.
 */
@RunsOnKind
@SharesRealNode
class OperatorDownRealNodeIT {
  static final List<String> PODS = List.of("orders-0", "orders-1", "orders-2");

  @RegisterExtension static final TestWatcher cleanUpPassed = RealNodeIT.cleanUpPassed;

  @BeforeAll
  static void up() {
    RealNodeIT.realNode("operator-down-real-node");
  }

  @AfterAll
  static void down() throws IOException {
    RealNodeIT.cleanUp();
  }

  @BeforeEach
  void newScenario() {
    RealNodeIT.scenarioNamespaces.get().clear();
  }

  @Test
  void postgresqlPrimaryLostWhileTheOperatorIsDownEndsWithExactlyOnePrimary() {
    Engine engine = RealNodeIT.postgresql();
    String ns = newNamespace("postgresql-down");
    long start = System.nanoTime();
    apply(ns, database("orders", engine, 3, false));
    waitReady(ns, "orders");
    timings.add("operator down: 3 replicas Ready in " + seconds(start) + " s");
    assertThat(currentPrimary(ns)).isEqualTo("orders-0");
    assertThat(client(ns, engine, "orders", "write", engine.writeRow(), false)).isEmpty();
    String db = secretValue(ns, "orders-credentials", "database");
    await("the row on every replica")
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> PODS.stream().allMatch(p -> "real".equals(sql(ns, p, db, ROW))));

    Cellar cellar = RealNodeIT.cellar;
    cellar.stop();
    long lost;
    try {
      // The primary loses its data and its server stops; its container restarts on an empty
      // volume and waits to be replaced.
      lost = System.nanoTime();
      stopServer(ns, "orders-0", "rm -rf \"$PGDATA\"; kill -INT 1");
      await("orders-0 not ready, with the operator down")
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> !"True".equals(podReady(ns, "orders-0")));
      // Far longer than the failover delay (spec.failover.delaySeconds, default 5 s) with nobody to
      // act: the replicas stay replicas the whole time, and nothing accepts writes.
      await("nobody promoted while the operator is down")
          .during(Duration.ofSeconds(30))
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(2))
          .until(
              () -> {
                Map<String, String> roles = roles(ns);
                return "t".equals(roles.get("orders-1"))
                    && "t".equals(roles.get("orders-2"))
                    && !roles.containsValue("f");
              });
    } finally {
      cellar.start();
    }
    long started = System.nanoTime();

    await("a replica promoted once the operator runs")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> !currentPrimary(ns).isEmpty() && !currentPrimary(ns).equals("orders-0"));
    String promoted = currentPrimary(ns);
    timings.add(
        "operator down: "
            + promoted
            + " promoted "
            + seconds(started)
            + " s after the operator started ("
            + seconds(lost)
            + " s after the primary was lost)");
    waitReady(ns, "orders");
    timings.add("operator down: Ready again, 3/3, " + seconds(started) + " s after the start");

    // Every pod asked: exactly one writable primary, the one the status names; the lost one is a
    // replica again with the row.
    await("exactly one pod accepts writes, and it is " + promoted)
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              Map<String, String> roles = roles(ns);
              assertThat(roles.values()).as(roles.toString()).containsOnly("t", "f");
              assertThat(roles.entrySet().stream().filter(e -> e.getValue().equals("f")))
                  .as(roles.toString())
                  .extracting(Map.Entry::getKey)
                  .containsExactly(promoted);
            });
    assertThat(sql(ns, "orders-0", db, ROW)).as("the row on the former primary").isEqualTo("real");
  }

  static final String ROW = "SELECT v FROM items WHERE id = 1";

  /** Each pod's answer to pg_is_in_recovery(): t for a replica, f for a writable primary. */
  static Map<String, String> roles(String ns) {
    Map<String, String> roles = new LinkedHashMap<>();
    for (String pod : PODS) {
      roles.put(pod, sql(ns, pod, "postgres", "SELECT pg_is_in_recovery()"));
    }
    return roles;
  }

  /** QUERY on POD's own server, as its superuser; empty when it does not answer. */
  static String sql(String ns, String pod, String db, String query) {
    return kubectl(
            "exec",
            "-n",
            ns,
            pod,
            "-c",
            "database",
            "--",
            "bash",
            "-c",
            "PGPASSWORD=$POSTGRES_PASSWORD PGCONNECT_TIMEOUT=3 psql -X -h 127.0.0.1 -U"
                + " \"${POSTGRES_USER:-postgres}\" -d "
                + db
                + " -tA -c \""
                + query
                + "\" 2>/dev/null")
        .stdout()
        .strip();
  }

  static String podReady(String ns, String pod) {
    return podField(ns, pod, "{.status.conditions[?(@.type==\"Ready\")].status}");
  }
}
