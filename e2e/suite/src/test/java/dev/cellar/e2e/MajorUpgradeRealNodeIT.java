package dev.cellar.e2e;

import static dev.cellar.e2e.RealNodeIT.apply;
import static dev.cellar.e2e.RealNodeIT.awaitDegraded;
import static dev.cellar.e2e.RealNodeIT.database;
import static dev.cellar.e2e.RealNodeIT.kubectl;
import static dev.cellar.e2e.RealNodeIT.newNamespace;
import static dev.cellar.e2e.RealNodeIT.ok;
import static dev.cellar.e2e.RealNodeIT.seconds;
import static dev.cellar.e2e.RealNodeIT.secretValue;
import static dev.cellar.e2e.RealNodeIT.timings;
import static dev.cellar.e2e.RealNodeIT.waitReady;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.e2e.RealNodeIT.Engine;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * A PostgreSQL major upgrade on the real node (issue #18): 15 (Debian bookworm's) to 17 (Debian
 * trixie's, e2e/realnode/images.sh), by dump and restore. First a failed attempt (the new image
 * missing): Degraded naming the image, and setting the version back runs 15 again on its untouched
 * data. Then the upgrade: the old image dumps in an init container, the new server restores into a
 * new data directory on the same volume; every row is there, the server says 17, and so does
 * status.version. The downtime measured is from the spec change to the first answer of the new
 * primary (writes stop when the old pod stops).
 *
 * <p>Shares {@link RealNodeIT}'s lifecycle: local cluster with {@code CELLAR_REAL_NODE=true}, or
 * kind.
 */
@RunsOnKind
@SharesRealNode
class MajorUpgradeRealNodeIT {
  static final String NEW_IMAGE = "cellar.local/postgres:17";

  @RegisterExtension static final TestWatcher cleanUpPassed = RealNodeIT.cleanUpPassed;

  @BeforeAll
  static void up() {
    RealNodeIT.realNode("major-upgrade-real-node");
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
  void postgresql15UpgradesTo17WithItsRowsAndAFailedAttemptRollsBack() {
    Engine engine = RealNodeIT.postgresql();
    String ns = newNamespace("pg-major");
    long start = System.nanoTime();
    apply(ns, database("orders", engine, 1, false));
    waitReady(ns, "orders");
    timings.add("major upgrade: 15 Ready in " + seconds(start) + " s");
    String db = secretValue(ns, "orders-credentials", "database");
    sqlOk(ns, db, "CREATE TABLE items (id int PRIMARY KEY, v text)");
    sqlOk(ns, db, "INSERT INTO items SELECT g, 'row ' || g FROM generate_series(1, 1000) g");

    // A failed attempt: the new image cannot be pulled. The old data directory is untouched, and
    // the way back is the old version.
    start = System.nanoTime();
    patch(ns, "17", "cellar.local/postgres:no-such-tag");
    awaitDegraded(ns, "orders", "ImagePullFailed", "cellar.local/postgres:no-such-tag");
    timings.add("major upgrade: missing image named in " + seconds(start) + " s");
    start = System.nanoTime();
    patch(ns, "15", engine.image());
    waitReady(ns, "orders");
    assertThat(sql(ns, db, "SELECT count(*) FROM items")).isEqualTo("1000");
    assertThat(sql(ns, db, "SHOW server_version")).startsWith("15");
    timings.add("major upgrade: rolled back to 15 in " + seconds(start) + " s, rows intact");
    // Written after the rollback: a dump from the failed attempt must not be what 17 restores.
    sqlOk(ns, db, "INSERT INTO items VALUES (1001, 'after the rollback')");

    // The upgrade.
    AtomicBoolean sawUpgrading = new AtomicBoolean();
    start = System.nanoTime();
    patch(ns, "17", NEW_IMAGE);
    await("PostgreSQL 17 answers with the rows")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              if ("UpgradingMajor".equals(progressingReason(ns))) {
                sawUpgrading.set(true);
              }
              return sql(ns, db, "SHOW server_version").startsWith("17")
                  && "1001".equals(sql(ns, db, "SELECT count(*) FROM items"));
            });
    String downtime = seconds(start);
    waitReady(ns, "orders");
    timings.add(
        "major upgrade: 15 -> 17 with 1001 rows, writes back after "
            + downtime
            + " s, Ready "
            + seconds(start)
            + " s after the spec change");
    assertThat(sawUpgrading).as("status said UpgradingMajor on the way").isTrue();
    assertThat(sql(ns, db, "SELECT v FROM items WHERE id = 1001")).isEqualTo("after the rollback");
    assertThat(jsonpath(ns, "{.status.version}")).isEqualTo("17");
    sqlOk(ns, db, "INSERT INTO items VALUES (1002, 'on 17')");
    // The application's password still works over the network on the new server.
    assertThat(
            RealNodeIT.client(
                ns,
                engine,
                "orders",
                "read",
                engine.reachable("orders") + engine.readRow().command("orders", "\"$DB_NAME\""),
                false))
        .isEqualToIgnoringWhitespace("row 1");
  }

  static void patch(String ns, String version, String image) {
    ok(
        "patch",
        "db",
        "-n",
        ns,
        "orders",
        "--type=merge",
        "-p",
        "{\"spec\":{\"version\":\"" + version + "\",\"image\":\"" + image + "\"}}");
  }

  static String jsonpath(String ns, String path) {
    return kubectl("get", "db", "-n", ns, "orders", "-o", "jsonpath=" + path).stdout().strip();
  }

  static String progressingReason(String ns) {
    return jsonpath(ns, "{.status.conditions[?(@.type==\"Progressing\")].reason}");
  }

  static void sqlOk(String ns, String db, String query) {
    assertThat(sql(ns, db, query + "; SELECT 'ok'")).endsWith("ok");
  }

  /** QUERY on orders-0's own server, as its superuser; empty when it does not answer. */
  static String sql(String ns, String db, String query) {
    return kubectl(
            "exec",
            "-n",
            ns,
            "orders-0",
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
}
