package dev.cellar.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Engine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The backup Jobs' script, run for real with stand-in dump and verify commands (volume target);
 * MySQL's verification against recording fakes of its programs. Real servers and the real S3
 * server: BackupObjectStoreIT.
 */
class BackupScriptTest {
  @TempDir Path dir;
  @TempDir Path work;

  private Scripts.Result backup(String dumpCommand, int retention, Map<String, String> more) {
    Map<String, String> env = new HashMap<>(Scripts.cleanEnv());
    env.put("DUMP_COMMAND", dumpCommand);
    env.put("BACKUP_DIR", dir.toString());
    env.put("BACKUP_NAME", "orders");
    env.put("RETENTION", String.valueOf(retention));
    env.put("RESULT_FILE", work.resolve("result").toString());
    env.put("CELLAR_SCRATCH", work.toString());
    env.putAll(more);
    return Scripts.run(
        List.of("bash", "-c", EngineProfile.backupScript()), env, Duration.ofSeconds(30));
  }

  private String result() throws IOException {
    return Files.readString(work.resolve("result")).trim();
  }

  private List<String> dumps() throws IOException {
    try (var files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void keepsTheNewestDumpsAndNeverCountsAFailedOne() throws IOException {
    // Older dumps of this Database and one of another whose name shares the prefix's start.
    for (String old : List.of("20260101T000000Z", "20260102T000000Z", "20260103T000000Z")) {
      Files.writeString(dir.resolve("orders-" + old + ".sql.gz"), "old");
    }
    Files.writeString(dir.resolve("ordersx-20260101T000000Z.sql.gz"), "other");

    Scripts.Result ok = backup("echo 'SELECT 1;'", 2, Map.of()).orFail("backup");
    assertThat(ok.output()).contains("backup written: pvc://" + dir + "/orders-");
    List<String> kept = dumps();
    assertThat(kept).hasSize(3).contains("orders-20260103T000000Z.sql.gz");
    assertThat(kept).contains("ordersx-20260101T000000Z.sql.gz");
    assertThat(kept).noneMatch(n -> n.endsWith(".partial"));
    assertThat(result())
        .startsWith("{\"result\":\"succeeded\",\"name\":\"orders-")
        .contains("\"verified\":false");

    // A dump that fails leaves no dump and removes nothing, and says why.
    Scripts.Result failed = backup("echo partial; echo 'access denied' >&2; exit 3", 1, Map.of());
    assertThat(failed.exit()).isNotZero();
    assertThat(dumps()).filteredOn(n -> n.endsWith(".sql.gz")).hasSize(3);
    assertThat(result())
        .contains("\"result\":\"failed\",\"stage\":\"dump\"")
        .contains("the dump failed: access denied");
  }

  @Test
  void verificationRestoresWhatWasStoredAndNamesADumpThatDoesNotRestore() throws IOException {
    // A stand-in verifier: reads the SQL and fails on a line that says BROKEN.
    String verifier = work.resolve("verify.sh").toString();
    Files.writeString(
        Path.of(verifier),
        "if grep -q BROKEN; then echo 'ERROR: syntax error' >&2; exit 1; fi; echo ok\n");
    backup("echo 'SELECT 1;'", 3, Map.of("VERIFY_SCRIPT", verifier)).orFail("backup");
    assertThat(result()).contains("\"verified\":true").contains("\"verification\":\"ok\"");

    Scripts.Result bad = backup("echo BROKEN", 3, Map.of("VERIFY_SCRIPT", verifier));
    assertThat(bad.exit()).isNotZero();
    assertThat(result())
        .contains("\"stage\":\"verify\"")
        .containsPattern("orders-[0-9]{8}T[0-9]{6}Z.sql.gz did not restore")
        .contains("ERROR: syntax error");

    // Bytes changed on the volume: verify mode names the dump.
    String latest = dumps().get(dumps().size() - 1);
    Files.write(dir.resolve(latest), new byte[] {0x1f, (byte) 0x8b, 8, 0, 1, 2, 3});
    Scripts.Result corrupt =
        backup(
            "true",
            3,
            Map.of("VERIFY_SCRIPT", verifier, "BACKUP_MODE", "verify", "VERIFY_BACKUP", "latest"));
    assertThat(corrupt.exit()).isNotZero();
    assertThat(result()).contains(latest + " is not a valid gzip file");
  }

  @Test
  void aBucketWithoutCurlIsAClearFailure() throws IOException {
    // PATH without curl: only what backup.sh needs besides it.
    Path bin = Files.createDirectories(work.resolve("bin"));
    for (String tool : List.of("bash", "date", "mktemp", "rm", "cat", "head", "sed", "awk")) {
      Path real = Path.of("/usr/bin", tool);
      if (!Files.exists(real)) {
        real = Path.of("/bin", tool);
      }
      Files.createSymbolicLink(bin.resolve(tool), real);
    }
    Scripts.Result r =
        backup(
            "echo x",
            1,
            Map.of(
                "PATH",
                bin.toString(),
                "S3_ENDPOINT",
                "http://127.0.0.1:9",
                "S3_BUCKET",
                "dumps",
                "AWS_ACCESS_KEY_ID",
                "id",
                "AWS_SECRET_ACCESS_KEY",
                "secret-value"));
    assertThat(r.exit()).isNotZero();
    assertThat(result())
        .contains("\"stage\":\"configuration\"")
        .contains("curl is not installed in this image")
        .contains("curl 7.75 or newer");
    assertThat(result() + r.output()).doesNotContain("secret-value");
  }

  @Test
  void mysqlVerificationInitializesAThrowawayServerAndQueriesItInTheRestoreSession()
      throws IOException {
    Path bin = Files.createDirectories(work.resolve("fakebin"));
    Path log = work.resolve("fake.log");
    // mysqld: --initialize-insecure makes the data directory; otherwise it runs until killed.
    Files.writeString(
        bin.resolve("mysqld"),
        """
        #!/bin/bash
        echo "mysqld $*" >>"$FAKE_LOG"
        case "$*" in
          *--version*) echo "mysqld  Ver 8.4.2 for Linux"; exit 0 ;;
          *--initialize-insecure*) mkdir -p "${3#--datadir=}"; exit 0 ;;
        esac
        trap 'exit 0' TERM
        while true; do sleep 0.1; done
        """);
    Files.writeString(
        bin.resolve("mysqladmin"), "#!/bin/bash\necho \"mysqladmin $*\" >>\"$FAKE_LOG\"\nexit 0\n");
    Files.writeString(
        bin.resolve("mysql"),
        """
        #!/bin/bash
        echo "mysql $*" >>"$FAKE_LOG"
        sql=$(cat)
        printf '%s\\n' "$sql" >>"$FAKE_LOG"
        case "$sql" in *BROKEN*) echo "ERROR 1064 (42000) at line 1: syntax" >&2; exit 1 ;; esac
        echo "2 databases, 5 tables"
        """);
    for (String f : List.of("mysqld", "mysqladmin", "mysql")) {
      bin.resolve(f).toFile().setExecutable(true);
    }
    Map<String, String> env = new HashMap<>(Scripts.cleanEnv());
    env.put("PATH", bin + ":" + System.getenv("PATH"));
    env.put("FAKE_LOG", log.toString());
    env.put("CELLAR_SCRATCH", work.toString());
    String script = new MySqlProfile().verifyScript();
    Scripts.Result ok =
        Scripts.run(
                List.of("bash", "-c", script),
                env,
                Duration.ofSeconds(30),
                "CREATE DATABASE shop;\n")
            .orFail("verify");
    assertThat(ok.trimmed()).isEqualTo("restored into mysql 8.4.2: 2 databases, 5 tables");
    String calls = Files.readString(log);
    assertThat(calls)
        .contains("mysqld --no-defaults --initialize-insecure --datadir=" + work)
        .contains("--skip-networking")
        .contains("--mysqlx=OFF")
        .contains("--secure-file-priv=NULL")
        .contains("mysqladmin --no-defaults --socket=")
        // The query runs in the restore's own session, after the dump.
        .containsPattern("(?s)CREATE DATABASE shop;\\s+SELECT CONCAT\\(COUNT\\(DISTINCT");
    assertThat(calls).doesNotContain("--initialize ");

    Scripts.Result bad =
        Scripts.run(List.of("bash", "-c", script), env, Duration.ofSeconds(30), "BROKEN\n");
    assertThat(bad.exit()).isNotZero();
    assertThat(bad.output()).contains("ERROR 1064").contains("the dump did not restore");
    // The throwaway server was stopped and its directory removed.
    try (var left = Files.list(work)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.startsWith("cellar-verify-"));
    }
  }

  /**
   * MySQL's restore step of a bootstrap from a backup (no MySQL server exists here; MariaDB's runs
   * for real in ObjectStoreRealNodeIT): only what the image offers on PATH (mysql, no mariadb), the
   * dump restored over the socket as root with the password in the environment, its mysql schema
   * left out, and the pending mark removed only after a restore that succeeded.
   */
  @Test
  void mysqlRestoreLeavesOutTheMysqlSchemaAndKeepsTheMarkWhenItFails() throws IOException {
    Path bin = Files.createDirectories(work.resolve("mysqlbin"));
    for (String tool : List.of("gzip", "awk", "cat", "rm")) {
      Path real =
          List.of(Path.of("/usr/bin", tool), Path.of("/bin", tool)).stream()
              .filter(Files::isExecutable)
              .findFirst()
              .orElseThrow();
      Files.createSymbolicLink(bin.resolve(tool), real);
    }
    Path log = work.resolve("mysql.log");
    Files.writeString(
        bin.resolve("mysql"),
        """
        #!/bin/bash
        echo "mysql $* pwd=$MYSQL_PWD" >>"$FAKE_LOG"
        sql=$(cat)
        printf '%s\n' "$sql" >>"$FAKE_LOG"
        [ -z "${FAKE_FAIL:-}" ] || { echo "ERROR 1046 (3D000) at line 3: No database" >&2; exit 1; }
        """);
    bin.resolve("mysql").toFile().setExecutable(true);
    Path restore = Files.createDirectories(work.resolve("initdb"));
    try (var out =
        new java.util.zip.GZIPOutputStream(
            Files.newOutputStream(restore.resolve("cellar-dump.gz")))) {
      out.write(
          String.join(
                  "\n",
                  "-- MySQL dump 10.13",
                  "SET NAMES utf8mb4;",
                  "-- Current Database: `mysql`",
                  "INSERT INTO user VALUES ('root');",
                  "-- Current Database: `shop`",
                  "CREATE TABLE items (id int);",
                  "")
              .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    Files.writeString(restore.resolve("cellar-backup-name"), "shop-20260101T020000Z.sql.gz");
    Path pending = Files.writeString(work.resolve("pending"), "");
    Map<String, String> env = new HashMap<>(Scripts.cleanEnv());
    env.put("PATH", bin.toString());
    env.put("FAKE_LOG", log.toString());
    env.put("MYSQL_ROOT_PASSWORD", "s3cret");
    env.put("CELLAR_RESTORE_DIR", restore.toString());
    env.put("CELLAR_RESTORE_PENDING", pending.toString());
    String script = new MySqlProfile().restoreScript();

    Map<String, String> failing = new HashMap<>(env);
    failing.put("FAKE_FAIL", "1");
    Scripts.Result bad =
        Scripts.run(List.of("/bin/bash", "-c", script), failing, Duration.ofSeconds(30));
    assertThat(bad.exit()).isNotZero();
    assertThat(bad.output()).contains("ERROR 1046").contains("the dump did not restore");
    assertThat(pending).as("a failed restore is tried again at the next start").exists();

    Scripts.Result ok =
        Scripts.run(List.of("/bin/bash", "-c", script), env, Duration.ofSeconds(30))
            .orFail("restore");
    assertThat(ok.output())
        .contains("restoring shop-20260101T020000Z.sql.gz without its mysql schema")
        .contains("restore done");
    assertThat(pending).doesNotExist();
    String calls = Files.readString(log);
    assertThat(calls)
        .contains("mysql --protocol=socket -uroot pwd=s3cret")
        .contains("SET NAMES utf8mb4;")
        .contains("-- Current Database: `shop`")
        .contains("CREATE TABLE items")
        .doesNotContain("-- Current Database: `mysql`")
        .doesNotContain("INSERT INTO user");
  }

  @Test
  void everyEngineHasAVerifyScript() {
    for (Engine engine : Engine.values()) {
      assertThat(EngineProfiles.of(engine).verifyScript()).contains("cellar_die");
    }
  }
}
