package dev.cellar.operator.engine;

import static dev.cellar.operator.engine.Scripts.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

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
 * A bootstrap from a backup with the pods' exact scripts, outside containers: a PostgreSQL dump
 * taken by backup.sh into the real S3 server (MinIO), fetched by the init container's script,
 * restored by the engine's restore script during an initialisation like the image's, and the rows
 * are there with the new Database's password. A missing dump and refused keys are named.
 */
@Tag("tools")
class BootstrapRestoreIT {
  private static final Duration COMMAND = Duration.ofMinutes(5);
  private static final Path S3_SERVER = Path.of("..", "e2e", "s3", "s3-server").toAbsolutePath();
  private static final String BUCKET = "cellar-boot";

  private static Path s3Dir;
  private static final Map<String, String> s3Env = new HashMap<>();
  private static Path pgBin;

  private Path work;
  private final List<Runnable> cleanups = new ArrayList<>();

  @BeforeAll
  static void startS3() throws IOException {
    try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      pgBin =
          versions
              .map(v -> v.resolve("bin"))
              .filter(bin -> Files.isExecutable(bin.resolve("initdb")))
              .max(Comparator.comparing(Path::toString))
              .orElse(null);
    }
    if (pgBin == null) {
      fail("BootstrapRestoreIT needs postgresql from Debian (bin/test installs it)");
    }
    s3Dir = Files.createTempDirectory("cellar-s3-boot-");
    Map<String, String> env = Map.of("CELLAR_S3_DIR", s3Dir.toString());
    Result started = run(List.of(S3_SERVER.toString(), "start"), env, Duration.ofMinutes(40));
    started.orFail("e2e/s3/s3-server start");
    for (String line : started.output().lines().toList()) {
      int eq = line.indexOf('=');
      if (eq > 0 && line.matches("^(S3_ENDPOINT|AWS_[A-Z_]+)=.*")) {
        s3Env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
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

  private Result asPostgres(Map<String, String> env, String script) {
    List<String> command =
        Scripts.list("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--");
    command.addAll(List.of("bash", "-c", script));
    Map<String, String> all = new HashMap<>(Scripts.cleanEnv());
    all.put("PATH", pgBin + ":" + System.getenv("PATH"));
    all.putAll(env);
    return run(command, all, COMMAND);
  }

  /** An initdb'd server like the image's (superuser cellar, scram over TCP), started. */
  private void server(Path data, String password, int port) throws IOException {
    Path pw = work.resolve("pw-" + port);
    Files.writeString(pw, password + "\n");
    run(List.of("chown", "postgres", pw.toString()), Map.of(), COMMAND);
    asPostgres(
            Map.of(),
            "initdb -D '"
                + data
                + "' -U cellar --pwfile='"
                + pw
                + "' --auth-local=trust --auth-host=scram-sha-256 >/dev/null"
                + " && echo 'host all all all scram-sha-256' >>'"
                + data
                + "/pg_hba.conf' && pg_ctl -D '"
                + data
                + "' -l '"
                + data
                + ".log' -o \"-c listen_addresses=127.0.0.1 -c unix_socket_directories='"
                + work.resolve("sock")
                + "' -p "
                + port
                + "\" -w start >/dev/null")
        .orFail("server " + data);
    cleanups.add(() -> asPostgres(Map.of(), "pg_ctl -D '" + data + "' -m immediate stop"));
  }

  private Result sql(int port, String password, String db, String sql) {
    Map<String, String> env = new HashMap<>(Scripts.cleanEnv());
    env.put("PGPASSWORD", password);
    return run(
        List.of(
            pgBin.resolve("psql").toString(),
            "-X",
            "-At",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            "127.0.0.1",
            "-p",
            String.valueOf(port),
            "-U",
            "cellar",
            "-d",
            db,
            "-c",
            sql),
        env,
        COMMAND);
  }

  private Map<String, String> fetchEnv(String backupName, Path data, Path restore) {
    Map<String, String> env = new HashMap<>(s3Env);
    env.put("S3_BUCKET", BUCKET);
    env.put("S3_PREFIX", "it/boot");
    env.put("BACKUP_NAME", backupName);
    env.put("POD_NAME", "copy-0");
    env.put("DATA_DIR", data.toString());
    env.put("INITIALISED_PATH", data.resolve("pgdata/PG_VERSION").toString());
    env.put("RESTORE_DIR", restore.toString());
    env.put(
        "RESTORE_SCRIPT",
        Scripts.script(
            new PostgresProfile(), EngineProfile.RESTORE_SCRIPT, work.resolve("cellar")));
    env.put("RESULT_FILE", work.resolve("fetch-result").toString());
    return env;
  }

  @Test
  void aDumpInTheBucketBecomesTheNewDatabasesDataWithItsOwnPassword() throws IOException {
    work = Files.createTempDirectory("cellar-boot-it-");
    Files.createDirectories(work.resolve("sock"));
    Files.createDirectories(work.resolve("target"));
    Files.createDirectories(work.resolve("restore"));
    run(List.of("chown", "-R", "postgres:postgres", work.toString()), Map.of(), COMMAND)
        .orFail("chown");
    int source = freePort();
    server(work.resolve("source"), "src-pw", source);
    sql(source, "src-pw", "postgres", "CREATE DATABASE shop").orFail("db");
    sql(
            source,
            "src-pw",
            "shop",
            "CREATE TABLE orders (id int PRIMARY KEY, item text);"
                + " INSERT INTO orders SELECT g, 'item ' || g FROM generate_series(1, 1000) g")
        .orFail("rows");

    // The backup Job's script puts the dump in the bucket.
    Map<String, String> backup = new HashMap<>(s3Env);
    backup.put("S3_BUCKET", BUCKET);
    backup.put("S3_PREFIX", "it/boot");
    backup.put("BACKUP_NAME", "orders");
    backup.put("RETENTION", "3");
    backup.put("PGPASSWORD", "src-pw");
    backup.put("DUMP_COMMAND", "pg_dumpall -h 127.0.0.1 -p " + source + " -U cellar");
    backup.put("CELLAR_SCRATCH", work.toString());
    backup.put("RESULT_FILE", work.resolve("backup-result").toString());
    asPostgres(backup, EngineProfile.backupScript()).orFail("backup");

    // A replica fetches nothing; a missing dump and refused keys are named, one line each.
    Path data = work.resolve("target");
    Path restore = work.resolve("restore");
    Map<String, String> replica = fetchEnv("orders", data, restore);
    replica.put("POD_NAME", "copy-1");
    assertThat(asPostgres(replica, EngineProfile.restoreFetchScript()).orFail("replica").output())
        .contains("is a replica");
    Result missing =
        asPostgres(fetchEnv("ghost", data, restore), EngineProfile.restoreFetchScript());
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(Files.readString(work.resolve("fetch-result")))
        .contains("no backup of ghost in s3://" + BUCKET + "/it/boot/");
    Map<String, String> wrong = fetchEnv("orders", data, restore);
    wrong.put("AWS_SECRET_ACCESS_KEY", "wrong-secret");
    assertThat(asPostgres(wrong, EngineProfile.restoreFetchScript()).exit()).isEqualTo(1);
    assertThat(Files.readString(work.resolve("fetch-result")))
        .contains("the object store refused the credentials")
        .doesNotContain("wrong-secret");

    // The init container's fetch, then the image's first initialisation with the restore script.
    long start = System.nanoTime();
    asPostgres(fetchEnv("orders", data, restore), EngineProfile.restoreFetchScript())
        .orFail("fetch");
    assertThat(restore.resolve("cellar-dump.gz")).exists();
    assertThat(data.resolve(".cellar-restore-pending")).exists();
    int target = freePort();
    server(data.resolve("pgdata"), "new-pw", target);
    Map<String, String> init = new HashMap<>();
    init.put("CELLAR_RESTORE_DIR", restore.toString());
    init.put("CELLAR_SOCKET_DIR", work.resolve("sock").toString());
    init.put("PGPORT", String.valueOf(target));
    init.put("POSTGRES_USER", "cellar");
    init.put("POSTGRES_PASSWORD", "new-pw");
    init.put("PGDATA", data.resolve("pgdata").toString());
    init.put("CELLAR_RESTORE_PENDING", data.resolve(".cellar-restore-pending").toString());
    Result restored =
        asPostgres(init, "bash '" + restore.resolve("cellar-restore.sh") + "'").orFail("restore");
    System.out.printf(
        "postgres bootstrap (fetch and restore of 1000 rows) in %d ms:%n%s",
        (System.nanoTime() - start) / 1_000_000, restored.output());
    assertThat(
            sql(target, "new-pw", "shop", "SELECT count(*) FROM orders").orFail("count").trimmed())
        .isEqualTo("1000");
    assertThat(data.resolve(".cellar-restore-pending")).doesNotExist();
    // The next pod start finds the data and fetches nothing.
    assertThat(
            asPostgres(fetchEnv("orders", data, restore), EngineProfile.restoreFetchScript())
                .orFail("again")
                .output())
        .contains("nothing to restore");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
