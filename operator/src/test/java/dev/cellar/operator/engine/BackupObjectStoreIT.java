package dev.cellar.operator.engine;

import static dev.cellar.operator.engine.Scripts.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.cellar.operator.engine.Scripts.Result;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Backups to a real S3 server (MinIO, e2e/s3/s3-server) from real database servers of Debian's
 * packages, with the Jobs' exact script: upload, listing, retention, verification in a throwaway
 * server, a corrupted object caught by verification, and wrong credentials named.
 */
@Tag("tools")
class BackupObjectStoreIT {
  private static final Duration COMMAND = Duration.ofMinutes(5);
  private static final Path S3_SERVER = Path.of("..", "e2e", "s3", "s3-server").toAbsolutePath();
  private static final String BUCKET = "cellar-it";

  private static Path s3Dir;
  private static Map<String, String> s3Env;
  private static Path pgBin;

  private Path work;
  private final List<Runnable> cleanups = new ArrayList<>();

  @BeforeAll
  static void startS3() throws IOException {
    if (!"0".equals(run(List.of("id", "-u"), Map.of(), COMMAND).trimmed())) {
      fail("BackupObjectStoreIT runs the servers as the postgres and mysql users: run it as root");
    }
    pgBin = postgresBin();
    if (pgBin == null || !Files.isExecutable(Path.of("/usr/sbin/mariadbd"))) {
      fail(
          "BackupObjectStoreIT needs postgresql and mariadb-server from Debian (bin/test installs them)");
    }
    s3Dir = Files.createTempDirectory("cellar-s3-");
    Map<String, String> env = Map.of("CELLAR_S3_DIR", s3Dir.toString());
    long start = System.nanoTime();
    // Builds MinIO on the first run (cached under ~/.cache/cellar/bin), then starts it.
    Result started = run(List.of(S3_SERVER.toString(), "start"), env, Duration.ofMinutes(40));
    started.orFail("e2e/s3/s3-server start");
    System.out.printf(
        "S3 server (MinIO) ready in %d ms%n", (System.nanoTime() - start) / 1_000_000);
    s3Env = new HashMap<>();
    for (String line : started.output().lines().toList()) {
      int eq = line.indexOf('=');
      if (eq > 0 && line.matches("^(S3_ENDPOINT|AWS_[A-Z_]+)=.*")) {
        s3Env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    assertThat(s3Env).containsKeys("S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");
    run(List.of(S3_SERVER.toString(), "bucket", BUCKET), env, COMMAND).orFail("bucket");
  }

  @AfterAll
  static void stopS3() {
    if (s3Dir != null) {
      run(
          List.of(S3_SERVER.toString(), "stop"),
          Map.of("CELLAR_S3_DIR", s3Dir.toString()),
          COMMAND);
      run(List.of("rm", "-rf", s3Dir.toString()), Map.of(), COMMAND);
    }
  }

  @AfterEach
  void cleanUp() {
    for (int i = cleanups.size() - 1; i >= 0; i--) {
      cleanups.get(i).run();
    }
    run(List.of("rm", "-rf", work.toString()), Map.of(), COMMAND);
  }

  private void workDir(String user) throws IOException {
    work = Files.createTempDirectory("cellar-backup-it-");
    run(List.of("chown", user + ":" + user, work.toString()), Map.of(), COMMAND).orFail("chown");
  }

  private static Path postgresBin() {
    try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      return versions
          .map(v -> v.resolve("bin"))
          .filter(bin -> Files.isExecutable(bin.resolve("initdb")))
          .max(Comparator.comparingInt(bin -> Integer.parseInt(bin.getParent().getFileName() + "")))
          .orElse(null);
    } catch (IOException | NumberFormatException e) {
      return null;
    }
  }

  private Map<String, String> s3(String prefix) {
    Map<String, String> env = new HashMap<>(Scripts.cleanEnv());
    env.putAll(s3Env);
    env.put("S3_BUCKET", BUCKET);
    env.put("S3_PREFIX", prefix);
    env.put("S3_REGION", s3Env.getOrDefault("AWS_REGION", "us-east-1"));
    env.put("CELLAR_SCRATCH", work.toString());
    env.put("RESULT_FILE", work.resolve("result").toString());
    // awk is mawk, as in the database images (Debian's default): it lacks what gawk has, such as
    // {n} intervals in regular expressions, which once kept retention from removing any dump.
    Path mawk = Path.of("/usr/bin/mawk");
    if (Files.isExecutable(mawk)) {
      try {
        Path bin = Files.createDirectories(work.resolve("mawk-as-awk"));
        if (!Files.exists(bin.resolve("awk"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
          Files.createSymbolicLink(bin.resolve("awk"), mawk);
        }
        env.put("PATH", bin + ":" + System.getenv("PATH"));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return env;
  }

  private Result as(String user, Map<String, String> env, String script) {
    List<String> command =
        Scripts.list("setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups", "--");
    command.addAll(List.of("bash", "-c", script));
    return run(command, env, COMMAND);
  }

  private String result() throws IOException {
    return Files.readString(work.resolve("result")).trim();
  }

  /** "KEY SIZE" lines under a prefix, through the scripts' own S3 functions. */
  private List<String> list(Map<String, String> env, String prefix) {
    return run(
            List.of(
                "bash",
                "-c",
                EngineProfile.resource("s3.sh")
                    + "\ns3_list '"
                    + prefix
                    + "' || { echo \"$s3_error\" >&2; exit 1; }"),
            env,
            COMMAND)
        .orFail("s3_list")
        .output()
        .lines()
        .filter(l -> !l.isBlank())
        .toList();
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void postgresDumpsLandInTheBucketKeepRetentionAndAreVerified() throws IOException {
    workDir("postgres");
    int port = freePort();
    Path data = work.resolve("source");
    Path pw = work.resolve("pw");
    Files.writeString(pw, "src-pw\n");
    run(List.of("chown", "postgres", pw.toString()), Map.of(), COMMAND);
    Map<String, String> pgEnv = new HashMap<>(Scripts.cleanEnv());
    pgEnv.put("PATH", pgBin + ":" + System.getenv("PATH"));
    as(
            "postgres",
            pgEnv,
            "initdb -D '"
                + data
                + "' -U cellar --pwfile='"
                + pw
                + "' --auth-local=trust --auth-host=scram-sha-256 >/dev/null && pg_ctl -D '"
                + data
                + "' -l '"
                + work.resolve("source.log")
                + "' -o \"-c listen_addresses=127.0.0.1 -c unix_socket_directories='"
                + work
                + "' -p "
                + port
                + "\" -w start >/dev/null")
        .orFail("source server");
    cleanups.add(
        () -> as("postgres", pgEnv, "pg_ctl -D '" + data + "' -m immediate stop >/dev/null"));
    // About 20 MB of rows (docs/performance.md, Failover and backups).
    as(
            "postgres",
            pgEnv,
            "psql -X -q -v ON_ERROR_STOP=1 -h '"
                + work
                + "' -p "
                + port
                + " -U cellar -d postgres -c 'CREATE DATABASE shop' && psql -X -q -v"
                + " ON_ERROR_STOP=1 -h '"
                + work
                + "' -p "
                + port
                + " -U cellar -d shop -c \"CREATE TABLE orders (id int PRIMARY KEY, item text);"
                + " INSERT INTO orders SELECT g, md5(g::text) || md5((g * 7)::text) FROM"
                + " generate_series(1, 250000) g\"")
        .orFail("rows");

    Map<String, String> env = s3("it/pg");
    env.put("PATH", pgBin + ":" + env.get("PATH"));
    env.put("DUMP_COMMAND", "pg_dumpall -h 127.0.0.1 -p " + port + " -U cellar");
    env.put("PGPASSWORD", "src-pw");
    env.put("BACKUP_NAME", "orders");
    env.put("RETENTION", "2");
    env.put(
        "VERIFY_SCRIPT",
        Scripts.script(new PostgresProfile(), EngineProfile.VERIFY_SCRIPT, work.resolve("cellar")));
    String script = EngineProfile.backupScript();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      long start = System.nanoTime();
      Result r = as("postgres", env, script).orFail("backup " + i);
      System.out.printf(
          "postgres backup %d (dump, upload, retention, verification) in %d ms:%n%s",
          i, (System.nanoTime() - start) / 1_000_000, r.output());
      assertThat(result())
          .contains("\"result\":\"succeeded\"")
          .contains("\"location\":\"s3://" + BUCKET + "/it/pg/orders-")
          .contains("\"verified\":true")
          .contains("2 databases, 1 tables");
      names.add(result().replaceAll(".*\"name\":\"([^\"]+)\".*", "$1"));
      // Names are per second: the next one must differ.
      await().atMost(Duration.ofSeconds(2)).pollDelay(Duration.ofMillis(1100)).until(() -> true);
    }
    List<String> stored = list(env, "it/pg/");
    System.out.println("in the bucket: " + stored);
    assertThat(stored).hasSize(2);
    assertThat(stored.get(0)).startsWith("it/pg/" + names.get(1) + " ");
    assertThat(stored.get(1)).startsWith("it/pg/" + names.get(2) + " ");
    assertThat(Long.parseLong(stored.get(1).split(" ")[1])).isGreaterThan(1_000_000);
    assertThat(result() + String.join("", stored))
        .doesNotContain(s3Env.get("AWS_SECRET_ACCESS_KEY"));

    // Bytes changed in the bucket: verification of the latest dump names it.
    String latest = names.get(2);
    run(
            List.of(
                "bash",
                "-c",
                EngineProfile.resource("s3.sh")
                    + "\nf=$(mktemp) && s3_get 'it/pg/"
                    + latest
                    + "' \"$f\" && printf 'garbage' | dd of=\"$f\" bs=1 seek=5000 conv=notrunc"
                    + " 2>/dev/null && s3_put \"$f\" 'it/pg/"
                    + latest
                    + "' || { echo \"$s3_error\"; exit 1; }"),
            env,
            COMMAND)
        .orFail("corrupt");
    Map<String, String> verify = new HashMap<>(env);
    verify.put("BACKUP_MODE", "verify");
    verify.put("VERIFY_BACKUP", "latest");
    Result caught = as("postgres", verify, script);
    assertThat(caught.exit()).isNotZero();
    assertThat(result())
        .contains("\"result\":\"failed\",\"stage\":\"verify\",\"name\":\"" + latest + "\"")
        .contains(latest + " is not a valid gzip file");

    // Wrong keys: the upload fails naming the credentials, and prints neither key.
    Map<String, String> wrong = new HashMap<>(env);
    wrong.put("AWS_SECRET_ACCESS_KEY", "not-the-secret");
    Result refused = as("postgres", wrong, script);
    assertThat(refused.exit()).isNotZero();
    assertThat(result())
        .contains("\"stage\":\"upload\"")
        .contains("the object store refused the credentials (SignatureDoesNotMatch");
    assertThat(result() + refused.output()).doesNotContain("not-the-secret");

    // A bucket that does not exist.
    Map<String, String> nobucket = new HashMap<>(env);
    nobucket.put("S3_BUCKET", "no-such-bucket");
    assertThat(as("postgres", nobucket, script).exit()).isNotZero();
    assertThat(result())
        .contains("bucket no-such-bucket does not exist at " + s3Env.get("S3_ENDPOINT"));
  }

  @Test
  void mariadbDumpsLandInTheBucketAndAreVerified() throws IOException {
    workDir("mysql");
    Path data = work.resolve("source");
    Path socket = work.resolve("source.sock");
    run(
            List.of(
                "setpriv",
                "--reuid=mysql",
                "--regid=mysql",
                "--init-groups",
                "--",
                "mariadb-install-db",
                "--no-defaults",
                "--datadir=" + data,
                "--auth-root-authentication-method=normal",
                "--skip-test-db"),
            Map.of(),
            COMMAND)
        .orFail("mariadb-install-db");
    Process server =
        new ProcessBuilder(
                "setpriv",
                "--reuid=mysql",
                "--regid=mysql",
                "--init-groups",
                "--",
                "/usr/sbin/mariadbd",
                "--no-defaults",
                "--datadir=" + data,
                "--socket=" + socket,
                "--skip-networking",
                "--pid-file=" + work.resolve("source.pid"),
                "--log-error=" + work.resolve("source.err"))
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("source.out").toFile())
            .start();
    cleanups.add(
        () -> {
          server.destroy();
          try {
            server.waitFor();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    Map<String, String> client = new HashMap<>(Scripts.cleanEnv());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                run(
                            List.of("mariadb", "-uroot", "--socket=" + socket, "-e", "SELECT 1"),
                            client,
                            COMMAND)
                        .exit()
                    == 0);
    run(
            List.of("mariadb", "-uroot", "--socket=" + socket),
            client,
            COMMAND,
            "CREATE DATABASE shop; CREATE TABLE shop.orders (id int PRIMARY KEY, item text);"
                + " INSERT INTO shop.orders VALUES (1, 'one'), (2, 'two');")
        .orFail("rows");

    Map<String, String> env = s3("it/maria");
    env.put(
        "DUMP_COMMAND",
        new MariaDbProfile()
            .dumpCommand()
            .replace("-h \"$DB_HOST\" -P 3306", "--socket=" + socket));
    env.put("BACKUP_NAME", "orders");
    env.put("RETENTION", "3");
    env.put(
        "VERIFY_SCRIPT",
        Scripts.script(new MariaDbProfile(), EngineProfile.VERIFY_SCRIPT, work.resolve("cellar")));
    long start = System.nanoTime();
    Result r = as("mysql", env, EngineProfile.backupScript()).orFail("backup");
    System.out.printf(
        "mariadb backup in %d ms:%n%s", (System.nanoTime() - start) / 1_000_000, r.output());
    assertThat(result())
        .contains("\"result\":\"succeeded\"")
        .contains("\"verified\":true")
        .contains("restored into mariadb")
        .contains("1 databases, 1 tables");
    assertThat(list(env, "it/maria/")).hasSize(1);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
