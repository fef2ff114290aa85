package dev.cellar.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Engine;
import dev.cellar.operator.engine.Scripts.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The replication scripts as the ConfigMap ships them, run with bash: server options, generated
 * SQL, error messages, and MySQL's whole primary setup and replica bootstrap against recording
 * fakes of its client programs (no MySQL server can be had here; MariaDB and PostgreSQL run for
 * real in ReplicationIT).
 */
class ReplicationScriptsTest {
  @TempDir Path tmp;

  private Path scripts(Engine engine) {
    String version =
        switch (engine) {
          case POSTGRESQL -> "16";
          case MYSQL -> "8.4";
          case MARIADB -> "11.4";
        };
    return Scripts.materialize(engine, version, tmp.resolve(engine.value()));
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void everyScriptParses(Engine engine) throws IOException {
    Path dir = scripts(engine);
    try (var files = Files.list(dir)) {
      for (Path script : files.filter(f -> f.toString().endsWith(".sh")).toList()) {
        Result result = Scripts.run(List.of("bash", "-n", script.toString()), Map.of(), TIMEOUT);
        assertThat(result.exit()).as(script + ": " + result.output()).isZero();
      }
    }
  }

  @Test
  void mysqlServerOptionsComeFromTheOrdinal() {
    Path dir = scripts(Engine.MYSQL);
    assertThat(options(dir, Map.of("POD_NAME", "orders-db-0"))).isEqualTo("--server-id=1");
    assertThat(options(dir, Map.of("POD_NAME", "orders-db-2")))
        .isEqualTo("--server-id=3\n--read-only\n--super-read-only");
    // CELLAR_ORDINAL wins over POD_NAME; CELLAR_WRITABLE is the seeding phase.
    assertThat(options(dir, Map.of("POD_NAME", "orders-db-2", "CELLAR_ORDINAL", "0")))
        .isEqualTo("--server-id=1");
    assertThat(options(dir, Map.of("CELLAR_ORDINAL", "4", "CELLAR_WRITABLE", "1")))
        .isEqualTo("--server-id=5");
  }

  @Test
  void mariadbReplicasAreReadOnly() {
    Path dir = scripts(Engine.MARIADB);
    assertThat(options(dir, Map.of("POD_NAME", "shop-1"))).isEqualTo("--server-id=2\n--read-only");
  }

  /**
   * spec.replication.mode sync: semi-sync waits on the primary only, and not while it is set up
   * without networking (CELLAR_WRITABLE=1), where no replica could acknowledge.
   */
  @Test
  void semiSyncWaitsOnlyOnTheRunningPrimary() {
    Map<String, String> sync = Map.of("CELLAR_REPLICATION_MODE", "sync");
    Path mariadb = scripts(Engine.MARIADB);
    assertThat(options(mariadb, with(sync, "POD_NAME", "shop-0")))
        .isEqualTo("--server-id=1\n--rpl-semi-sync-master-enabled=ON");
    assertThat(options(mariadb, with(sync, "POD_NAME", "shop-1")))
        .isEqualTo("--server-id=2\n--read-only");
    assertThat(options(mariadb, with(with(sync, "POD_NAME", "shop-0"), "CELLAR_WRITABLE", "1")))
        .isEqualTo("--server-id=1");
    assertThat(options(mariadb, Map.of("POD_NAME", "shop-0"))).isEqualTo("--server-id=1");
    assertThat(options(scripts(Engine.MYSQL), with(sync, "POD_NAME", "shop-0")))
        .isEqualTo("--server-id=1\n--loose-rpl-semi-sync-source-enabled=ON");
  }

  /**
   * What a new replica of a sync primary runs to acknowledge the commits the primary holds: the
   * binary log from the start of a file, received (IO thread) and not applied.
   */
  @Test
  void aNewReplicaReceivesThePrimarysBinaryLogWithoutApplyingIt() {
    String call =
        "CELLAR_TLS_MODE=disabled cellar_sql_receive_from \"'h'\" 3306 \"'u'\" \"'p'\" \"'binlog.000002'\"";
    assertThat(sql(scripts(Engine.MARIADB), call))
        .isEqualTo(
            "CHANGE MASTER TO MASTER_HOST='h', MASTER_PORT=3306, MASTER_USER='u',"
                + " MASTER_PASSWORD='p', MASTER_USE_GTID=no, MASTER_LOG_FILE='binlog.000002',"
                + " MASTER_LOG_POS=4, MASTER_CONNECT_RETRY=1, MASTER_SSL=0;\n"
                + "START SLAVE IO_THREAD;");
    assertThat(sql(scripts(Engine.MYSQL), call))
        .isEqualTo(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_PORT=3306, SOURCE_USER='u',"
                + " SOURCE_PASSWORD='p', SOURCE_AUTO_POSITION=0,"
                + " SOURCE_LOG_FILE='binlog.000002', SOURCE_LOG_POS=4, GET_SOURCE_PUBLIC_KEY=1,"
                + " SOURCE_CONNECT_RETRY=1, SOURCE_SSL=0;\n"
                + "START REPLICA IO_THREAD;");
  }

  private static Map<String, String> with(Map<String, String> env, String key, String value) {
    Map<String, String> more = new java.util.HashMap<>(env);
    more.put(key, value);
    return more;
  }

  @Test
  void withoutAnOrdinalTheScriptsSaySo() {
    Result result = Scripts.bash(scripts(Engine.MYSQL), "bash server-args.sh", Map.of());
    assertThat(result.exit()).isEqualTo(1);
    assertThat(result.output()).contains("neither CELLAR_ORDINAL nor POD_NAME is set");
    result =
        Scripts.bash(scripts(Engine.MYSQL), "bash server-args.sh", Map.of("POD_NAME", "orders"));
    assertThat(result.output()).contains("ordinal 'orders'").contains("is not a number");
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void aReplicaWithoutTheReplicationAccountFailsClearly(Engine engine) {
    Result result =
        Scripts.bash(
            scripts(engine),
            "bash replica-bootstrap.sh",
            Map.of(
                "POD_NAME", "orders-1", "CELLAR_PRIMARY_HOST", "orders-0.x", "CELLAR_PORT", "1"));
    assertThat(result.exit()).isEqualTo(1);
    assertThat(result.output())
        .contains("CELLAR_REPLICATION_USER and CELLAR_REPLICATION_PASSWORD must be set")
        .contains("'replication-user' and 'replication-password'");
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void aPrimaryWithoutTheReplicationAccountOnlyWarns(Engine engine) {
    Result result =
        Scripts.bash(scripts(engine), "bash primary-setup.sh", Map.of("POD_NAME", "orders-0"));
    assertThat(result.exit()).isZero();
    assertThat(result.output()).contains("[Warn] no replication account");
  }

  @Test
  void mysqlSql() {
    Path dir = scripts(Engine.MYSQL);
    assertThat(sql(dir, "cellar_sql_replication_account repl \"a'b\\\\c\""))
        .isEqualTo(
            """
            SET SESSION sql_log_bin = 0;
            CREATE USER IF NOT EXISTS 'repl'@'%' IDENTIFIED BY 'a\\'b\\\\c';
            ALTER USER 'repl'@'%' IDENTIFIED BY 'a\\'b\\\\c';
            GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%';""");
    assertThat(sql(dir, "cellar_sql_change_source orders-0.orders-headless 3306 repl pw"))
        .isEqualTo(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='orders-0.orders-headless', SOURCE_PORT=3306,"
                + " SOURCE_USER='repl', SOURCE_PASSWORD='pw', SOURCE_AUTO_POSITION=1,"
                + " GET_SOURCE_PUBLIC_KEY=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=1000000;");
    // 8.0 still has RESET MASTER; 8.4 only RESET BINARY LOGS AND GTIDS.
    assertThat(sql(dir, "cellar_sql_reset_for_seed 80036"))
        .isEqualTo("RESET REPLICA ALL;\nRESET MASTER;");
    assertThat(sql(dir, "cellar_sql_reset_for_seed 80402"))
        .isEqualTo("RESET REPLICA ALL;\nRESET BINARY LOGS AND GTIDS;");
    assertThat(sql(dir, "cellar_sql_replica_status")).isEqualTo("SHOW REPLICA STATUS\\G");
    assertThat(sql(dir, "cellar_sql_position_from 'u:1-5'"))
        .isEqualTo("SET GLOBAL gtid_purged = 'u:1-5';");
    Result badPort = Scripts.bash(dir, LOAD + "cellar_sql_change_source h 33a u p", Map.of());
    assertThat(badPort.exit()).isEqualTo(1);
    assertThat(badPort.output()).contains("port '33a' is not a number");
  }

  @Test
  void mariadbSql() {
    Path dir = scripts(Engine.MARIADB);
    assertThat(sql(dir, "cellar_sql_change_source orders-0.orders-headless 3306 repl pw"))
        .isEqualTo(
            "CHANGE MASTER TO MASTER_HOST='orders-0.orders-headless', MASTER_PORT=3306,"
                + " MASTER_USER='repl', MASTER_PASSWORD='pw', MASTER_USE_GTID=slave_pos,"
                + " MASTER_CONNECT_RETRY=1;");
    assertThat(sql(dir, "cellar_sql_reset_for_seed 101109"))
        .isEqualTo("RESET SLAVE ALL;\nRESET MASTER;");
    assertThat(sql(dir, "cellar_sql_replication_account replicator pw"))
        .contains(
            "SET SESSION sql_log_bin = 0;", "GRANT REPLICATION SLAVE ON *.* TO 'replicator'@'%';");
  }

  @Test
  void postgresConninfoQuotesEveryValue() {
    Path dir = scripts(Engine.POSTGRESQL);
    Result result =
        Scripts.bash(
            dir,
            ". lib.sh && . pg-lib.sh && cellar_pg_primary_conninfo",
            Map.of(
                "POD_NAME", "orders-2",
                "CELLAR_PRIMARY_HOST", "orders-0.orders-headless",
                "CELLAR_PORT", "5432",
                "CELLAR_REPLICATION_USER", "replicator",
                "CELLAR_REPLICATION_PASSWORD", "p'w\\x"));
    assertThat(result.orFail("conninfo").output())
        .isEqualTo(
            "host='orders-0.orders-headless' port=5432 user='replicator' password='p\\'w\\\\x'"
                + " application_name='orders-2' sslmode=prefer");
  }

  // --- MySQL end to end against fakes of mysql, mysqldump and mysqladmin ----------------------

  /**
   * Fakes that log each call (arguments, then the SQL on stdin) to $FAKE_LOG and answer the queries
   * the scripts make. The primary is the connection with --host=orders-0...; replication counts as
   * configured once a CHANGE REPLICATION SOURCE reached this server.
   */
  private Path fakeMysql() throws IOException {
    Path bin = Files.createDirectories(tmp.resolve("fakebin"));
    Files.writeString(
        bin.resolve("mysql"),
        """
        #!/usr/bin/env bash
        args="$*"
        sql=""
        for a in "$@"; do case "$a" in -e) next=1 ;; *) if [ -n "${next:-}" ]; then sql=$a; next=; fi ;; esac; done
        if [ -z "$sql" ]; then sql=$(cat); fi
        where=local; case "$args" in *--host=orders-0*) where=primary ;; esac
        case "$args" in *--defaults-extra-file=*) ;; *) echo "no option file" >&2; exit 2 ;; esac
        printf '== %s mysql %s\\n%s\\n' "$where" "$args" "$sql" >>"$FAKE_LOG"
        case "$sql" in
          *'SELECT 1'*) echo 1 ;;
          *'GTID_SUBSET'*) echo "${FAKE_SUBSET:-1}" ;;
          *'@@GLOBAL.gtid_executed'*) printf 'uuid:1-42,\\nuuid2:1-3\n' ;;
          *'SELECT @@version'*) echo 8.4.2 ;;
          *'SHOW REPLICA STATUS'*)
            if grep -q '^CHANGE REPLICATION SOURCE' "$FAKE_LOG"; then
              printf '*** 1. row ***\\n  Source_Host: orders-0.orders-headless\\n  Replica_IO_State: Waiting for source to send event\\n  Replica_IO_Running: Yes\\n  Last_IO_Error: \\n  Seconds_Behind_Source: %s\\n' "${FAKE_LAG:-0}"
              printf '  Source_Log_File: binlog.000002\\n  Read_Source_Log_Pos: 900\\n  Relay_Source_Log_File: binlog.000002\\n  Exec_Source_Log_Pos: 900\\n'
            fi ;;
          *'information_schema.schemata'*) printf 'app\\nshop\\n' ;;
          *'FROM mysql.user'*) printf "'reporter'@'%%'\\n" ;;
          *'SHOW CREATE USER'*) printf "CREATE USER \\`reporter\\`@\\`%%\\` IDENTIFIED WITH 'caching_sha2_password' AS 0x2441\\n" ;;
          *'SHOW GRANTS'*) printf 'GRANT SELECT ON `app`.* TO `reporter`@`%%`\\n' ;;
        esac
        """);
    Files.writeString(
        bin.resolve("mysqldump"),
        """
        #!/usr/bin/env bash
        printf '== mysqldump %s\\n' "$*" >>"$FAKE_LOG"
        printf "SET @@SESSION.SQL_LOG_BIN= 0;\\nSET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ 'uuid:1-42';\\nCREATE TABLE t (id int);\\n"
        """);
    for (Path fake : List.of(bin.resolve("mysql"), bin.resolve("mysqldump"))) {
      fake.toFile().setExecutable(true);
    }
    return bin;
  }

  private Map<String, String> mysqlEnv(Path bin, String podName) {
    Map<String, String> env = new HashMap<>();
    env.put("PATH", bin + ":" + System.getenv("PATH"));
    env.put("FAKE_LOG", tmp.resolve("fake.log").toString());
    env.put("POD_NAME", podName);
    env.put("CELLAR_PRIMARY_HOST", "orders-0.orders-headless");
    env.put("CELLAR_PORT", "3306");
    env.put("MYSQL_ROOT_PASSWORD", "root-secret");
    env.put("CELLAR_REPLICATION_USER", "replicator");
    env.put("CELLAR_REPLICATION_PASSWORD", "repl-secret");
    env.put("CELLAR_WAIT_SECONDS", "5");
    return env;
  }

  @Test
  void mysqlPrimarySetupCreatesTheReplicationAccountUnlogged() throws IOException {
    Path bin = fakeMysql();
    Result result =
        Scripts.bash(scripts(Engine.MYSQL), "bash primary-setup.sh", mysqlEnv(bin, "orders-0"));
    assertThat(result.orFail("primary-setup.sh").output())
        .contains("replication account 'replicator' is ready on the primary");
    String log = Files.readString(tmp.resolve("fake.log"));
    assertThat(log)
        .contains("== local mysql --defaults-extra-file=")
        .contains("--protocol=tcp --host=127.0.0.1 --port=3306")
        .contains(
            "SET SESSION sql_log_bin = 0;\n"
                + "CREATE USER IF NOT EXISTS 'replicator'@'%' IDENTIFIED BY 'repl-secret';\n"
                + "ALTER USER 'replicator'@'%' IDENTIFIED BY 'repl-secret';\n"
                + "GRANT REPLICATION SLAVE ON *.* TO 'replicator'@'%';")
        // Passwords travel in option files, never as arguments.
        .doesNotContain("--password", "root-secret");
  }

  @Test
  void mysqlReplicaIsSeededFromThePrimaryThenReplicatesWithAutoPosition() throws IOException {
    Path bin = fakeMysql();
    Result result =
        Scripts.bash(scripts(Engine.MYSQL), "bash replica-bootstrap.sh", mysqlEnv(bin, "orders-2"));
    assertThat(result.orFail("replica-bootstrap.sh").output())
        .contains("seeding it from the primary orders-0.orders-headless:3306")
        .contains("seeded 2 database(s) (app shop)")
        .contains("replicating from orders-0.orders-headless:3306 as 'replicator'");
    String log = Files.readString(tmp.resolve("fake.log"));
    assertThat(log)
        .contains(
            "== mysqldump --defaults-extra-file=",
            "--host=orders-0.orders-headless --port=3306 --get-server-public-key"
                + " --single-transaction --set-gtid-purged=ON --routines --events --triggers"
                + " --add-drop-database --databases app shop")
        .doesNotContain("root-secret");
    // What reached this server, in order.
    List<String> local =
        List.of(
            "RESET REPLICA ALL;\nRESET BINARY LOGS AND GTIDS;",
            "SET SESSION sql_log_bin = 0;\nCREATE USER IF NOT EXISTS `reporter`@`%` IDENTIFIED"
                + " WITH 'caching_sha2_password' AS 0x2441;\nGRANT SELECT ON `app`.* TO"
                + " `reporter`@`%`;",
            "SET SESSION sql_log_bin = 0;\nSET @@SESSION.SQL_LOG_BIN= 0;\n"
                + "SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ 'uuid:1-42';",
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='orders-0.orders-headless',"
                + " SOURCE_PORT=3306, SOURCE_USER='replicator', SOURCE_PASSWORD='repl-secret',"
                + " SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=1000000;\n"
                + "START REPLICA;");
    int at = 0;
    for (String sql : local) {
      int found = log.indexOf(sql, at);
      assertThat(found).as("in order after %d: %s%n--- log:%n%s", at, sql, log).isPositive();
      at = found + sql.length();
    }
    assertThat(log).doesNotContain("root-secret");

    // Run again (a restart with a new password): no second seed, only the new account.
    Files.delete(tmp.resolve("fake.log"));
    Files.writeString(
        tmp.resolve("fake.log"), "CHANGE REPLICATION SOURCE TO (configured before)\n");
    Map<String, String> env = mysqlEnv(bin, "orders-2");
    env.put("CELLAR_REPLICATION_PASSWORD", "rotated");
    Result again = Scripts.bash(scripts(Engine.MYSQL), "bash replica-bootstrap.sh", env);
    assertThat(again.orFail("replica-bootstrap.sh again").output()).doesNotContain("seeding");
    assertThat(Files.readString(tmp.resolve("fake.log")))
        .doesNotContain("mysqldump", "RESET")
        .contains("SOURCE_PASSWORD='rotated'");
  }

  @Test
  void aMysqlReplicaGivesUpOnAnUnreachablePrimaryWithAMessage() throws IOException {
    Path bin = fakeMysql();
    Files.writeString(
        bin.resolve("mysql"),
        """
        #!/usr/bin/env bash
        case "$*" in *--host=orders-0*) echo "ERROR 2005 (HY000): Unknown MySQL server host" >&2; exit 1 ;; esac
        echo 1
        """);
    Map<String, String> env = mysqlEnv(bin, "orders-1");
    env.put("CELLAR_WAIT_SECONDS", "2");
    Result result = Scripts.bash(scripts(Engine.MYSQL), "bash replica-bootstrap.sh", env);
    assertThat(result.exit()).isEqualTo(1);
    assertThat(result.output())
        .contains("the primary orders-0.orders-headless:3306 (as root): not reached within 2 s")
        .contains("Unknown MySQL server host")
        .contains("Check that the primary pod runs");
  }

  @Test
  void mysqlPositionCountsTheExecutedGtids() throws IOException {
    Path bin = fakeMysql();
    Map<String, String> env = mysqlEnv(bin, "orders-1");
    env.put("CELLAR_LOCAL_HOST", "127.0.0.1");
    Result primary = Scripts.bash(scripts(Engine.MYSQL), "bash role.sh position", env);
    assertThat(primary.orFail("role.sh position").trimmed()).endsWith("position=45 role=primary");
    Files.writeString(tmp.resolve("fake.log"), "CHANGE REPLICATION SOURCE TO (configured)\n");
    Result replica = Scripts.bash(scripts(Engine.MYSQL), "bash role.sh position", env);
    assertThat(replica.orFail("role.sh position").trimmed()).endsWith("position=45 role=replica");
  }

  @Test
  void mysqlLagIsTheReplicasSecondsBehindItsSource() throws IOException {
    Path bin = fakeMysql();
    Map<String, String> env = mysqlEnv(bin, "orders-1");
    env.put("CELLAR_LOCAL_HOST", "127.0.0.1");
    assertThat(Scripts.bash(scripts(Engine.MYSQL), "bash role.sh lag", env).orFail("lag").trimmed())
        .isEqualTo("role=primary");
    Files.writeString(tmp.resolve("fake.log"), "CHANGE REPLICATION SOURCE TO (configured)\n");
    for (String[] said : new String[][] {{"0", "0"}, {"12", "12"}, {"NULL", "unknown"}}) {
      env.put("FAKE_LAG", said[0]);
      assertThat(
              Scripts.bash(scripts(Engine.MYSQL), "bash role.sh lag", env).orFail("lag").trimmed())
          .isEqualTo("lag=" + said[1] + " role=replica");
    }
  }

  @Test
  void mysqlPromoteAppliesTheRelayLogForgetsTheSourceAndAllowsWrites() throws IOException {
    Path bin = fakeMysql();
    Map<String, String> env = mysqlEnv(bin, "orders-1");
    env.put("CELLAR_LOCAL_HOST", "127.0.0.1");
    env.put("CELLAR_DATA_DIR", Files.createDirectories(tmp.resolve("data")).toString());
    Files.writeString(tmp.resolve("data/cellar-replica.done"), "x\n");
    Files.writeString(tmp.resolve("fake.log"), "CHANGE REPLICATION SOURCE TO (configured)\n");
    Result result = Scripts.bash(scripts(Engine.MYSQL), "bash role.sh promote", env);
    assertThat(result.orFail("role.sh promote").trimmed()).endsWith("promoted");
    String log = Files.readString(tmp.resolve("fake.log"));
    List<String> inOrder =
        List.of(
            "STOP REPLICA IO_THREAD;",
            "STOP REPLICA;\nRESET REPLICA ALL;",
            "SET GLOBAL super_read_only = 0;\nSET GLOBAL read_only = 0;",
            "CREATE USER IF NOT EXISTS 'replicator'@'%'");
    int at = 0;
    for (String sql : inOrder) {
      int found = log.indexOf(sql, at);
      assertThat(found).as("in order after %d: %s%n--- log:%n%s", at, sql, log).isPositive();
      at = found + sql.length();
    }
    assertThat(tmp.resolve("data/cellar-replica.done")).doesNotExist();
    assertThat(tmp.resolve("data/cellar-primary.done")).exists();
    assertThat(log).doesNotContain("root-secret");
  }

  @Test
  void aFormerMysqlPrimaryRejoinsFromItsOwnGtidsWhenTheNewPrimaryHasThemAll() throws IOException {
    Path bin = fakeMysql();
    Map<String, String> env = mysqlEnv(bin, "orders-0");
    env.put("CELLAR_ROLE", "replica");
    env.put("CELLAR_REJOIN", "1");
    Result result = Scripts.bash(scripts(Engine.MYSQL), "bash replica-bootstrap.sh", env);
    assertThat(result.orFail("replica-bootstrap.sh").output())
        .contains("rejoined orders-0.orders-headless:3306")
        .doesNotContain("seeding");
    String log = Files.readString(tmp.resolve("fake.log"));
    assertThat(log)
        .contains("SELECT GTID_SUBSET('uuid:1-42,uuid2:1-3', @@GLOBAL.gtid_executed);")
        .contains("SOURCE_AUTO_POSITION=1")
        .doesNotContain("mysqldump", "RESET");
  }

  @Test
  void aDivergedFormerMysqlPrimaryIsSeededAfresh() throws IOException {
    Path bin = fakeMysql();
    Map<String, String> env = mysqlEnv(bin, "orders-0");
    env.put("CELLAR_ROLE", "replica");
    env.put("CELLAR_REJOIN", "1");
    env.put("FAKE_SUBSET", "0");
    Result result = Scripts.bash(scripts(Engine.MYSQL), "bash replica-bootstrap.sh", env);
    assertThat(result.orFail("replica-bootstrap.sh").output())
        .contains("has transactions the new primary lacks")
        .contains("seeded 2 database(s)");
    assertThat(Files.readString(tmp.resolve("fake.log")))
        .contains("RESET REPLICA ALL;\nRESET BINARY LOGS AND GTIDS;", "== mysqldump");
  }

  /**
   * MariaDB's rejoin asks the new primary whether it has the former primary's last GTID of each
   * domain (its gtid_binlog_state and gtid_slave_pos) before connecting: a former primary that
   * wrote past what the new primary received (0-1-500 against 0-1-480) has diverged.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "0-1-500 | 0-1-480,0-2-520 | 0",
        "0-1-480 | 0-1-480,0-2-520 | 1",
        "0-1-479 | 0-1-480,0-2-520 | 1",
        "0-2-520 | 0-1-480,0-2-520 | 1",
        "0-1-5,1-3-9 | 0-1-9,1-3-9,0-1-2 | 1",
        "0-1-5,1-3-9 | 0-1-9 | 0",
        "0-3-5 | 0-1-9,0-2-9 | 0",
        "0-1-5 | '' | 0",
        "'' | 0-1-4 | 1"
      })
  void mariadbTellsAPositionTheNewPrimaryHasFromOneItLacks(
      String own, String primaryState, String contained) {
    Result result =
        Scripts.bash(
            scripts(Engine.MARIADB),
            ". ./lib.sh && . ./dialect.sh && cellar_gtids_within '"
                + own
                + "' '"
                + primaryState
                + "'",
            Map.of());
    assertThat(result.orFail("cellar_gtids_within").trimmed()).isEqualTo(contained);
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void theRoleComesFromThePodsLabelNotItsOrdinal(Engine engine) throws IOException {
    Path info = Files.createDirectories(tmp.resolve("pod-info"));
    Files.writeString(
        info.resolve("labels"),
        "app.kubernetes.io/instance=\"orders\"\ncellar.dev/role=\"primary\"\n");
    Files.writeString(info.resolve("annotations"), "cellar.dev/bootstrap=\"true\"\n");
    Map<String, String> env =
        new HashMap<>(Map.of("POD_NAME", "orders-2", "CELLAR_POD_INFO", info.toString()));
    String role =
        ". lib.sh && cellar_role && { cellar_bootstrap_allowed && echo bootstrap || echo no; }";
    assertThat(Scripts.bash(scripts(engine), role, env).orFail("role").trimmed())
        .isEqualTo("primary\nbootstrap");
    Files.writeString(info.resolve("labels"), "cellar.dev/role=\"replica\"\n");
    Files.writeString(info.resolve("annotations"), "");
    env.put("POD_NAME", "orders-0");
    assertThat(Scripts.bash(scripts(engine), role, env).orFail("role").trimmed())
        .isEqualTo("replica\nno");
    // No label yet: no role, and the entrypoint waits for one.
    Files.writeString(info.resolve("labels"), "app.kubernetes.io/instance=\"orders\"\n");
    assertThat(
            Scripts.bash(scripts(engine), ". lib.sh && echo \"[$(cellar_role)]\"", env)
                .orFail("role")
                .trimmed())
        .isEqualTo("[]");
  }

  @Test
  void aMysqlPodLabelledReplicaIsReadOnlyWhateverItsOrdinal() throws IOException {
    Path info = Files.createDirectories(tmp.resolve("pod-info"));
    Files.writeString(info.resolve("labels"), "cellar.dev/role=\"replica\"\n");
    assertThat(
            options(
                scripts(Engine.MYSQL),
                Map.of("POD_NAME", "orders-0", "CELLAR_POD_INFO", info.toString())))
        .isEqualTo("--server-id=1\n--read-only\n--super-read-only");
    Files.writeString(info.resolve("labels"), "cellar.dev/role=\"primary\"\n");
    assertThat(
            options(
                scripts(Engine.MYSQL),
                Map.of("POD_NAME", "orders-2", "CELLAR_POD_INFO", info.toString())))
        .isEqualTo("--server-id=3");
  }

  // ---------------------------------------------------------------------------------------------

  private static final java.time.Duration TIMEOUT = java.time.Duration.ofSeconds(30);

  /** The MySQL family's scripts load lib.sh, their dialect, then what both dialects share. */
  private static final String LOAD =
      ". lib.sh && . dialect.sh && { [ ! -f mysql-lib.sh ] || . mysql-lib.sh; } && ";

  private static String options(Path dir, Map<String, String> env) {
    return Scripts.bash(dir, "bash server-args.sh", env).orFail("server-args.sh").trimmed();
  }

  private static String sql(Path dir, String call) {
    return Scripts.bash(dir, LOAD + call, Map.of()).orFail(call).trimmed();
  }
}
