package dev.cellar.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class EngineProfileTest {
  static Database db(Engine engine, String version) {
    return new Database("ns", "orders", new DatabaseSpec(engine, version, "10Gi"));
  }

  static List<String> envNames(List<EnvVar> env) {
    return env.stream().map(EnvVar::getName).toList();
  }

  @Test
  void everyEngineHasAProfile() {
    for (Engine engine : Engine.values()) {
      assertThat(EngineProfiles.of(engine).engine()).isEqualTo(engine);
    }
  }

  @Test
  void postgres() {
    EngineProfile p = EngineProfiles.of(Engine.POSTGRESQL);
    assertThat(p.port()).isEqualTo(5432);
    assertThat(p.image(db(Engine.POSTGRESQL, "16.4"), EngineVersion.parse("16.4")))
        .isEqualTo("postgres:16.4");
    assertThat(envNames(p.env("s", EngineVersion.parse("16"))))
        .contains("POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB", "PGDATA");
    assertThat(p.readinessProbe().getExec().getCommand()).last().asString().contains("pg_isready");
    assertThat(p.dumpCommand()).startsWith("pg_dumpall");
    assertThat(p.args(db(Engine.POSTGRESQL, "16"))).contains("-c", "wal_level=replica");
  }

  /**
   * A started server is seen within 2 s (the next pod of an OrderedReady StatefulSet waits on it:
   * at 10 s a Database of three took 49 s to be Ready on kind, at 2 s 31 s), and a slow first start
   * still has ten minutes.
   */
  @Test
  void startupIsSeenSoonAndAllowedTenMinutes() {
    for (Engine engine : Engine.values()) {
      var probe = EngineProfiles.of(engine).startupProbe();
      assertThat(probe.getPeriodSeconds()).as(engine + " period").isLessThanOrEqualTo(2);
      assertThat(probe.getPeriodSeconds() * probe.getFailureThreshold())
          .as(engine + " seconds allowed")
          .isGreaterThanOrEqualTo(600);
    }
  }

  @Test
  void postgresProbesSkipPostgresqlCommonsWrapper() {
    assertThat(EngineProfiles.of(Engine.POSTGRESQL).readinessProbe().getExec().getCommand())
        .last()
        .asString()
        .startsWith("PATH=/usr/lib/postgresql/$PG_MAJOR/bin:$PATH ");
  }

  @Test
  void postgresRunsTheReplicationEntrypoint() {
    EngineProfile p = EngineProfiles.of(Engine.POSTGRESQL);
    assertThat(p.command()).containsExactly("bash", "/etc/cellar/entrypoint.sh");
    assertThat(p.configFiles(db(Engine.POSTGRESQL, "16")))
        .containsOnlyKeys("postgresql.cellar.conf");
    Map<String, String> files = p.scripts();
    assertThat(files)
        .containsOnlyKeys(
            "backup-job.sh",
            "verify-dump.sh",
            "restore-fetch.sh",
            "restore-dump.sh",
            "lib.sh",
            "pg-lib.sh",
            "entrypoint.sh",
            "primary-setup.sh",
            "replica-bootstrap.sh",
            "role.sh",
            "major-upgrade.sh");
    assertThat(files.get("entrypoint.sh"))
        .startsWith("#!/usr/bin/env bash")
        .contains("set -euo pipefail", "exec \"$image_entrypoint\" postgres \"$@\"");
    assertThat(files.get("replica-bootstrap.sh"))
        .contains("pg_basebackup", "--write-recovery-conf", "--wal-method=stream");
    assertThat(files.get("primary-setup.sh"))
        .contains("WITH REPLICATION LOGIN PASSWORD", "host replication", "scram-sha-256");
    // The settings replication needs, passed as -c flags after the entrypoint.
    assertThat(p.args(db(Engine.POSTGRESQL, "16")))
        .contains("wal_level=replica", "max_wal_senders=10", "hot_standby=on", "wal_log_hints=on");
  }

  @Test
  void postgres18MovedItsDataDirectory() {
    PostgresProfile p = new PostgresProfile();
    assertThat(p.dataMountPath(EngineVersion.parse("17"))).isEqualTo("/var/lib/postgresql/data");
    assertThat(p.dataDirectory(EngineVersion.parse("17")))
        .isEqualTo("/var/lib/postgresql/data/pgdata");
    assertThat(p.dataMountPath(EngineVersion.parse("18"))).isEqualTo("/var/lib/postgresql");
    assertThat(p.dataDirectory(EngineVersion.parse("18.1")))
        .isEqualTo("/var/lib/postgresql/18/docker");
  }

  @Test
  void mysql() {
    EngineProfile p = EngineProfiles.of(Engine.MYSQL);
    assertThat(p.port()).isEqualTo(3306);
    assertThat(envNames(p.env("s", EngineVersion.parse("8.4"))))
        .containsExactly("MYSQL_ROOT_PASSWORD", "MYSQL_USER", "MYSQL_PASSWORD", "MYSQL_DATABASE");
    assertThat(p.readinessProbe().getExec().getCommand())
        .last()
        .asString()
        .contains("mysqladmin ping")
        .endsWith("&& bash /etc/cellar/role.sh replicating");
    assertThat(p.dumpCommand())
        .startsWith("mysqldump")
        .contains("--all-databases --single-transaction");
    assertThat(p.configFiles(db(Engine.MYSQL, "8.4")).get("cellar.cnf")).contains("gtid_mode = ON");
    assertThat(p.engineIncludes()).containsEntry("cellar.cnf", "/etc/mysql/conf.d/cellar.cnf");
  }

  static final List<String> MYSQL_FAMILY_SCRIPTS =
      List.of(
          "backup-job.sh",
          "verify-dump.sh",
          "restore-fetch.sh",
          "restore-dump.sh",
          "lib.sh",
          "dialect.sh",
          "mysql-lib.sh",
          "entrypoint.sh",
          "server-args.sh",
          "primary-setup.sh",
          "replica-bootstrap.sh",
          "role.sh");

  @Test
  void mysqlConfigurationForGtidReplication() {
    EngineProfile p = EngineProfiles.of(Engine.MYSQL);
    Map<String, String> files = new TreeMap<>(p.configFiles(db(Engine.MYSQL, "8.4")));
    assertThat(files).containsOnlyKeys("cellar.cnf");
    assertThat(p.scripts()).containsOnlyKeys(MYSQL_FAMILY_SCRIPTS);
    files.putAll(p.scripts());
    assertThat(files.get("cellar.cnf").lines().toList())
        .startsWith(
            "# Written by Cellar; the image includes every file of this directory.", "[mysqld]")
        .contains(
            "skip-name-resolve",
            "relay_log = relay-bin",
            "gtid_mode = ON",
            "enforce_gtid_consistency = ON",
            "log_bin = binlog",
            "binlog_format = ROW")
        // server_id and read_only depend on the pod: options from server-args.sh, not the file.
        .noneMatch(line -> line.startsWith("server") || line.contains("read_only"));
    assertThat(files.get("dialect.sh"))
        .contains(
            "CELLAR_SERVER=mysqld",
            "CHANGE REPLICATION SOURCE TO",
            "SOURCE_AUTO_POSITION=1",
            "GET_SOURCE_PUBLIC_KEY=1",
            "--super-read-only",
            "--set-gtid-purged=ON")
        .doesNotContain("MASTER_USE_GTID");
    assertThat(p.command()).containsExactly("bash", "/etc/cellar/entrypoint.sh");
    assertThat(p.args(db(Engine.MYSQL, "8.4"))).isEmpty();
    assertThat(files.get("entrypoint.sh"))
        .contains("exec \"$image_entrypoint\" \"$CELLAR_SERVER\"", "--skip-networking");
  }

  @Test
  void mariadbConfigurationForGtidReplication() {
    EngineProfile p = EngineProfiles.of(Engine.MARIADB);
    Map<String, String> files = new TreeMap<>(p.configFiles(db(Engine.MARIADB, "11.4")));
    assertThat(files).containsOnlyKeys("cellar.cnf");
    assertThat(p.scripts()).containsOnlyKeys(MYSQL_FAMILY_SCRIPTS);
    files.putAll(p.scripts());
    assertThat(files.get("cellar.cnf"))
        .contains("log_bin = binlog", "binlog_format = ROW", "log_slave_updates = ON")
        .doesNotContain("gtid_mode");
    assertThat(files.get("dialect.sh"))
        .contains("CELLAR_SERVER=mariadbd", "MASTER_USE_GTID=slave_pos", "--system=users")
        .doesNotContain("SOURCE_AUTO_POSITION");
    // The shared scripts are the same for both engines.
    Map<String, String> mysql = EngineProfiles.of(Engine.MYSQL).scripts();
    for (String shared :
        List.of("lib.sh", "mysql-lib.sh", "entrypoint.sh", "replica-bootstrap.sh")) {
      assertThat(files.get(shared)).isEqualTo(mysql.get(shared));
    }
    assertThat(p.command()).containsExactly("bash", "/etc/cellar/entrypoint.sh");
  }

  @Test
  void mariadb() {
    EngineProfile p = EngineProfiles.of(Engine.MARIADB);
    assertThat(envNames(p.env("s", EngineVersion.parse("11.4"))))
        .contains(
            "MARIADB_ROOT_PASSWORD",
            "MARIADB_USER",
            "MARIADB_PASSWORD",
            "MARIADB_DATABASE",
            "MARIADB_AUTO_UPGRADE");
    assertThat(p.readinessProbe().getExec().getCommand())
        .last()
        .asString()
        .isEqualTo(
            "healthcheck.sh --connect --innodb_initialized && bash /etc/cellar/role.sh replicating");
    assertThat(p.dumpCommand())
        .startsWith("mariadb-dump")
        .contains("--all-databases --single-transaction");
  }

  @Test
  void aCustomImageWins() {
    Database db = db(Engine.MARIADB, "11.4");
    db.getSpec().setImage("mirror.local/mariadb:11.4");
    assertThat(EngineProfiles.of(db).image(db, EngineVersion.parse("11.4")))
        .isEqualTo("mirror.local/mariadb:11.4");
  }
}
