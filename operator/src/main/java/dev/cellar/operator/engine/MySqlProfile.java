package dev.cellar.operator.engine;

import dev.cellar.api.v1.Engine;
import java.util.List;

/** MySQL on the official {@code mysql} image. */
public final class MySqlProfile extends MySqlFamilyProfile {
  @Override
  public Engine engine() {
    return Engine.MYSQL;
  }

  @Override
  protected String imageRepository() {
    return "mysql";
  }

  @Override
  protected String envPrefix() {
    return "MYSQL_";
  }

  @Override
  public List<String> supportedSeries() {
    return List.of("8.0", "8.4", "9");
  }

  @Override
  protected String serverSettings() {
    return "gtid_mode = ON\nenforce_gtid_consistency = ON\nlog_bin = binlog\nbinlog_format = ROW\n";
  }

  @Override
  protected String semiSyncSettings() {
    // Plugins in MySQL, named source/replica since 8.0.26.
    return "plugin_load_add = semisync_source.so\n"
        + "plugin_load_add = semisync_replica.so\n"
        + "loose_rpl_semi_sync_replica_enabled = ON\n"
        + "loose_rpl_semi_sync_source_wait_point = AFTER_SYNC\n"
        + "loose_rpl_semi_sync_source_timeout = "
        + SEMI_SYNC_TIMEOUT_MS
        + "\n";
  }

  @Override
  protected String readinessCommand() {
    // ping answers once the server listens on TCP, which the image's init phase never does.
    return "mysqladmin ping -h 127.0.0.1 -P " + port() + " --silent";
  }

  @Override
  protected String livenessCommand() {
    return readinessCommand();
  }

  @Override
  public String dumpCommand() {
    return "mysqldump -h \"$DB_HOST\" -P "
        + port()
        + " -uroot --all-databases --single-transaction --routines --events --triggers";
  }
}
