package dev.cellar.operator.engine;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.List;

/** MariaDB on the official {@code mariadb} image. */
public final class MariaDbProfile extends MySqlFamilyProfile {
  @Override
  public Engine engine() {
    return Engine.MARIADB;
  }

  @Override
  protected String imageRepository() {
    return "mariadb";
  }

  @Override
  protected String envPrefix() {
    return "MARIADB_";
  }

  @Override
  public List<String> supportedSeries() {
    return List.of("10.6", "10.11", "11.4", "11.8");
  }

  @Override
  public List<EnvVar> env(String secret, EngineVersion version) {
    List<EnvVar> env = new ArrayList<>(super.env(secret, version));
    // Major upgrades run mariadb-upgrade on first start of the new version.
    env.add(value("MARIADB_AUTO_UPGRADE", "1"));
    return env;
  }

  @Override
  protected String serverSettings() {
    // A replica retries its primary every second (dialect.sh): a million tries keep it trying for
    // about 11 days, as the default 100000 did at the former 10 s.
    return "log_bin = binlog\nbinlog_format = ROW\nlog_slave_updates = ON\n"
        + "master_retry_count = 1000000\n";
  }

  @Override
  protected String semiSyncSettings() {
    // Built into MariaDB since 10.3.3.
    return "rpl_semi_sync_slave_enabled = ON\n"
        + "rpl_semi_sync_master_wait_point = AFTER_SYNC\n"
        + "rpl_semi_sync_master_timeout = "
        + SEMI_SYNC_TIMEOUT_MS
        + "\n";
  }

  @Override
  protected String readinessCommand() {
    return "healthcheck.sh --connect --innodb_initialized";
  }

  @Override
  protected String livenessCommand() {
    return "healthcheck.sh --connect";
  }

  @Override
  public String dumpCommand(Database db) {
    return dumpCommand() + (tlsOn(db) ? " --ssl" : "");
  }

  @Override
  public String dumpCommand() {
    return "mariadb-dump -h \"$DB_HOST\" -P "
        + port()
        + " -uroot --all-databases --single-transaction --routines --events --triggers";
  }
}
