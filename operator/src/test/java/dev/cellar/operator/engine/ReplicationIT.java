package dev.cellar.operator.engine;

import static dev.cellar.operator.engine.Scripts.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.ReplicationMode;
import dev.cellar.api.v1.ReplicationSpec;
import dev.cellar.operator.engine.Scripts.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Replication proven with real servers from Debian's packages, outside containers: the project's
 * own scripts (exactly the ConfigMap's files) set up the primary and bootstrap replicas on
 * loopback, with free ports and temporary data directories. Rows written on the primary must show
 * up on the replicas, and the replicas must refuse writes.
 */
class ReplicationIT {
  private static final Duration CATCH_UP = Duration.ofSeconds(30);
  private static final Duration COMMAND = Duration.ofMinutes(3);
  private static final String REPLICATION_USER = "replicator";
  // Quotes, a backslash and a space: the scripts must quote it for SQL, conninfo and option files.
  private static final String REPLICATION_PASSWORD = "r'e\"p l\\1";
  private static final String ROOT_PASSWORD = "root-pw'1";
  private static final String APP_PASSWORD = "app-pw";
  private static final String MONITORING_USER = "cellar_monitor";
  private static final String MONITORING_PASSWORD = "m'o\"n i\\t";

  private static Path pgBin;

  private Path work;
  private final List<Runnable> cleanups = new ArrayList<>();

  @BeforeAll
  static void requireServers() {
    List<String> missing = new ArrayList<>();
    pgBin = postgresBin();
    if (pgBin == null) {
      missing.add("postgresql (initdb, pg_ctl, pg_basebackup under /usr/lib/postgresql/*/bin)");
    }
    for (String binary :
        List.of(
            "/usr/sbin/mariadbd",
            "/usr/bin/mariadb",
            "/usr/bin/mariadb-dump",
            "/usr/bin/mariadb-admin",
            "/usr/bin/mariadb-install-db",
            "/usr/bin/setpriv",
            "/usr/bin/shellcheck")) {
      if (!Files.isExecutable(Path.of(binary))) {
        missing.add(binary);
      }
    }
    if (!missing.isEmpty()) {
      fail(
          "ReplicationIT needs real database servers from Debian's packages; missing: "
              + missing
              + ". Run bin/test (it installs postgresql, mariadb-server, mariadb-client and"
              + " shellcheck), or apt-get install them.");
    }
    if (!"0".equals(run(List.of("id", "-u"), Map.of(), COMMAND).trimmed())) {
      fail("ReplicationIT runs the servers as the postgres and mysql OS users: run it as root");
    }
  }

  private static Path postgresBin() {
    try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      return versions
          .map(v -> v.resolve("bin"))
          .filter(bin -> Files.isExecutable(bin.resolve("pg_basebackup")))
          .max(Comparator.comparingInt(bin -> Integer.parseInt(bin.getParent().getFileName() + "")))
          .orElse(null);
    } catch (IOException | NumberFormatException e) {
      return null;
    }
  }

  @BeforeEach
  void workDir() throws IOException {
    work = Files.createTempDirectory("cellar-replication-");
    work.toFile().setReadable(true, false);
    work.toFile().setExecutable(true, false);
  }

  @AfterEach
  void cleanUp() {
    for (int i = cleanups.size() - 1; i >= 0; i--) {
      try {
        cleanups.get(i).run();
      } catch (RuntimeException e) {
        System.err.println("cleanup: " + e);
      }
    }
    run(List.of("rm", "-rf", work.toString()), Map.of(), COMMAND);
  }

  // ---------------------------------------------------------------------------------------------
  // PostgreSQL

  @Test
  void postgresStandbyStreamsFromThePrimary() throws IOException {
    Path scripts = Scripts.materialize(Engine.POSTGRESQL, "15", work.resolve("etc-cellar"));
    int primaryPort = freePort();
    int standbyPort = freePort();
    Path primaryData = work.resolve("primary/pgdata");
    Path standbyData = work.resolve("standby/pgdata");
    mkdirsOwnedBy(
        "postgres", work.resolve("primary"), work.resolve("standby"), work.resolve("run"));
    Path pwfile = work.resolve("run/pw");
    Files.writeString(pwfile, "cellar-pw\n");
    chown("postgres", pwfile);

    // What the image does on first start: initdb with the superuser's password.
    asPostgres(
            pgEnv(primaryPort),
            pgBin.resolve("initdb").toString(),
            "-D",
            primaryData.toString(),
            "--username=cellar",
            "--pwfile=" + pwfile,
            "--auth-local=trust",
            "--auth-host=scram-sha-256")
        .orFail("initdb");
    startPostgres(primaryData, primaryPort);

    Map<String, String> primaryEnv = pgEnv(primaryPort);
    primaryEnv.put("CELLAR_ORDINAL", "0");
    primaryEnv.put("CELLAR_LOCAL_HOST", "127.0.0.1");
    asPostgres(primaryEnv, "bash", scripts.resolve("primary-setup.sh").toString())
        .orFail("primary-setup.sh");
    // Idempotent: a second run changes nothing and succeeds.
    Result again = asPostgres(primaryEnv, "bash", scripts.resolve("primary-setup.sh").toString());
    assertThat(again.orFail("primary-setup.sh again").output()).doesNotContain("added to");
    assertThat(Files.readString(primaryData.resolve("pg_hba.conf")))
        .containsOnlyOnce("host replication \"replicator\" all scram-sha-256");
    // The exporter's account: pg_monitor and nothing more, logging in over TCP with its password.
    assertThat(
            psqlValue(
                primaryPort,
                "SELECT rolsuper, rolreplication, rolcreatedb, pg_has_role('cellar_monitor',"
                    + " 'pg_monitor', 'member') FROM pg_roles WHERE rolname = 'cellar_monitor'"))
        .isEqualTo("f|f|f|t");
    assertThat(
            run(
                    List.of(
                        pgBin.resolve("psql").toString(),
                        "-X",
                        "-At",
                        "-h",
                        "127.0.0.1",
                        "-p",
                        String.valueOf(primaryPort),
                        "-U",
                        MONITORING_USER,
                        "-d",
                        "postgres",
                        "-c",
                        "SELECT count(*) > 0 FROM pg_stat_database"),
                    monitorEnv("PGPASSWORD"),
                    COMMAND)
                .orFail("psql as the monitoring account")
                .trimmed())
        .isEqualTo("t");

    psql(primaryPort, "CREATE TABLE orders (id int PRIMARY KEY, item text)");
    psql(
        primaryPort,
        "INSERT INTO orders SELECT g, 'before clone ' || g FROM generate_series(1, 100) g");

    // A wrong password fails within the deadline with a message that says what to check.
    Map<String, String> wrong = standbyEnv(primaryPort, standbyPort, standbyData);
    wrong.put("CELLAR_REPLICATION_PASSWORD", "wrong");
    wrong.put("CELLAR_WAIT_SECONDS", "3");
    Result refused = asPostgres(wrong, "bash", scripts.resolve("replica-bootstrap.sh").toString());
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.output())
        .contains("a base backup from 127.0.0.1:" + primaryPort + " as 'replicator'")
        .contains("not reached within 3 s")
        .contains("password authentication failed")
        .contains("Check that the primary has the role");
    assertThat(standbyData).doesNotExist();

    long cloneStart = System.nanoTime();
    Result bootstrap =
        asPostgres(
                standbyEnv(primaryPort, standbyPort, standbyData),
                "bash",
                scripts.resolve("replica-bootstrap.sh").toString())
            .orFail("replica-bootstrap.sh");
    System.out.printf(
        "postgres: standby cloned in %d ms%n%s",
        (System.nanoTime() - cloneStart) / 1_000_000, bootstrap.output());
    assertThat(standbyData.resolve("standby.signal")).exists();
    startPostgres(standbyData, standbyPort);

    assertThat(psqlValue(standbyPort, "SELECT pg_is_in_recovery()")).isEqualTo("t");
    assertThat(psqlValue(standbyPort, "SELECT count(*) FROM orders")).isEqualTo("100");

    long writeTime = System.nanoTime();
    psql(
        primaryPort,
        "INSERT INTO orders SELECT g, 'after clone ' || g FROM generate_series(101, 250) g");
    await()
        .atMost(CATCH_UP)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> psqlValue(standbyPort, "SELECT count(*) FROM orders").equals("250"));
    System.out.printf(
        "postgres: standby caught up with 150 new rows in %d ms%n",
        (System.nanoTime() - writeTime) / 1_000_000);
    assertThat(
            psqlValue(
                primaryPort, "SELECT application_name || ' ' || state FROM pg_stat_replication"))
        .isEqualTo("orders-1 streaming");

    Result write = psqlResult(standbyPort, "INSERT INTO orders VALUES (999, 'on the standby')");
    assertThat(write.exit()).isNotZero();
    assertThat(write.output()).contains("cannot execute INSERT in a read-only transaction");

    // A restart keeps the standby: the script rewrites primary_conninfo and leaves the data alone.
    stopPostgres(standbyData);
    asPostgres(
            standbyEnv(primaryPort, standbyPort, standbyData),
            "bash",
            scripts.resolve("replica-bootstrap.sh").toString())
        .orFail("replica-bootstrap.sh on an existing standby");
    assertThat(Files.readString(standbyData.resolve("postgresql.auto.conf")))
        .containsOnlyOnce("primary_conninfo");
    startPostgres(standbyData, standbyPort);
    psql(primaryPort, "INSERT INTO orders VALUES (251, 'after restart')");
    await()
        .atMost(CATCH_UP)
        .until(() -> psqlValue(standbyPort, "SELECT count(*) FROM orders").equals("251"));

    // A password rotation as the operator applies it (role.sh credentials through pods/exec, the
    // primary first), with the servers running: the scripts reach their server over its socket,
    // since the environment's password is the old one from now on.
    String rotated =
        "username=cellar\npassword=cellar-pw-2\nreplication-user="
            + REPLICATION_USER
            + "\nreplication-password=rep-pw-2\n";
    Map<String, String> primaryRole = pgEnv(primaryPort);
    primaryRole.put("PGDATA", primaryData.toString());
    primaryRole.put("CELLAR_SOCKET_DIR", work.resolve("run").toString());
    Map<String, String> standbyRole = standbyEnv(primaryPort, standbyPort, standbyData);
    standbyRole.put("CELLAR_SOCKET_DIR", work.resolve("run").toString());
    String primaryStarted = psqlValue(primaryPort, "SELECT pg_postmaster_start_time()");
    assertThat(role(primaryRole, rotated).orFail("role.sh credentials").trimmed())
        .endsWith("applied role=primary");
    assertThat(psqlResult(primaryPort, "SELECT 1").output())
        .contains("password authentication failed");
    assertThat(psqlResult(primaryPort, "SELECT 1", "cellar-pw-2").orFail("new password").trimmed())
        .isEqualTo("1");
    assertThat(role(standbyRole, rotated).orFail("role.sh credentials on the standby").trimmed())
        .endsWith("applied role=replica");
    // The standby reconnects with the new replication password (the old one is refused now).
    await()
        .atMost(CATCH_UP)
        .until(
            () ->
                psqlResult(
                        primaryPort,
                        "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'",
                        "cellar-pw-2")
                    .trimmed()
                    .equals("1"));
    psqlResult(primaryPort, "INSERT INTO orders VALUES (252, 'after rotation')", "cellar-pw-2")
        .orFail("insert after rotation");
    await()
        .atMost(CATCH_UP)
        .until(
            () ->
                psqlResult(standbyPort, "SELECT count(*) FROM orders", "cellar-pw-2")
                    .trimmed()
                    .equals("252"));
    assertThat(
            psqlResult(primaryPort, "SELECT pg_postmaster_start_time()", "cellar-pw-2").trimmed())
        .as("no restart")
        .isEqualTo(primaryStarted);
    assertThat(Files.readString(standbyData.resolve("postgresql.auto.conf")))
        .containsOnlyOnce("primary_conninfo")
        .contains("rep-pw-2");
  }

  private Result role(Map<String, String> env, String stdin) {
    List<String> full =
        Scripts.list("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--");
    full.addAll(List.of("bash", work.resolve("etc-cellar/role.sh").toString(), "credentials"));
    return run(full, env, COMMAND, stdin);
  }

  /**
   * A failover and a rejoin with the scripts the operator runs (role.sh through pods/exec, the
   * entrypoint's replica-bootstrap.sh): the standby reports its position and is promoted while the
   * old primary still takes a write that never reaches it (timelines diverge); the old primary, now
   * labelled replica, is rewound onto the new timeline with pg_rewind, streams from the new
   * primary, and the diverged row is gone.
   */
  @Test
  void postgresStandbyIsPromotedAndTheOldPrimaryRewindsOntoIt() throws IOException {
    Path scripts = Scripts.materialize(Engine.POSTGRESQL, "15", work.resolve("etc-cellar"));
    int aPort = freePort();
    int bPort = freePort();
    Path aData = work.resolve("a/pgdata");
    Path bData = work.resolve("b/pgdata");
    mkdirsOwnedBy("postgres", work.resolve("a"), work.resolve("b"), work.resolve("run"));
    Path pwfile = work.resolve("run/pw");
    Files.writeString(pwfile, "cellar-pw\n");
    chown("postgres", pwfile);
    asPostgres(
            pgEnv(aPort),
            pgBin.resolve("initdb").toString(),
            "-D",
            aData.toString(),
            "--username=cellar",
            "--pwfile=" + pwfile,
            "--auth-local=trust",
            "--auth-host=scram-sha-256")
        .orFail("initdb");
    startPostgres(aData, aPort);
    Map<String, String> aEnv = pgEnv(aPort);
    aEnv.put("CELLAR_ROLE", "primary");
    aEnv.put("CELLAR_LOCAL_HOST", "127.0.0.1");
    aEnv.put("PGDATA", aData.toString());
    asPostgres(aEnv, "bash", scripts.resolve("primary-setup.sh").toString()).orFail("setup");
    psql(aPort, "CREATE TABLE orders (id int PRIMARY KEY, item text)");
    psql(aPort, "INSERT INTO orders SELECT g, 'first ' || g FROM generate_series(1, 100) g");
    asPostgres(
            standbyEnv(aPort, bPort, bData),
            "bash",
            scripts.resolve("replica-bootstrap.sh").toString())
        .orFail("clone b");
    startPostgres(bData, bPort);
    await()
        .atMost(CATCH_UP)
        .until(() -> psqlValue(bPort, "SELECT count(*) FROM orders").equals("100"));

    Map<String, String> bEnv = standbyEnv(aPort, bPort, bData);
    bEnv.put("CELLAR_LOCAL_HOST", "127.0.0.1");
    String position =
        asPostgres(bEnv, "bash", scripts.resolve("role.sh").toString(), "position")
            .orFail("role.sh position")
            .trimmed();
    assertThat(position).matches("(?s).*position=[0-9]+ role=replica$");
    assertThat(
            asPostgres(aEnv, "bash", scripts.resolve("role.sh").toString(), "position")
                .orFail("role.sh position on a")
                .trimmed())
        .endsWith("role=primary");

    // Replication lag as the operator polls it: 0 once the standby has replayed all it received;
    // with replay paused behind new WAL, the age of the last transaction it replayed; 0 again
    // once it catches up. A primary has none.
    List<String> lag = List.of("bash", scripts.resolve("role.sh").toString(), "lag");
    Supplier<String> standbyLag =
        () -> asPostgres(bEnv, lag.toArray(String[]::new)).orFail("role.sh lag").trimmed();
    await().atMost(CATCH_UP).until(() -> standbyLag.get().endsWith("lag=0 role=replica"));
    assertThat(asPostgres(aEnv, lag.toArray(String[]::new)).orFail("role.sh lag on a").trimmed())
        .endsWith("role=primary")
        .doesNotContain("lag=");
    // The age is that of the last transaction replayed: one replayed first (a standby fresh from
    // its clone has none, and says unknown while behind).
    psql(aPort, "INSERT INTO orders VALUES (199, 'before replay is paused')");
    await()
        .atMost(CATCH_UP)
        .until(() -> psqlValue(bPort, "SELECT count(*) FROM orders WHERE id = 199").equals("1"));
    psql(bPort, "SELECT pg_wal_replay_pause()");
    psql(aPort, "INSERT INTO orders VALUES (200, 'while replay is paused')");
    await()
        .atMost(CATCH_UP)
        .untilAsserted(
            () ->
                assertThat(standbyLag.get())
                    .matches("(?s).*lag=([2-9]|[1-9][0-9]+) role=replica$"));
    psql(bPort, "SELECT pg_wal_replay_resume()");
    await().atMost(CATCH_UP).until(() -> standbyLag.get().endsWith("lag=0 role=replica"));
    psql(aPort, "DELETE FROM orders WHERE id IN (199, 200)");

    // A switchover's demotion refuses writes and says where the standby must get to; taking it
    // back (promote on the primary) allows them again.
    String demoted =
        asPostgres(aEnv, "bash", scripts.resolve("role.sh").toString(), "demote")
            .orFail("role.sh demote")
            .trimmed();
    assertThat(demoted).matches("(?s).*position=[0-9]+ demoted$");
    long last = Long.parseLong(demoted.replaceAll("(?s).*position=([0-9]+) demoted$", "$1"));
    Result refused = psqlResult(aPort, "INSERT INTO orders VALUES (300, 'while demoted')");
    assertThat(refused.exit()).isNotZero();
    assertThat(refused.output()).contains("read-only transaction");
    await()
        .atMost(CATCH_UP)
        .until(
            () ->
                Long.parseLong(
                        asPostgres(bEnv, "bash", scripts.resolve("role.sh").toString(), "position")
                            .orFail("position")
                            .trimmed()
                            .replaceAll("(?s).*position=([0-9]+) role=replica$", "$1"))
                    >= last);
    assertThat(
            asPostgres(aEnv, "bash", scripts.resolve("role.sh").toString(), "promote")
                .orFail("role.sh promote on the demoted primary")
                .trimmed())
        .endsWith("promoted");
    psql(aPort, "INSERT INTO orders VALUES (300, 'after the demotion was taken back')");
    await()
        .atMost(CATCH_UP)
        .until(() -> psqlValue(bPort, "SELECT count(*) FROM orders").equals("101"));

    long promoteStart = System.nanoTime();
    assertThat(
            asPostgres(bEnv, "bash", scripts.resolve("role.sh").toString(), "promote")
                .orFail("role.sh promote")
                .trimmed())
        .endsWith("promoted");
    System.out.printf(
        "postgres: standby promoted in %d ms%n", (System.nanoTime() - promoteStart) / 1_000_000);
    assertThat(psqlValue(bPort, "SELECT pg_is_in_recovery()")).isEqualTo("f");
    psql(bPort, "INSERT INTO orders VALUES (201, 'on the new primary')");
    // The old primary takes a write the new one never sees, then goes away.
    psql(aPort, "INSERT INTO orders VALUES (666, 'diverged')");
    stopPostgres(aData);

    // The old primary's pod comes back labelled replica: rewound, not cloned.
    Map<String, String> rejoin = standbyEnv(bPort, aPort, aData);
    rejoin.put("POD_NAME", "orders-0");
    rejoin.put("CELLAR_ROLE", "replica");
    long rewindStart = System.nanoTime();
    Result rewound =
        asPostgres(rejoin, "bash", scripts.resolve("replica-bootstrap.sh").toString())
            .orFail("replica-bootstrap.sh on the old primary");
    System.out.printf(
        "postgres: old primary rewound in %d ms%n%s",
        (System.nanoTime() - rewindStart) / 1_000_000, rewound.output());
    assertThat(rewound.output()).contains("rewinding it onto").contains("is rewound onto");
    assertThat(aData.resolve("standby.signal")).exists();
    startPostgres(aData, aPort);
    psql(bPort, "INSERT INTO orders VALUES (202, 'after the rejoin')");
    await()
        .atMost(CATCH_UP)
        .until(() -> psqlValue(aPort, "SELECT count(*) FROM orders WHERE id = 202").equals("1"));
    assertThat(psqlValue(aPort, "SELECT pg_is_in_recovery()")).isEqualTo("t");
    assertThat(psqlValue(aPort, "SELECT count(*) FROM orders WHERE id = 666")).isEqualTo("0");
    assertThat(psqlValue(aPort, "SELECT count(*) FROM orders")).isEqualTo("103");
  }

  private Map<String, String> pgEnv(int port) {
    Map<String, String> env = new HashMap<>(Scripts.cleanEnv());
    env.put("PATH", pgBin + ":" + System.getenv("PATH"));
    env.put("HOME", work.toString());
    env.put("CELLAR_PORT", String.valueOf(port));
    env.put("POSTGRES_USER", "cellar");
    env.put("POSTGRES_PASSWORD", "cellar-pw");
    env.put("CELLAR_REPLICATION_USER", REPLICATION_USER);
    env.put("CELLAR_REPLICATION_PASSWORD", REPLICATION_PASSWORD);
    env.put("CELLAR_MONITORING_USER", MONITORING_USER);
    env.put("CELLAR_MONITORING_PASSWORD", MONITORING_PASSWORD);
    return env;
  }

  /** The monitoring account's password in the client's variable ({@code PGPASSWORD}, ...). */
  private static Map<String, String> monitorEnv(String variable) {
    Map<String, String> env = new HashMap<>(Scripts.cleanEnv());
    env.put(variable, MONITORING_PASSWORD);
    return env;
  }

  private Map<String, String> standbyEnv(int primaryPort, int standbyPort, Path data) {
    Map<String, String> env = pgEnv(standbyPort);
    env.put("POD_NAME", "orders-1");
    env.put("CELLAR_PRIMARY_HOST", "127.0.0.1");
    env.put("CELLAR_PRIMARY_PORT", String.valueOf(primaryPort));
    env.put("PGDATA", data.toString());
    env.put("CELLAR_WAIT_SECONDS", "60");
    return env;
  }

  private void startPostgres(Path data, int port) {
    // The profile's server settings, as the pod passes them; loopback and a private socket here.
    List<String> options =
        new ArrayList<>(new PostgresProfile().args(Scripts.db(Engine.POSTGRESQL, "15")));
    options.addAll(
        List.of(
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "unix_socket_directories=" + work.resolve("run"),
            "-p",
            String.valueOf(port)));
    StringBuilder quoted = new StringBuilder();
    options.forEach(o -> quoted.append('\'').append(o).append("' "));
    Path log = data.getParent().resolve("server.log");
    Result started =
        asPostgres(
            pgEnv(port),
            pgBin.resolve("pg_ctl").toString(),
            "-D",
            data.toString(),
            "-l",
            log.toString(),
            "-o",
            quoted.toString(),
            "-w",
            "-t",
            "60",
            "start");
    if (started.exit() != 0) {
      fail("pg_ctl start " + data + " failed:\n" + started.output() + "\n" + readLog(log));
    }
    cleanups.add(() -> stopPostgres(data));
  }

  private void stopPostgres(Path data) {
    if (Files.exists(data.resolve("postmaster.pid"))) {
      asPostgres(
          pgEnv(0),
          pgBin.resolve("pg_ctl").toString(),
          "-D",
          data.toString(),
          "-m",
          "fast",
          "-w",
          "stop");
    }
  }

  private Result psqlResult(int port, String sql) {
    return psqlResult(port, sql, "cellar-pw");
  }

  private Result psqlResult(int port, String sql, String password) {
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
            "postgres",
            "-c",
            sql),
        env,
        COMMAND);
  }

  private void psql(int port, String sql) {
    psqlResult(port, sql).orFail("psql " + sql);
  }

  private String psqlValue(int port, String sql) {
    return psqlResult(port, sql).orFail("psql " + sql).trimmed();
  }

  private Result asPostgres(Map<String, String> env, String... command) {
    List<String> full =
        Scripts.list("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--");
    full.addAll(List.of(command));
    return run(full, env, COMMAND);
  }

  // ---------------------------------------------------------------------------------------------
  // MariaDB

  @Test
  void mariadbReplicasFollowThePrimaryWithGtid() throws IOException {
    Path scripts = Scripts.materialize(Engine.MARIADB, "10.11", work.resolve("etc-cellar"));
    Mariadb primary = startMariadb(scripts, 0);
    Map<String, String> primaryEnv = primary.env();
    run(List.of("bash", scripts.resolve("primary-setup.sh").toString()), primaryEnv, COMMAND)
        .orFail("primary-setup.sh");
    run(List.of("bash", scripts.resolve("primary-setup.sh").toString()), primaryEnv, COMMAND)
        .orFail("primary-setup.sh again");
    assertThat(primary.sql("SHOW GRANTS FOR 'replicator'@'%'")).contains("REPLICATION SLAVE");
    // The exporter's account: what mysqld_exporter reads and nothing more.
    assertThat(primary.sql("SHOW GRANTS FOR 'cellar_monitor'@'%'"))
        .contains("PROCESS", "SLAVE MONITOR", "`performance_schema`.*")
        .doesNotContain("ALL PRIVILEGES", "SUPER");
    assertThat(
            run(
                    List.of(
                        "mariadb",
                        "-u" + MONITORING_USER,
                        "--protocol=tcp",
                        "-h127.0.0.1",
                        "-P" + primary.port,
                        "--batch",
                        "--skip-column-names",
                        "-e",
                        "SELECT CURRENT_USER()"),
                    monitorEnv("MYSQL_PWD"),
                    COMMAND)
                .orFail("mariadb as the monitoring account")
                .trimmed())
        .isEqualTo("cellar_monitor@%");

    primary.app("CREATE TABLE orders (id int PRIMARY KEY, item varchar(100))");
    primary.app("INSERT INTO orders VALUES (1, 'first'), (2, 'second')");

    // Replica 1 joins a young primary.
    Mariadb replica1 = startMariadb(scripts, 1);
    String healthcheck1 =
        replica1.sql("SELECT authentication_string FROM mysql.user WHERE user = 'healthcheck'");
    long seedStart = System.nanoTime();
    Result bootstrap =
        run(
                List.of("bash", scripts.resolve("replica-bootstrap.sh").toString()),
                replica1.replicaEnv(primary),
                COMMAND)
            .orFail("replica-bootstrap.sh");
    System.out.printf(
        "mariadb: replica 1 seeded and replicating in %d ms%n%s",
        (System.nanoTime() - seedStart) / 1_000_000, bootstrap.output());
    assertThat(replica1.app("SELECT count(*) FROM orders")).isEqualTo("2");
    // The exporter's account came with the primary's accounts.
    assertThat(replica1.sql("SHOW GRANTS FOR 'cellar_monitor'@'%'")).contains("PROCESS");

    long writeTime = System.nanoTime();
    primary.app("INSERT INTO orders VALUES (3, 'third')");
    await()
        .atMost(CATCH_UP)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> replica1.app("SELECT count(*) FROM orders").equals("3"));
    System.out.printf(
        "mariadb: replica 1 caught up in %d ms%n", (System.nanoTime() - writeTime) / 1_000_000);

    assertThat(replica1.status())
        .contains("Slave_IO_Running: Yes", "Slave_SQL_Running: Yes", "Using_Gtid: Slave_Pos");
    assertThat(replica1.sql("SELECT @@read_only, @@server_id")).isEqualTo("1\t2");
    Result write = replica1.appResult("INSERT INTO orders VALUES (99, 'on the replica')");
    assertThat(write.exit()).isNotZero();
    assertThat(write.output()).contains("read-only");
    // The replica's own healthcheck account kept its password (the image's probe reads it).
    assertThat(
            replica1.sql("SELECT authentication_string FROM mysql.user WHERE user = 'healthcheck'"))
        .isEqualTo(healthcheck1);

    // Replica 2 joins a populated primary whose old binary logs are purged: it is seeded from a
    // dump (accounts included) and replicates from the dump's GTID position.
    primary.sql(
        "CREATE USER 'reporter'@'%' IDENTIFIED BY 'rep'; GRANT SELECT ON app.* TO 'reporter'@'%'");
    primary.app("INSERT INTO orders SELECT seq, CONCAT('bulk ', seq) FROM seq_100_to_5000");
    primary.sql("FLUSH BINARY LOGS");
    // A log that a connected replica still reads is kept: purge once replica 1 has moved on.
    await()
        .atMost(CATCH_UP)
        .until(
            () -> {
              primary.sql("PURGE BINARY LOGS TO 'binlog.000002'");
              return !primary.sql("SHOW BINARY LOGS").contains("binlog.000001");
            });
    Mariadb replica2 = startMariadb(scripts, 2);
    run(
            List.of("bash", scripts.resolve("replica-bootstrap.sh").toString()),
            replica2.replicaEnv(primary),
            COMMAND)
        .orFail("replica-bootstrap.sh for a populated primary");
    primary.app("INSERT INTO orders VALUES (6000, 'after the seed')");
    for (Mariadb replica : List.of(replica1, replica2)) {
      await()
          .atMost(CATCH_UP)
          .until(() -> replica.app("SELECT count(*) FROM orders").equals("4905"));
    }
    assertThat(replica2.sql("SHOW GRANTS FOR 'reporter'@'%'")).contains("GRANT SELECT ON `app`.*");

    // Bootstrap again (a restart with a changed primary address or account): no new seed.
    Result rerun =
        run(
                List.of("bash", scripts.resolve("replica-bootstrap.sh").toString()),
                replica2.replicaEnv(primary),
                COMMAND)
            .orFail("replica-bootstrap.sh again");
    assertThat(rerun.output()).doesNotContain("seeding").contains("replicating from");
    primary.app("INSERT INTO orders VALUES (6001, 'after the re-run')");
    await()
        .atMost(CATCH_UP)
        .until(() -> replica2.app("SELECT count(*) FROM orders").equals("4906"));

    // A password rotation as the operator applies it (role.sh credentials on every server through
    // pods/exec, the primary first), with the servers running: the application's old password is
    // refused everywhere, the new one works, and the replicas replicate with the new replication
    // password (the old one no longer opens the primary).
    String rotated =
        "username=app\npassword=app-pw-2\nreplication-user="
            + REPLICATION_USER
            + "\nreplication-password=rep-pw-2\n";
    String started =
        primary.sql(
            "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
                + " WHERE VARIABLE_NAME = 'UPTIME'");
    for (Mariadb server : List.of(primary, replica1, replica2)) {
      Map<String, String> env = server == primary ? server.env() : server.replicaEnv(primary);
      Result applied =
          run(
                  List.of("bash", scripts.resolve("role.sh").toString(), "credentials"),
                  env,
                  COMMAND,
                  rotated)
              .orFail("role.sh credentials on server " + server.ordinal);
      assertThat(applied.trimmed())
          .endsWith("applied role=" + (server == primary ? "primary" : "replica"));
      assertThat(server.appResult("SELECT 1").output()).contains("Access denied");
      assertThat(server.appResult("SELECT 1", "app-pw-2").orFail("new password").trimmed())
          .isEqualTo("1");
    }
    primary
        .appResult("INSERT INTO orders VALUES (6002, 'after rotation')", "app-pw-2")
        .orFail("insert after rotation");
    for (Mariadb replica : List.of(replica1, replica2)) {
      await()
          .atMost(CATCH_UP)
          .until(
              () ->
                  replica
                      .appResult("SELECT count(*) FROM orders", "app-pw-2")
                      .trimmed()
                      .equals("4907"));
      assertThat(replica.status()).contains("Slave_IO_Running: Yes", "Slave_SQL_Running: Yes");
    }
    assertThat(
            Long.parseLong(
                primary.sql(
                    "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
                        + " WHERE VARIABLE_NAME = 'UPTIME'")))
        .as("no restart")
        .isGreaterThanOrEqualTo(Long.parseLong(started));
  }

  /**
   * A failover and a rejoin with the scripts the operator runs: the replica reports its GTID
   * position and is promoted (relay log applied, replication forgotten, writes allowed); the old
   * primary takes a write the new one never sees, so rejoining it by GTID is refused (the new
   * primary's GTID state lacks its position) and it is seeded afresh from the new primary: the
   * diverged row is gone.
   */
  @Test
  void mariadbReplicaIsPromotedAndADivergedOldPrimaryIsSeededAfresh() throws IOException {
    Path scripts = Scripts.materialize(Engine.MARIADB, "10.11", work.resolve("etc-cellar"));
    Mariadb a = startMariadb(scripts, 0);
    run(List.of("bash", scripts.resolve("primary-setup.sh").toString()), a.env(), COMMAND)
        .orFail("primary-setup.sh");
    a.app("CREATE TABLE orders (id int PRIMARY KEY, item varchar(100))");
    a.app("INSERT INTO orders VALUES (1, 'first'), (2, 'second')");
    Mariadb b = startMariadb(scripts, 1);
    run(
            List.of("bash", scripts.resolve("replica-bootstrap.sh").toString()),
            b.replicaEnv(a),
            COMMAND)
        .orFail("replica-bootstrap.sh");
    a.app("INSERT INTO orders VALUES (3, 'third')");
    await().atMost(CATCH_UP).until(() -> b.app("SELECT count(*) FROM orders").equals("3"));

    String position =
        run(List.of("bash", scripts.resolve("role.sh").toString(), "position"), b.env(), COMMAND)
            .orFail("role.sh position")
            .trimmed();
    assertThat(position).matches("(?s).*position=[0-9]+ role=replica$");
    // Replication lag as the operator polls it: the server's own seconds behind, unknown while
    // its SQL thread is stopped; a server without a source is a primary.
    List<String> lag = List.of("bash", scripts.resolve("role.sh").toString(), "lag");
    assertThat(run(lag, b.env(), COMMAND).orFail("role.sh lag").trimmed())
        .isEqualTo("lag=0 role=replica");
    assertThat(run(lag, a.env(), COMMAND).orFail("role.sh lag on a").trimmed())
        .isEqualTo("role=primary");
    b.sql("STOP SLAVE SQL_THREAD");
    assertThat(run(lag, b.env(), COMMAND).orFail("role.sh lag, SQL thread stopped").trimmed())
        .isEqualTo("lag=unknown role=replica");
    // A transaction received but not applied yet counts: a semi-synchronous commit is acknowledged
    // once a replica's relay log has it, and a promotion applies the relay log first.
    List<String> positionCommand =
        List.of("bash", scripts.resolve("role.sh").toString(), "position");
    long applied =
        Long.parseLong(
            run(positionCommand, b.env(), COMMAND)
                .orFail("role.sh position")
                .trimmed()
                .replaceAll("(?s).*position=([0-9]+) role=replica$", "$1"));
    a.app("INSERT INTO orders VALUES (10, 'received, not applied')");
    await()
        .atMost(CATCH_UP)
        .until(
            () ->
                run(positionCommand, b.env(), COMMAND)
                    .orFail("role.sh position")
                    .trimmed()
                    .endsWith("position=" + (applied + 1) + " role=replica"));
    assertThat(b.app("SELECT count(*) FROM orders WHERE id = 10")).isEqualTo("0");
    b.sql("START SLAVE SQL_THREAD");
    await()
        .atMost(CATCH_UP)
        .until(
            () -> run(lag, b.env(), COMMAND).orFail("lag").trimmed().equals("lag=0 role=replica"));
    long promoteStart = System.nanoTime();
    assertThat(
            run(List.of("bash", scripts.resolve("role.sh").toString(), "promote"), b.env(), COMMAND)
                .orFail("role.sh promote")
                .trimmed())
        .endsWith("promoted");
    System.out.printf(
        "mariadb: replica promoted in %d ms%n", (System.nanoTime() - promoteStart) / 1_000_000);
    assertThat(b.sql("SELECT @@read_only")).isEqualTo("0");
    assertThat(b.status()).doesNotContain("Slave_IO_Running");
    b.app("INSERT INTO orders VALUES (4, 'on the new primary')");
    a.app("INSERT INTO orders VALUES (666, 'diverged')");

    Map<String, String> rejoin = a.replicaEnv(b);
    rejoin.put("CELLAR_ROLE", "replica");
    rejoin.put("CELLAR_REJOIN", "1");
    rejoin.put("CELLAR_REJOIN_SECONDS", "15");
    Result rejoined =
        run(List.of("bash", scripts.resolve("replica-bootstrap.sh").toString()), rejoin, COMMAND)
            .orFail("replica-bootstrap.sh on the old primary");
    System.out.println(rejoined.output());
    // Told by the new primary's GTID state, before replication connects (see dialect.sh).
    assertThat(rejoined.output())
        .contains("rejoining")
        .contains("has transactions the new primary lacks")
        .contains("seeding it from the primary");
    b.app("INSERT INTO orders VALUES (5, 'after the rejoin')");
    await()
        .atMost(CATCH_UP)
        .until(() -> a.app("SELECT count(*) FROM orders WHERE id = 5").equals("1"));
    assertThat(a.app("SELECT count(*) FROM orders WHERE id = 666")).isEqualTo("0");
    assertThat(a.app("SELECT count(*) FROM orders")).isEqualTo("6"); // 1 to 5 and 10

    // The readiness probe's replication half: a primary and an applying replica pass; a replica
    // whose SQL thread stopped on an error (a row it has that the primary then writes) fails,
    // naming the error.
    List<String> replicating =
        List.of("bash", scripts.resolve("role.sh").toString(), "replicating");
    assertThat(run(replicating, b.env(), COMMAND).orFail("replicating on b").trimmed())
        .isEqualTo("replicating=none");
    assertThat(run(replicating, a.env(), COMMAND).orFail("replicating on a").trimmed())
        .isEqualTo("replicating=Yes");
    a.sql("SET SESSION sql_log_bin = 0; INSERT INTO app.orders VALUES (6, 'only here')");
    b.app("INSERT INTO orders VALUES (6, 'on the primary')");
    await()
        .atMost(CATCH_UP)
        .untilAsserted(
            () -> {
              Result broken = run(replicating, a.env(), COMMAND);
              assertThat(broken.exit()).isEqualTo(1);
              assertThat(broken.output())
                  .contains("its SQL thread is not running")
                  .contains("Duplicate entry '6'");
            });
  }

  /** One mariadbd on loopback, initialised as the official image does. */
  private final class Mariadb {
    final int ordinal;
    final int port;
    final Path dir;

    Mariadb(int ordinal, int port, Path dir) {
      this.ordinal = ordinal;
      this.port = port;
      this.dir = dir;
    }

    Path socket() {
      return dir.resolve("mysqld.sock");
    }

    Map<String, String> env() {
      Map<String, String> env = new HashMap<>(Scripts.cleanEnv());
      env.put("HOME", work.toString());
      env.put("CELLAR_ORDINAL", String.valueOf(ordinal));
      env.put("CELLAR_PORT", String.valueOf(port));
      env.put("CELLAR_LOCAL_HOST", "127.0.0.1");
      env.put("MARIADB_ROOT_PASSWORD", ROOT_PASSWORD);
      env.put("CELLAR_REPLICATION_USER", REPLICATION_USER);
      env.put("CELLAR_REPLICATION_PASSWORD", REPLICATION_PASSWORD);
      env.put("CELLAR_MONITORING_USER", MONITORING_USER);
      env.put("CELLAR_MONITORING_PASSWORD", MONITORING_PASSWORD);
      return env;
    }

    Map<String, String> replicaEnv(Mariadb primary) {
      Map<String, String> env = env();
      env.put("CELLAR_PRIMARY_HOST", "127.0.0.1");
      env.put("CELLAR_PRIMARY_PORT", String.valueOf(primary.port));
      env.put("CELLAR_WAIT_SECONDS", "60");
      return env;
    }

    /** As root over the socket. */
    String sql(String sql) {
      return sqlResult(sql).orFail("mariadb " + sql).trimmed();
    }

    Result sqlResult(String sql) {
      Map<String, String> env = new HashMap<>(Scripts.cleanEnv());
      env.put("MYSQL_PWD", ROOT_PASSWORD);
      return run(
          List.of(
              "mariadb",
              "-uroot",
              "--socket=" + socket(),
              "--batch",
              "--skip-column-names",
              "-e",
              sql),
          env,
          COMMAND);
    }

    String status() {
      Map<String, String> env = new HashMap<>(Scripts.cleanEnv());
      env.put("MYSQL_PWD", ROOT_PASSWORD);
      return run(
              List.of("mariadb", "-uroot", "--socket=" + socket(), "-e", "SHOW SLAVE STATUS\\G"),
              env,
              COMMAND)
          .orFail("SHOW SLAVE STATUS")
          .output();
    }

    /** As the application's user over TCP, in the app database. */
    String app(String sql) {
      return appResult(sql).orFail("mariadb app " + sql).trimmed();
    }

    Result appResult(String sql) {
      return appResult(sql, APP_PASSWORD);
    }

    Result appResult(String sql, String password) {
      Map<String, String> env = new HashMap<>(Scripts.cleanEnv());
      env.put("MYSQL_PWD", password);
      return run(
          List.of(
              "mariadb",
              "-uapp",
              "--protocol=tcp",
              "-h127.0.0.1",
              "-P" + port,
              "--batch",
              "--skip-column-names",
              "app",
              "-e",
              sql),
          env,
          COMMAND);
    }
  }

  private Mariadb startMariadb(Path scripts, int ordinal) throws IOException {
    Mariadb server = new Mariadb(ordinal, freePort(), work.resolve("mariadb-" + ordinal));
    mkdirsOwnedBy("mysql", server.dir);
    Path cnf = writeMariadbCnf(server, scripts);
    run(
            List.of(
                "mariadb-install-db",
                "--defaults-file=" + cnf,
                "--user=mysql",
                "--auth-root-authentication-method=normal",
                "--skip-test-db"),
            Map.of(),
            COMMAND)
        .orFail("mariadb-install-db");
    List<String> command =
        Scripts.list("/usr/sbin/mariadbd", "--defaults-file=" + cnf, "--user=mysql");
    // server_id and, on replicas, read_only: as the entrypoint passes them.
    Map<String, String> env = server.env();
    command.addAll(
        run(List.of("bash", scripts.resolve("server-args.sh").toString()), env, COMMAND)
            .orFail("server-args.sh")
            .trimmed()
            .lines()
            .toList());
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(server.dir.resolve("stdout.log").toFile())
            .start();
    cleanups.add(
        () -> {
          process.destroy();
          try {
            process.waitFor();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    await()
        .atMost(Duration.ofSeconds(60))
        .failFast(
            "mariadbd exited; see " + server.dir.resolve("error.log"), () -> !process.isAlive())
        .until(
            () ->
                run(
                            List.of(
                                "mariadb",
                                "-uroot",
                                "--socket=" + server.socket(),
                                "-e",
                                "SELECT 1"),
                            Scripts.cleanEnv(),
                            COMMAND)
                        .exit()
                    == 0);
    run(
            List.of("mariadb", "-uroot", "--socket=" + server.socket()),
            Scripts.cleanEnv(),
            COMMAND,
            mariadbImageInitSql(ordinal))
        .orFail("image-like initialisation of mariadb " + ordinal);
    return server;
  }

  /** The server's options file: loopback, its own paths, and the profile's cellar.cnf. */
  private static Path writeMariadbCnf(Mariadb server, Path scripts) throws IOException {
    // The profile's cellar.cnf, as the image includes it from /etc/mysql/conf.d.
    Path cnf = server.dir.resolve("my.cnf");
    Files.writeString(
        cnf,
        String.join(
                "\n",
                "[mysqld]",
                "datadir = " + server.dir.resolve("data"),
                "socket = " + server.socket(),
                "port = " + server.port,
                "bind-address = 127.0.0.1",
                "pid-file = " + server.dir.resolve("mysqld.pid"),
                "log-error = " + server.dir.resolve("error.log"),
                "innodb_buffer_pool_size = 32M",
                "!include " + scripts.resolve("cellar.cnf"))
            + "\n");
    return cnf;
  }

  /**
   * What the official image's entrypoint does on first start: secures the system accounts
   * (unlogged), sets root's password, creates the healthcheck account (a random password per
   * server) and the application's database and user.
   */
  private static String mariadbImageInitSql(int ordinal) {
    String escapedRoot = ROOT_PASSWORD.replace("'", "\\'");
    String healthcheck = "hc-" + ordinal + "-" + System.nanoTime();
    return String.join(
        "\n",
        "SET @@SESSION.SQL_LOG_BIN=0;",
        "DROP USER IF EXISTS root@'127.0.0.1', root@'::1';",
        "EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS root@\\'', @@hostname,'\\'');",
        "DROP USER IF EXISTS 'mysql'@'localhost';",
        "ALTER USER root@localhost IDENTIFIED BY '" + escapedRoot + "';",
        "CREATE USER root@'%' IDENTIFIED BY '" + escapedRoot + "';",
        "GRANT ALL ON *.* TO root@'%' WITH GRANT OPTION;",
        "CREATE USER healthcheck@'localhost' IDENTIFIED BY '" + healthcheck + "';",
        "SET @@SESSION.SQL_LOG_BIN=1;",
        "CREATE DATABASE IF NOT EXISTS app;",
        "CREATE USER 'app'@'%' IDENTIFIED BY '" + APP_PASSWORD + "';",
        "GRANT ALL ON app.* TO 'app'@'%';");
  }

  // ---------------------------------------------------------------------------------------------
  // entrypoint.sh, the in-container path, with a stand-in for the image's docker-entrypoint.sh
  // that initialises an empty data directory with a temporary server (on the same socket, as the
  // official images do) and then execs the server.

  private static final String FAKE_POSTGRES_IMAGE =
      """
      #!/usr/bin/env bash
      set -euo pipefail
      [ "$1" = postgres ] && shift
      if [ ! -s "$PGDATA/PG_VERSION" ]; then
        initdb -D "$PGDATA" --username="$POSTGRES_USER" --pwfile=<(printf '%s\\n' "$POSTGRES_PASSWORD") \\
          --auth-local=trust --auth-host=scram-sha-256 >/dev/null
        printf 'host all all all scram-sha-256\\n' >>"$PGDATA/pg_hba.conf"
        pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories=$CELLAR_SOCKET_DIR" -w start
        sleep 2 # a slow init: the entrypoint must wait for the real server, not this one
        psql -X -h "$CELLAR_SOCKET_DIR" -U "$POSTGRES_USER" -d postgres -c 'CREATE DATABASE app'
        pg_ctl -D "$PGDATA" -m fast -w stop
      fi
      exec postgres -D "$PGDATA" "$@"
      """;

  @Test
  void postgresEntrypointSetsUpThePrimaryAndClonesTheStandby() throws IOException {
    Path scripts = Scripts.materialize(Engine.POSTGRESQL, "15", work.resolve("etc-cellar"));
    Path image = work.resolve("docker-entrypoint.sh");
    Files.writeString(image, FAKE_POSTGRES_IMAGE);
    image.toFile().setExecutable(true, false);
    image.toFile().setReadable(true, false);
    mkdirsOwnedBy("postgres", work.resolve("pod-0"), work.resolve("pod-1"));
    int primaryPort = freePort();
    int standbyPort = freePort();

    Map<String, String> primaryEnv = podEnv("orders-0", primaryPort, image);
    Background primary = startEntrypoint(scripts, primaryEnv, work.resolve("pod-0/entrypoint.log"));
    awaitPostgres(primaryPort, primary);
    assertThat(primary.log())
        .contains("starting postgres on its socket only for primary-setup.sh")
        .contains("replication role 'replicator' is ready on the primary")
        .contains("starting postgres as primary");
    assertThat(work.resolve("pod-0/pgdata/cellar-primary.done")).exists();
    psql(primaryPort, "CREATE TABLE orders (id int PRIMARY KEY)");
    psql(primaryPort, "INSERT INTO orders SELECT generate_series(1, 10)");

    Map<String, String> standbyEnv = podEnv("orders-1", standbyPort, image);
    standbyEnv.put("CELLAR_PRIMARY_HOST", "127.0.0.1");
    standbyEnv.put("CELLAR_PRIMARY_PORT", String.valueOf(primaryPort));
    Background standby = startEntrypoint(scripts, standbyEnv, work.resolve("pod-1/entrypoint.log"));
    awaitPostgres(standbyPort, standby);
    assertThat(standby.log()).contains("cloning this standby from 127.0.0.1:" + primaryPort);
    psql(primaryPort, "INSERT INTO orders SELECT generate_series(11, 20)");
    await()
        .atMost(CATCH_UP)
        .until(() -> psqlValue(standbyPort, "SELECT count(*) FROM orders").equals("20"));
    assertThat(psqlResult(standbyPort, "DELETE FROM orders").output())
        .contains("read-only transaction");

    // A restart of the primary skips the setup (its fingerprint matches); the standby reconnects.
    primary.stop("INT");
    primary = startEntrypoint(scripts, primaryEnv, work.resolve("pod-0/entrypoint-2.log"));
    awaitPostgres(primaryPort, primary);
    assertThat(primary.log())
        .doesNotContain("socket only")
        .contains("starting postgres as primary");
    psql(primaryPort, "INSERT INTO orders VALUES (21)");
    await()
        .atMost(CATCH_UP)
        .until(() -> psqlValue(standbyPort, "SELECT count(*) FROM orders").equals("21"));
  }

  private Map<String, String> podEnv(String podName, int port, Path image) {
    Map<String, String> env = pgEnv(port);
    Path pod = work.resolve("pod-" + podName.substring(podName.lastIndexOf('-') + 1));
    env.put("POD_NAME", podName);
    env.put("PGDATA", pod.resolve("pgdata").toString());
    env.put("PGPORT", String.valueOf(port));
    env.put("CELLAR_SOCKET_DIR", pod.toString());
    env.put("CELLAR_IMAGE_ENTRYPOINT", image.toString());
    env.put("CELLAR_WAIT_SECONDS", "60");
    return env;
  }

  private Background startEntrypoint(Path scripts, Map<String, String> env, Path log)
      throws IOException {
    List<String> command =
        Scripts.list(
            "setpriv",
            "--reuid=postgres",
            "--regid=postgres",
            "--init-groups",
            "--",
            "bash",
            scripts.resolve("entrypoint.sh").toString());
    command.addAll(new PostgresProfile().args(Scripts.db(Engine.POSTGRESQL, "15")));
    command.addAll(
        List.of(
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "unix_socket_directories=" + env.get("CELLAR_SOCKET_DIR")));
    return Background.start(command, env, log, cleanups);
  }

  private void awaitPostgres(int port, Background server) {
    awaitEntrypoint(
        server,
        "postgres on port " + port,
        () ->
            run(
                        List.of(
                            pgBin.resolve("pg_isready").toString(),
                            "-q",
                            "-h",
                            "127.0.0.1",
                            "-p",
                            String.valueOf(port)),
                        Map.of(),
                        COMMAND)
                    .exit()
                == 0);
  }

  /**
   * Waits up to 90 s for {@code up}: fails at once if the entrypoint exits, and names {@code what}
   * with the entrypoint's log if it is not up in time.
   */
  private static void awaitEntrypoint(Background pod, String what, Callable<Boolean> up) {
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .failFast(
              "entrypoint.sh exited",
              () -> {
                if (!pod.process().isAlive()) {
                  fail("entrypoint.sh exited:\n" + pod.log());
                }
                return false;
              })
          .until(up);
    } catch (ConditionTimeoutException e) {
      fail(what + " not up within 90 s; its entrypoint said:\n" + pod.log());
    }
  }

  private static final String FAKE_MARIADB_IMAGE =
      """
      #!/usr/bin/env bash
      set -euo pipefail
      server=$1
      shift
      if [ ! -d "$CELLAR_DATA_DIR/mysql" ]; then
        mariadb-install-db "$1" --user=mysql --auth-root-authentication-method=normal --skip-test-db >/dev/null
        "$server" "$@" --skip-networking &
        pid=$!
        until mariadb -uroot --socket="$FAKE_SOCKET" -e 'SELECT 1' >/dev/null 2>&1; do sleep 0.2; done
        sleep 2 # a slow init: the entrypoint must wait for the real server, not this one
        mariadb -uroot --socket="$FAKE_SOCKET" <"$FAKE_INIT_SQL"
        MYSQL_PWD=$MARIADB_ROOT_PASSWORD mariadb-admin -uroot --socket="$FAKE_SOCKET" shutdown
        wait "$pid"
      fi
      exec "$server" "$@"
      """;

  /**
   * Both replication modes. With sync (semi-sync), a logged write on a primary without a replica
   * waits for one: the primary's set-up without networking must not wait (it did, and the first pod
   * of a sync Database never became ready), nor a replica's applier, which waited for
   * acknowledgements of its own while semi-sync was on in every pod.
   */
  @ParameterizedTest
  @EnumSource(ReplicationMode.class)
  void mariadbEntrypointSetsUpThePrimaryAndSeedsTheReplica(ReplicationMode mode)
      throws IOException {
    Database db = Scripts.db(Engine.MARIADB, "10.11");
    db.getSpec().setReplicas(2);
    db.getSpec().setReplication(new ReplicationSpec(mode));
    Path scripts = Scripts.materialize(db, work.resolve("etc-cellar"));
    Path image = work.resolve("docker-entrypoint.sh");
    Files.writeString(image, FAKE_MARIADB_IMAGE);
    image.toFile().setExecutable(true, false);
    boolean sync = mode == ReplicationMode.SYNC;
    Map<String, String> modeEnv = sync ? Map.of("CELLAR_REPLICATION_MODE", "sync") : Map.of();

    Mariadb primary = new Mariadb(0, freePort(), work.resolve("mariadb-0"));
    Background primaryPod = startMariadbEntrypoint(scripts, image, primary, null, modeEnv);
    awaitMariadb(primary, primaryPod);
    assertThat(primaryPod.log())
        .contains("starting mariadbd without networking for primary-setup.sh")
        .contains("replication account 'replicator' is ready on the primary")
        .contains(
            "starting mariadbd as primary (--server-id=1"
                + (sync ? " --rpl-semi-sync-master-enabled=ON)" : ")"));
    assertThat(primary.sql("SELECT @@rpl_semi_sync_master_enabled")).isEqualTo(sync ? "1" : "0");
    // The first commits wait for a replica in sync mode: made in the background.
    CompletableFuture<Void> writes =
        CompletableFuture.runAsync(
            () -> {
              primary.app("CREATE TABLE orders (id int PRIMARY KEY)");
              primary.app("INSERT INTO orders VALUES (1), (2)");
            });

    Mariadb replica = new Mariadb(1, freePort(), work.resolve("mariadb-1"));
    Background replicaPod = startMariadbEntrypoint(scripts, image, replica, primary, modeEnv);
    awaitMariadb(replica, replicaPod);
    await().atMost(CATCH_UP).until(writes::isDone);
    writes.join();
    assertThat(replica.sql("SELECT @@rpl_semi_sync_master_enabled")).isEqualTo("0");
    assertThat(replica.sql("SELECT @@rpl_semi_sync_slave_enabled")).isEqualTo(sync ? "1" : "0");
    assertThat(replicaPod.log())
        .contains("starting mariadbd without networking for replica-bootstrap.sh")
        .contains("seeded 1 database(s) (app)")
        .contains("starting mariadbd as replica (--server-id=2 --read-only)");
    if (sync) {
      // The CREATE TABLE held the table's lock while it waited for a replica: received first.
      assertThat(replicaPod.log()).contains("the primary holds 1 commit(s) until a replica");
    }
    primary.app("INSERT INTO orders VALUES (3)");
    await().atMost(CATCH_UP).until(() -> replica.app("SELECT count(*) FROM orders").equals("3"));
    assertThat(replica.appResult("INSERT INTO orders VALUES (4)").output()).contains("read-only");

    // A restarted replica skips the seed (fingerprint) and resumes from its GTID position. In sync
    // mode the write waits for it: acknowledged only once the replica is back.
    replicaPod.stop("TERM");
    CompletableFuture<String> write =
        CompletableFuture.supplyAsync(() -> primary.app("INSERT INTO orders VALUES (4)"));
    if (sync) {
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(5))
          .until(() -> !write.isDone());
    }
    replicaPod = startMariadbEntrypoint(scripts, image, replica, primary, modeEnv);
    awaitMariadb(replica, replicaPod);
    assertThat(replicaPod.log()).doesNotContain("without networking");
    await().atMost(CATCH_UP).until(() -> replica.app("SELECT count(*) FROM orders").equals("4"));
    await().atMost(CATCH_UP).until(write::isDone);
    write.join();
  }

  private Background startMariadbEntrypoint(
      Path scripts, Path image, Mariadb server, Mariadb primary, Map<String, String> extraEnv)
      throws IOException {
    if (!Files.exists(server.dir)) {
      mkdirsOwnedBy("mysql", server.dir);
    }
    Path cnf = writeMariadbCnf(server, scripts);
    Path initSql = server.dir.resolve("init.sql");
    Files.writeString(initSql, mariadbImageInitSql(server.ordinal));
    Map<String, String> env = primary == null ? server.env() : server.replicaEnv(primary);
    env.remove("CELLAR_ORDINAL");
    env.remove("CELLAR_LOCAL_HOST");
    env.put("POD_NAME", "shop-" + server.ordinal);
    env.put("CELLAR_PORT", String.valueOf(server.port));
    env.put("CELLAR_DATA_DIR", server.dir.resolve("data").toString());
    env.put("CELLAR_IMAGE_ENTRYPOINT", image.toString());
    env.put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    env.put("FAKE_SOCKET", server.socket().toString());
    env.put("FAKE_INIT_SQL", initSql.toString());
    if (primary != null) {
      env.put("CELLAR_PRIMARY_PORT", String.valueOf(primary.port));
    }
    env.putAll(extraEnv);
    return Background.start(
        List.of(
            "bash",
            scripts.resolve("entrypoint.sh").toString(),
            "--defaults-file=" + cnf,
            "--user=mysql"),
        env,
        server.dir.resolve("entrypoint-" + System.nanoTime() + ".log"),
        cleanups);
  }

  private void awaitMariadb(Mariadb server, Background pod) {
    awaitEntrypoint(
        pod,
        "mariadb " + server.ordinal,
        () ->
            pod.log().contains("starting mariadbd as") && server.appResult("SELECT 1").exit() == 0);
  }

  /** A long-running process with its output in a file; stopped at the end of the test. */
  record Background(Process process, Path logFile) {
    static Background start(
        List<String> command, Map<String, String> env, Path log, List<Runnable> cleanups)
        throws IOException {
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
      env.forEach(
          (key, value) -> {
            if (value == null) {
              builder.environment().remove(key);
            } else {
              builder.environment().put(key, value);
            }
          });
      Background background = new Background(builder.start(), log);
      cleanups.add(() -> background.stop("TERM"));
      return background;
    }

    String log() {
      return readLog(logFile);
    }

    /** Sends the signal to the process (the server, once the entrypoint exec'd) and waits. */
    void stop(String signal) {
      if (!process.isAlive()) {
        return;
      }
      run(List.of("kill", "-" + signal, String.valueOf(process.pid())), Map.of(), COMMAND);
      try {
        if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void everyScriptIsShellcheckClean() {
    // The resource tree, where the scripts' shellcheck source= directives resolve.
    Path root = Path.of("src/main/resources/dev/cellar/operator/engine").toAbsolutePath();
    for (String dir : List.of(".", "postgresql", "mysql-family", "mysql", "mariadb")) {
      assertThat(root.resolve(dir)).isDirectory();
      Result result =
          run(
              List.of(
                  "bash",
                  "-c",
                  "cd '" + root.resolve(dir) + "' && shellcheck -x -P SCRIPTDIR *.sh"),
              Map.of(),
              COMMAND);
      assertThat(result.exit()).as("shellcheck in " + dir + ":\n" + result.output()).isZero();
    }
  }

  private static String readLog(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static void chown(String user, Path path) {
    run(List.of("chown", "-R", user + ":" + user, path.toString()), Map.of(), COMMAND)
        .orFail("chown " + path);
  }

  private static void mkdirsOwnedBy(String user, Path... dirs) {
    for (Path dir : dirs) {
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      chown(user, dir);
    }
  }
}
