package dev.cellar.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.List;
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
        .contains("mysqladmin ping");
    assertThat(p.dumpCommand())
        .startsWith("mysqldump")
        .contains("--all-databases --single-transaction");
    assertThat(p.configFiles(db(Engine.MYSQL, "8.4")).get("cellar.cnf")).contains("gtid_mode = ON");
    assertThat(p.engineIncludes()).containsEntry("cellar.cnf", "/etc/mysql/conf.d/cellar.cnf");
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
        .isEqualTo("healthcheck.sh --connect --innodb_initialized");
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
