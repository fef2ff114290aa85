package dev.cellar.e2e;

import static dev.cellar.e2e.RealNodeIT.apply;
import static dev.cellar.e2e.RealNodeIT.client;
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
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.Prerequisites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Backups that leave the cluster and come back (issue #17), with real servers on the local
 * cluster's real node and a real S3 server: MinIO (e2e/s3/s3-server), listening on the real node's
 * address, which its pods reach. For each engine:
 *
 * <ul>
 *   <li>two on-demand backups and one run of the CronJob's own Job template land in the bucket,
 *       listed there with their sizes; retention 2 removes the oldest;
 *   <li>a new Database bootstrapped from the bucket's latest dump has the rows written before it;
 *   <li>bytes changed in the newest dump in the bucket are caught by a verification asked with
 *       {@code cellar.dev/verify-now}: BackupReady False, naming the dump.
 * </ul>
 *
 * For PostgreSQL also: a bootstrap from a dump that does not exist (RestoreSourceMissing), and one
 * with keys the bucket refuses (RestoreFailed), each end Failed naming the cause; the second
 * becomes Ready once its Secret is fixed.
 *
 * <p>On the local cluster's real node (with {@code CELLAR_REAL_NODE=true}, like {@link RealNodeIT},
 * whose lifecycle it shares) or on kind, where CI runs it: the S3 server runs on this machine,
 * listening where the cluster's pods reach it (the real node's bridge, or kind's network: {@code
 * CELLAR_E2E_HOST_ADDRESS}, which e2e/kind/suite sets).
 */
@RunsOnKind
@SharesRealNode
class ObjectStoreRealNodeIT {
  /** The real node's address on its bridge (e2e/realnode/node.sh): pods reach it, and so do we. */
  static final String NODE_IP = "10.244.0.1";

  /** What names this machine's address for the pods of another cluster (kind's). */
  static final String HOST_ADDRESS = "CELLAR_E2E_HOST_ADDRESS";

  static final String BUCKET = "cellar-dumps";
  static final Path S3_SERVER =
      LocalCluster.get().repoRootDir().resolve("e2e/s3/s3-server").toAbsolutePath();

  static Path s3Dir;
  static final Map<String, String> s3Env = new HashMap<>();

  @RegisterExtension static final TestWatcher cleanUpPassed = RealNodeIT.cleanUpPassed;

  @BeforeAll
  static void up() throws IOException {
    String address = LocalCluster.get().isLocal() ? NODE_IP : System.getenv(HOST_ADDRESS);
    Prerequisites.require(
        address != null && !address.isBlank(),
        HOST_ADDRESS + ", the address this machine's S3 server listens on for the cluster's pods",
        "set it to this machine's address on the cluster's network (e2e/kind/kind-cluster"
            + " host-address prints kind's)");
    RealNodeIT.realNode("object-store-real-node");
    s3Dir = Files.createTempDirectory("cellar-s3-realnode-");
    long start = System.nanoTime();
    LocalCluster.Result started =
        s3("env", "CELLAR_S3_ADDRESS=" + address, S3_SERVER.toString(), "start");
    for (String line : started.stdout().lines().toList()) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        s3Env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    assertThat(s3Env).containsKeys("S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");
    s3(S3_SERVER.toString(), "bucket", BUCKET);
    timings.add("S3 server on " + s3Env.get("S3_ENDPOINT") + " in " + seconds(start) + " s");
  }

  @AfterAll
  static void down() throws IOException {
    if (s3Dir != null) {
      s3(S3_SERVER.toString(), "stop");
      LocalCluster.exec(List.of("rm", "-rf", s3Dir.toString()), s3Dir.getParent().toFile());
    }
    RealNodeIT.cleanUp();
  }

  @BeforeEach
  void newScenario() {
    RealNodeIT.scenarioNamespaces.get().clear();
  }

  @Test
  void postgresqlBacksUpToABucketAndStartsFromIt() {
    Scenario scenario = scenario(RealNodeIT.postgresql());
    String ns = scenario.ns();

    // A dump that is not there: Failed, naming it, before any pod (the operator lists the bucket).
    apply(
        ns,
        database("nodump", RealNodeIT.postgresql(), 1, false)
            + fromBucket(ns, "ledger", "ledger-20000101T000000Z.sql.gz", "s3-keys"));
    awaitFailed(ns, "nodump", "RestoreSourceMissing", "ledger-20000101T000000Z.sql.gz");

    // Keys the bucket refuses: Failed, naming the cause; fixing the Secret is enough.
    keys(ns, "wrong-keys", "not-the-key");
    // From the dump before the newest, which the scenario damaged.
    apply(
        ns,
        database("badkeys", RealNodeIT.postgresql(), 1, false)
            + fromBucket(ns, "ledger", scenario.intact(), "wrong-keys"));
    awaitFailed(ns, "badkeys", "RestoreFailed", "refused the credentials");
    long start = System.nanoTime();
    ok("delete", "secret", "-n", ns, "wrong-keys");
    keys(ns, "wrong-keys", s3Env.get("AWS_SECRET_ACCESS_KEY"));
    waitReady(ns, "badkeys");
    timings.add(
        "postgresql: Failed restore Ready " + seconds(start) + " s after its keys were fixed");
  }

  @Test
  void mariadbBacksUpToABucketAndStartsFromIt() {
    scenario(RealNodeIT.mariadb());
  }

  /** Where the common part ran, and an intact dump of its Database ledger in the bucket. */
  record Scenario(String ns, String intact) {}

  /** The common part: Database ledger, its dumps in the bucket, the newest one damaged. */
  Scenario scenario(Engine engine) {
    String ns = newNamespace(engine.name() + "-s3");
    keys(ns, "s3-keys", s3Env.get("AWS_SECRET_ACCESS_KEY"));
    String prefix = prefix(ns);
    long start = System.nanoTime();
    apply(
        ns,
        database("ledger", engine, 1, true)
                .replace(
                    "  backup:\n",
                    String.join(
                        "\n",
                        "  backup:",
                        "    retention: 2",
                        "    objectStore:",
                        "      endpoint: " + s3Env.get("S3_ENDPOINT"),
                        "      bucket: " + BUCKET,
                        "      prefix: " + prefix,
                        "      credentialsSecret: s3-keys",
                        ""))
            // The backup Jobs follow it: they need a real server too, not a kwok node.
            + RealNodeIT.realNodeSelector()
            + "\n");
    waitReady(ns, "ledger");
    timings.add(engine.name() + ": Database with a bucket Ready in " + seconds(start) + " s");
    assertThat(kubectl("get", "pvc", "-n", ns, "ledger-backups").exitCode())
        .as("no backups volume: the dumps go to the bucket")
        .isNotZero();
    String db = secretValue(ns, "ledger-credentials", "database");
    assertThat(
            client(
                ns,
                engine,
                "ledger",
                "write",
                engine.reachable("ledger") + engine.writeRow().replace("-h orders", "-h ledger"),
                false))
        .isEmpty();

    // Two backups on demand, then the CronJob's own Job: three dumps, of which retention keeps 2.
    List<String> written = new ArrayList<>();
    for (String token : List.of("first", "second")) {
      start = System.nanoTime();
      ok("annotate", "db", "-n", ns, "ledger", "cellar.dev/backup-now=" + token);
      await("the on-demand backup " + token + " ended and its request was removed")
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  !annotations(ns, "ledger").contains("backup-now")
                      && status(ns, "ledger", ".lastBackup.job").contains("backup-now"));
      written.add(status(ns, "ledger", ".lastBackup.name"));
      timings.add(
          engine.name()
              + ": on-demand backup to the bucket, verified, in "
              + seconds(start)
              + " s: "
              + status(ns, "ledger", ".lastBackup.sizeBytes")
              + " bytes");
    }
    start = System.nanoTime();
    ok("create", "job", "-n", ns, "--from=cronjob/ledger-backup", "ledger-scheduled");
    ok("wait", "-n", ns, "--for=condition=Complete", "job/ledger-scheduled", "--timeout=240s");
    await("the scheduled backup in the status")
        .atMost(Duration.ofMinutes(1))
        .until(() -> status(ns, "ledger", ".lastBackup.job").equals("ledger-scheduled"));
    assertThat(status(ns, "ledger", ".lastBackup.trigger")).isEqualTo("scheduled");
    assertThat(status(ns, "ledger", ".lastVerifiedBackup.job")).isEqualTo("ledger-scheduled");
    written.add(status(ns, "ledger", ".lastBackup.name"));
    timings.add(engine.name() + ": the CronJob's backup Job in " + seconds(start) + " s");

    Map<String, Long> listed = bucket(prefix + "/");
    timings.add(engine.name() + ": in the bucket after 3 backups with retention 2: " + listed);
    assertThat(written).doesNotHaveDuplicates().hasSize(3);
    assertThat(listed.keySet())
        .as("retention 2: the two newest dumps stay, the oldest is removed")
        .containsExactly(prefix + "/" + written.get(1), prefix + "/" + written.get(2));
    assertThat(listed.values()).allSatisfy(size -> assertThat(size).isGreaterThan(100L));

    // A new Database from the bucket's latest dump has the row.
    start = System.nanoTime();
    apply(ns, database("copy", engine, 1, false) + fromBucket(ns, "ledger", "latest", "s3-keys"));
    waitReady(ns, "copy");
    timings.add(
        engine.name()
            + ": Database bootstrapped from the bucket Ready in "
            + seconds(start)
            + " s");
    assertThat(
            client(
                    ns,
                    engine,
                    "copy",
                    "read-copy",
                    engine.reachable("copy") + engine.readRow().command("copy", db),
                    false)
                .strip())
        .as("the row in the Database started from the bucket")
        .isEqualTo("real");

    // Bytes changed in the newest dump, in the bucket: verification names it.
    String newest = written.get(2);
    damage(prefix + "/" + newest);
    start = System.nanoTime();
    ok("annotate", "db", "-n", ns, "ledger", "cellar.dev/verify-now=after-damage");
    await("BackupVerificationFailed naming " + newest)
        .atMost(Duration.ofMinutes(4))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () ->
                "False".equals(condition(ns, "ledger", "BackupReady", "status"))
                    && "BackupVerificationFailed"
                        .equals(condition(ns, "ledger", "BackupReady", "reason"))
                    && condition(ns, "ledger", "BackupReady", "message").contains(newest));
    timings.add(
        engine.name()
            + ": damaged dump named by verify-now in "
            + seconds(start)
            + " s: "
            + condition(ns, "ledger", "BackupReady", "message"));
    return new Scenario(ns, written.get(1));
  }

  /** Each scenario's dumps go under a prefix of its own in the shared bucket. */
  static String prefix(String ns) {
    return "realnode/" + ns;
  }

  /**
   * Spec lines that start a Database from dump BACKUP of SOURCE in namespace NS's prefix of the
   * bucket, with the keys in Secret KEYS.
   */
  static String fromBucket(String ns, String source, String backup, String keys) {
    return String.join(
        "\n",
        "  bootstrap:",
        "    fromBackup:",
        "      database: " + source,
        "      source: objectStore",
        "      backup: " + backup,
        "      objectStore:",
        "        endpoint: " + s3Env.get("S3_ENDPOINT"),
        "        bucket: " + BUCKET,
        "        prefix: " + prefix(ns),
        "        credentialsSecret: " + keys,
        "");
  }

  /** Secret NAME with the S3 server's key id and SECRET as its secret key. */
  static void keys(String ns, String name, String secret) {
    ok(
        "create",
        "secret",
        "generic",
        "-n",
        ns,
        name,
        "--from-literal=AWS_ACCESS_KEY_ID=" + s3Env.get("AWS_ACCESS_KEY_ID"),
        "--from-literal=AWS_SECRET_ACCESS_KEY=" + secret);
  }

  static void awaitFailed(String ns, String name, String reason, String words) {
    long start = System.nanoTime();
    await(name + " Failed, saying " + words)
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () ->
                "Failed".equals(status(ns, name, ".phase"))
                    && condition(ns, name, "Degraded", "message").contains(words));
    timings.add(
        name
            + ": Failed in "
            + seconds(start)
            + " s: "
            + condition(ns, name, "Degraded", "reason")
            + ": "
            + condition(ns, name, "Degraded", "message"));
    assertThat(condition(ns, name, "Degraded", "reason")).isEqualTo(reason);
  }

  /** The objects under PREFIX in the bucket, key to size, in key order. */
  static Map<String, Long> bucket(String prefix) {
    Map<String, Long> objects = new java.util.LinkedHashMap<>();
    for (String line : s3(S3_SERVER.toString(), "ls", BUCKET, prefix).stdout().lines().toList()) {
      String[] f = line.split(" ");
      objects.put(f[0], Long.parseLong(f[1]));
    }
    return objects;
  }

  /** Changes bytes in the middle of object KEY (a gzip stream then fails its check). */
  static void damage(String key) {
    try {
      Path file = Files.createTempFile(s3Dir, "dump", ".gz");
      s3(S3_SERVER.toString(), "get", BUCKET, key, file.toString());
      byte[] bytes = Files.readAllBytes(file);
      for (int i = bytes.length / 2; i < Math.min(bytes.length - 8, bytes.length / 2 + 64); i++) {
        bytes[i] = (byte) ~bytes[i];
      }
      Files.write(file, bytes);
      s3(S3_SERVER.toString(), "put", BUCKET, file.toString(), key);
      Files.delete(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String status(String ns, String name, String path) {
    return kubectl("get", "db", "-n", ns, name, "-o", "jsonpath={.status" + path + "}")
        .stdout()
        .strip();
  }

  static String condition(String ns, String name, String type, String field) {
    return status(ns, name, ".conditions[?(@.type==\"" + type + "\")]." + field);
  }

  static String annotations(String ns, String name) {
    return kubectl("get", "db", "-n", ns, name, "-o", "jsonpath={.metadata.annotations}").stdout();
  }

  /** Runs the S3 server's script (or another command) with this class's server state. */
  static LocalCluster.Result s3(String... command) {
    List<String> full = new ArrayList<>(List.of("env", "CELLAR_S3_DIR=" + s3Dir));
    full.addAll(List.of(command));
    LocalCluster.Result result = LocalCluster.exec(full, s3Dir.toFile());
    assertThat(result.exitCode()).as(String.join(" ", command) + "\n" + result.output()).isZero();
    return result;
  }
}
