package dev.cellar.operator.engine;

import dev.cellar.api.names.Keys;
import dev.cellar.api.names.Keys.Credentials;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.ReplicationSpec;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** PostgreSQL on the official {@code postgres} image. */
public final class PostgresProfile extends EngineProfile {
  /** From 18 on, the image keeps PGDATA under /var/lib/postgresql/MAJOR/docker. */
  private static final int VERSIONED_PGDATA_SINCE = 18;

  @Override
  public Engine engine() {
    return Engine.POSTGRESQL;
  }

  @Override
  protected String imageRepository() {
    return "postgres";
  }

  @Override
  public int port() {
    return 5432;
  }

  @Override
  public List<String> supportedSeries() {
    return List.of("13", "14", "15", "16", "17", "18");
  }

  @Override
  public String dataMountPath(EngineVersion version) {
    return version.major() >= VERSIONED_PGDATA_SINCE
        ? "/var/lib/postgresql"
        : "/var/lib/postgresql/data";
  }

  /** A subdirectory, so initdb never meets the volume's lost+found. */
  String dataDirectory(EngineVersion version) {
    return version.major() >= VERSIONED_PGDATA_SINCE
        ? "/var/lib/postgresql/" + version.major() + "/docker"
        : "/var/lib/postgresql/data/pgdata";
  }

  /**
   * After a major upgrade by dump and restore: one data directory per major beside the first, on
   * the same volume ({@code pgdata-17}); the old one and the dump stay.
   */
  String upgradedDataDirectory(EngineVersion version) {
    return "/var/lib/postgresql/data/pgdata-" + version.major();
  }

  @Override
  public boolean upgradesMajorByDump(EngineVersion running, EngineVersion wanted) {
    // 18 moves the volume's mount point (VERSIONED_PGDATA_SINCE): not yet.
    return running.major() < VERSIONED_PGDATA_SINCE
        && wanted.major() < VERSIONED_PGDATA_SINCE
        && wanted.major() > running.major();
  }

  @Override
  public List<EnvVar> majorUpgradeEnv(String secret, EngineVersion version, EngineVersion from) {
    List<EnvVar> env = new ArrayList<>();
    for (EnvVar e : env(secret, version)) {
      env.add(e.getName().equals("PGDATA") ? value("PGDATA", upgradedDataDirectory(version)) : e);
    }
    env.add(value("CELLAR_UPGRADE_OLD_DATA", dataDirectory(from)));
    env.add(
        value(
            "CELLAR_UPGRADE_DUMP",
            "/var/lib/postgresql/data/cellar-upgrade-"
                + from.major()
                + "-to-"
                + version.major()
                + ".sql.gz"));
    return env;
  }

  @Override
  public List<String> majorUpgradeDumpCommand() {
    return List.of("bash", CELLAR_DIR + "/major-upgrade.sh", "dump");
  }

  @Override
  public List<EnvVar> env(String secret, EngineVersion version) {
    return List.of(
        fromSecret("POSTGRES_USER", secret, Credentials.USERNAME),
        fromSecret("POSTGRES_PASSWORD", secret, Credentials.PASSWORD),
        fromSecret("POSTGRES_DB", secret, Credentials.DATABASE),
        value("PGDATA", dataDirectory(version)),
        value("PGPORT", String.valueOf(port())));
  }

  @Override
  protected String readinessCommand() {
    // The server's own pg_isready, not postgresql-common's Perl wrapper on PATH (pg-lib.sh says
    // why): a probe runs every few seconds on every pod.
    return "PATH=/usr/lib/postgresql/$PG_MAJOR/bin:$PATH pg_isready -q -h 127.0.0.1 -p "
        + port()
        + " -U \"$POSTGRES_USER\" -d \"$POSTGRES_DB\"";
  }

  @Override
  protected String livenessCommand() {
    return readinessCommand();
  }

  @Override
  public String dumpCommand() {
    return "pg_dumpall -h \"$DB_HOST\" -p " + port() + " -U \"$PGUSER\"";
  }

  @Override
  public List<EnvVar> dumpEnv(String secret) {
    return List.of(
        fromSecret("PGUSER", secret, Credentials.USERNAME),
        fromSecret("PGPASSWORD", secret, Credentials.PASSWORD));
  }

  /** pg_dumpall connects as the application user, whom pg_hba.conf then asks for a certificate. */
  @Override
  public List<EnvVar> dumpClientCertificateEnv() {
    return List.of(
        value("PGSSLMODE", "verify-full"),
        value("PGSSLROOTCERT", CLIENT_TLS_DIR + "/ca.crt"),
        value("PGSSLCERT", CLIENT_TLS_DIR + "/tls.crt"),
        value("PGSSLKEY", CLIENT_TLS_DIR + "/tls.key"));
  }

  @Override
  public String verifyScript() {
    return resource("lib.sh") + "\n" + resource("postgresql/verify-dump.sh");
  }

  @Override
  public String restoreScript() {
    return resource("postgresql/restore-dump.sh");
  }

  @Override
  public String initialisedPath(EngineVersion version) {
    return dataDirectory(version) + "/PG_VERSION";
  }

  @Override
  public String uriScheme() {
    return "postgresql";
  }

  /** Server settings, passed as -c flags and written to the ConfigMap for reference. */
  static final Map<String, String> SETTINGS =
      new TreeMap<>(
          Map.of(
              "listen_addresses", "*",
              "password_encryption", "scram-sha-256",
              "wal_level", "replica",
              "max_wal_senders", "10",
              "hot_standby", "on",
              // pg_rewind needs it to bring a former primary back as a standby after a failover,
              // and the WAL since the last checkpoint before the timelines diverged.
              "wal_log_hints", "on",
              "wal_keep_size", "64MB",
              // A standby whose primary went retries the primary's Service every second, not 5:
              // after a failover a sync primary's commits wait for a standby to follow it.
              "wal_retrieve_retry_interval", "1s"));

  /**
   * The replication scripts (see each file's header): entrypoint.sh wraps the image's entrypoint;
   * primary-setup.sh and replica-bootstrap.sh also run outside containers; role.sh is what the
   * operator runs through pods/exec to fail over.
   */
  static final List<String> SCRIPTS =
      List.of(
          "entrypoint.sh",
          "pg-lib.sh",
          "primary-setup.sh",
          "replica-bootstrap.sh",
          "role.sh",
          "major-upgrade.sh");

  /**
   * The server's TLS settings when spec.tls is on: the mounted certificate, and the CA that client
   * certificates are checked against. PostgreSQL re-reads these files on pg_reload_conf, so a
   * renewed certificate needs no restart. A required mode is pg_hba.conf's (pg-lib.sh).
   */
  static Map<String, String> tlsSettings(Database db) {
    if (!tlsOn(db)) {
      return Map.of();
    }
    return new TreeMap<>(
        Map.of(
            "ssl", "on",
            "ssl_cert_file", TLS_DIR + "/tls.crt",
            "ssl_key_file", TLS_DIR + "/tls.key",
            "ssl_ca_file", TLS_DIR + "/ca.crt"));
  }

  /**
   * Synchronous replication for spec.replication.mode sync: a commit is acknowledged once any one
   * standby has flushed it (quorum ANY 1 of every standby, whatever its application_name), so the
   * most advanced replica, which a failover promotes, has every acknowledged commit. Set on every
   * pod: a standby ignores it, and a promoted one applies it at once.
   */
  static Map<String, String> replicationSettings(Database db) {
    return ReplicationSpec.synchronous(db.getSpec())
        ? Map.of("synchronous_standby_names", "ANY 1 (*)", "synchronous_commit", "on")
        : Map.of();
  }

  /** Every -c setting: {@link #SETTINGS}, the replication and the TLS ones. */
  static Map<String, String> settings(Database db) {
    Map<String, String> all = new TreeMap<>(SETTINGS);
    all.putAll(replicationSettings(db));
    all.putAll(tlsSettings(db));
    return all;
  }

  @Override
  public String uriTlsQuery() {
    // libpq: TLS, the server's certificate signed by the trusted CA (sslrootcert, by default
    // ~/.postgresql/root.crt: the Secret's ca.crt) and naming the host.
    return "sslmode=verify-full";
  }

  @Override
  public Map<String, String> configFiles(Database db) {
    StringBuilder conf = new StringBuilder("# Passed to postgres as -c flags by Cellar.\n");
    settings(db)
        .forEach((key, value) -> conf.append(key).append(" = '").append(value).append("'\n"));
    Map<String, String> files = new TreeMap<>();
    files.put("postgresql.cellar.conf", conf.toString());
    return files;
  }

  @Override
  protected Map<String, String> podScripts() {
    Map<String, String> files = new TreeMap<>();
    files.put("lib.sh", resource("lib.sh"));
    SCRIPTS.forEach(script -> files.put(script, resource("postgresql/" + script)));
    return files;
  }

  /** The entrypoint script, which runs the image's docker-entrypoint.sh with {@link #args}. */
  @Override
  public List<String> command() {
    return cellarEntrypoint();
  }

  @Override
  public List<String> args(Database db) {
    List<String> args = new ArrayList<>();
    settings(db).forEach((key, value) -> args.addAll(List.of("-c", key + "=" + value)));
    return args;
  }

  @Override
  public boolean upgradesMajorInPlace() {
    return false;
  }

  @Override
  protected String exporterImage() {
    return "quay.io/prometheuscommunity/postgres-exporter:v0.17.1";
  }

  @Override
  public int exporterPort() {
    return 9187;
  }

  @Override
  public List<String> exporterArgs(Database db) {
    return List.of("--web.listen-address=:" + exporterPort());
  }

  /** lib/pq's sslmode: require (encrypted, as hostssl needs) when the server speaks TLS. */
  @Override
  public List<EnvVar> exporterEnv(Database db, String secret) {
    return List.of(
        value(
            "DATA_SOURCE_URI",
            "127.0.0.1:"
                + port()
                + "/postgres?sslmode="
                + (EngineProfile.tlsOn(db) ? "require" : "disable")),
        fromSecret("DATA_SOURCE_USER", secret, Keys.Monitoring.USER),
        fromSecret("DATA_SOURCE_PASS", secret, Keys.Monitoring.PASSWORD));
  }
}
