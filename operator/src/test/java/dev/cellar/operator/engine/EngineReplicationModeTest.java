package dev.cellar.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.ReplicationMode;
import dev.cellar.api.v1.ReplicationSpec;
import org.junit.jupiter.api.Test;

/** spec.replication.mode: each engine's synchronous settings, only with sync and a replica. */
class EngineReplicationModeTest {
  static Database db(Engine engine, String version, int replicas, ReplicationMode mode) {
    Database db = new Database("ns", "orders", new DatabaseSpec(engine, version, "1Gi"));
    db.getSpec().setReplicas(replicas);
    if (mode != null) {
      db.getSpec().setReplication(new ReplicationSpec(mode));
    }
    return db;
  }

  @Test
  void asyncIsTheDefault() {
    assertThat(new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi").getReplication().getMode())
        .isEqualTo(ReplicationMode.ASYNC);
    EngineProfile pg = EngineProfiles.of(Engine.POSTGRESQL);
    assertThat(pg.args(db(Engine.POSTGRESQL, "16", 3, null)))
        .noneMatch(a -> a.startsWith("synchronous_"));
    assertThat(pg.args(db(Engine.POSTGRESQL, "16", 3, ReplicationMode.ASYNC)))
        .noneMatch(a -> a.startsWith("synchronous_"));
  }

  @Test
  void postgresWaitsForAnyOneStandbyWithSync() {
    EngineProfile pg = EngineProfiles.of(Engine.POSTGRESQL);
    Database sync = db(Engine.POSTGRESQL, "16", 3, ReplicationMode.SYNC);
    assertThat(pg.args(sync))
        .contains("synchronous_standby_names=ANY 1 (*)", "synchronous_commit=on");
    assertThat(pg.configFiles(sync).get("postgresql.cellar.conf"))
        .contains("synchronous_standby_names = 'ANY 1 (*)'");
    // One pod has no standby to wait for: writes would hang.
    assertThat(pg.args(db(Engine.POSTGRESQL, "16", 1, ReplicationMode.SYNC)))
        .noneMatch(a -> a.startsWith("synchronous_"));
  }

  @Test
  void mariadbAndMysqlUseSemiSyncWithSync() {
    String mariadb =
        EngineProfiles.of(Engine.MARIADB)
            .configFiles(db(Engine.MARIADB, "11.4", 3, ReplicationMode.SYNC))
            .get("cellar.cnf");
    assertThat(mariadb)
        .contains(
            "rpl_semi_sync_slave_enabled = ON",
            "rpl_semi_sync_master_wait_point = AFTER_SYNC",
            "rpl_semi_sync_master_timeout = 3600000");
    String mysql =
        EngineProfiles.of(Engine.MYSQL)
            .configFiles(db(Engine.MYSQL, "8.4", 3, ReplicationMode.SYNC))
            .get("cellar.cnf");
    assertThat(mysql)
        .contains(
            "plugin_load_add = semisync_source.so",
            "plugin_load_add = semisync_replica.so",
            "loose_rpl_semi_sync_replica_enabled = ON");
    // The primary's waits are not in the file every pod reads: server-args.sh turns them on where
    // the pod is the primary (a replica's applier would otherwise wait on itself).
    assertThat(mariadb).doesNotContain("rpl_semi_sync_master_enabled");
    assertThat(mysql).doesNotContain("rpl_semi_sync_source_enabled");
    for (Engine engine : new Engine[] {Engine.MARIADB, Engine.MYSQL}) {
      String version = engine == Engine.MYSQL ? "8.4" : "11.4";
      assertThat(
              EngineProfiles.of(engine)
                  .configFiles(db(engine, version, 3, ReplicationMode.ASYNC))
                  .get("cellar.cnf"))
          .doesNotContain("semi_sync");
      assertThat(
              EngineProfiles.of(engine)
                  .configFiles(db(engine, version, 1, ReplicationMode.SYNC))
                  .get("cellar.cnf"))
          .doesNotContain("semi_sync");
    }
  }
}
