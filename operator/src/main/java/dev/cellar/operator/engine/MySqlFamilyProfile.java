package dev.cellar.operator.engine;

import dev.cellar.api.names.Keys;
import dev.cellar.api.names.Keys.Credentials;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.ReplicationSpec;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Probe;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What MySQL and MariaDB share: port, data path, my.cnf include, root-user dumps. */
abstract class MySqlFamilyProfile extends EngineProfile {
  /** Prefix of the image's environment contract: MYSQL_ or MARIADB_. */
  protected abstract String envPrefix();

  /** The engine's settings in {@code [mysqld]}. */
  protected abstract String serverSettings();

  @Override
  public int port() {
    return 3306;
  }

  @Override
  public String dataMountPath(EngineVersion version) {
    return "/var/lib/mysql";
  }

  @Override
  public List<EnvVar> env(String secret, EngineVersion version) {
    String p = envPrefix();
    return List.of(
        fromSecret(p + "ROOT_PASSWORD", secret, Credentials.ROOT_PASSWORD),
        fromSecret(p + "USER", secret, Credentials.USERNAME),
        fromSecret(p + "PASSWORD", secret, Credentials.PASSWORD),
        fromSecret(p + "DATABASE", secret, Credentials.DATABASE));
  }

  @Override
  public List<EnvVar> dumpEnv(String secret) {
    return List.of(fromSecret("MYSQL_PWD", secret, Credentials.ROOT_PASSWORD));
  }

  @Override
  public String verifyScript() {
    return resource("lib.sh")
        + "\n"
        + resource(engine().value() + "/dialect.sh")
        + "\n"
        + resource("mysql-family/verify-dump.sh");
  }

  @Override
  public String restoreScript() {
    return resource("mysql-family/restore-dump.sh");
  }

  @Override
  public String initialisedPath(EngineVersion version) {
    return dataMountPath(version) + "/mysql";
  }

  @Override
  public String uriScheme() {
    return "mysql";
  }

  /**
   * The server's TLS settings when spec.tls is on: the mounted certificate and CA, and with mode
   * required, no connection over TCP without TLS (require_secure_transport; the Unix socket, which
   * the probes and scripts use, counts as secure). MariaDB reloads the files with FLUSH SSL, MySQL
   * with ALTER INSTANCE RELOAD TLS (role.sh tls-reload), so a renewal needs no restart.
   */
  static String tlsSettings(Database db) {
    if (!tlsOn(db)) {
      return "";
    }
    return "# TLS (spec.tls)\n"
        + "ssl_cert = "
        + TLS_DIR
        + "/tls.crt\n"
        + "ssl_key = "
        + TLS_DIR
        + "/tls.key\n"
        + "ssl_ca = "
        + TLS_DIR
        + "/ca.crt\n"
        + (tlsRequired(db) ? "require_secure_transport = ON\n" : "");
  }

  /**
   * The engine's semi-synchronous replication settings, for spec.replication.mode sync: the primary
   * acknowledges a commit once a replica has received it (AFTER_SYNC, so no other session sees it
   * before). The replica's side is on in every pod; the primary's waits are switched on by
   * server-args.sh and role.sh promote on the primary only (CELLAR_REPLICATION_MODE=sync), since a
   * replica with them on would wait, for every transaction it applies, for replicas of its own.
   * Prefixed loose- where a plugin provides them, so a server without it still starts.
   */
  protected abstract String semiSyncSettings();

  /**
   * How long a sync primary waits for a replica before it gives up and acknowledges on its own (the
   * engines' default is 10 s). Long: an acknowledged commit must be on a replica, so writes wait
   * for one rather than silently turning asynchronous.
   */
  static final long SEMI_SYNC_TIMEOUT_MS = 3_600_000;

  /** The semi-sync settings when the Database asks for sync and has a replica, else none. */
  String replicationSettings(Database db) {
    return ReplicationSpec.synchronous(db.getSpec())
        ? "# spec.replication.mode: sync\n" + semiSyncSettings()
        : "";
  }

  @Override
  public String uriTlsQuery() {
    // The MySQL connection-string form (MySQL Shell, Connector/J as sslMode): TLS, the server's
    // certificate signed by the trusted CA (ssl-ca: the Secret's ca.crt) and naming the host.
    return "ssl-mode=VERIFY_IDENTITY";
  }

  /**
   * The replication scripts that MySQL and MariaDB share (see each file's header): entrypoint.sh
   * wraps the image's entrypoint; server-args.sh, primary-setup.sh and replica-bootstrap.sh also
   * run outside containers. dialect.sh names each engine's programs and SQL.
   */
  static final List<String> SCRIPTS =
      List.of(
          "entrypoint.sh",
          "mysql-lib.sh",
          "server-args.sh",
          "primary-setup.sh",
          "replica-bootstrap.sh",
          "role.sh");

  @Override
  public Map<String, String> configFiles(Database db) {
    Map<String, String> files = new TreeMap<>();
    files.put(
        "cellar.cnf",
        "# Written by Cellar; the image includes every file of this directory.\n[mysqld]\n"
            + "skip-name-resolve\n"
            // Relay logs named after the pod's host name would be lost if it changed.
            + "relay_log = relay-bin\n"
            + serverSettings()
            + replicationSettings(db)
            + tlsSettings(db));
    return files;
  }

  @Override
  protected Map<String, String> podScripts() {
    Map<String, String> files = new TreeMap<>();
    files.put("lib.sh", resource("lib.sh"));
    files.put("dialect.sh", resource(engine().value() + "/dialect.sh"));
    SCRIPTS.forEach(script -> files.put(script, resource("mysql-family/" + script)));
    return files;
  }

  /**
   * The entrypoint script, which runs the image's docker-entrypoint.sh with the server_id and, on
   * replicas, the read-only switches (server-args.sh): the include directory is read-only.
   */
  @Override
  public List<String> command() {
    return cellarEntrypoint();
  }

  /**
   * Ready when the server answers and, on a replica, its SQL thread applies what it receives
   * (role.sh replicating). A replica whose applier stopped on an error would serve ever staler
   * reads through {@code <name>-ro} and could be elected at a failover; unready, it leaves the
   * Service, is no candidate, and the Database says ReplicasNotReady while {@code kubectl describe
   * pod} shows the thread's last error.
   */
  @Override
  public Probe readinessProbe() {
    return execProbe(readinessCommand() + " && bash " + CELLAR_DIR + "/role.sh replicating", 5, 3);
  }

  @Override
  public Map<String, String> engineIncludes() {
    return Map.of("cellar.cnf", "/etc/mysql/conf.d/cellar.cnf");
  }

  @Override
  public boolean upgradesMajorInPlace() {
    return true;
  }

  @Override
  protected String exporterImage() {
    return "prom/mysqld-exporter:v0.17.2";
  }

  @Override
  public int exporterPort() {
    return 9104;
  }

  /**
   * The account's name from the environment ($(VAR), expanded by the kubelet); its password in
   * MYSQLD_EXPORTER_PASSWORD. With TLS on, the connection is encrypted without verifying the name
   * (127.0.0.1 is not in the certificate), as require_secure_transport needs.
   */
  @Override
  public List<String> exporterArgs(Database db) {
    List<String> args = new ArrayList<>();
    args.add("--web.listen-address=:" + exporterPort());
    args.add("--mysqld.address=127.0.0.1:" + port());
    args.add("--mysqld.username=$(CELLAR_MONITORING_USER)");
    if (EngineProfile.tlsOn(db)) {
      args.add("--tls.insecure-skip-verify");
    }
    return List.copyOf(args);
  }

  @Override
  public List<EnvVar> exporterEnv(Database db, String secret) {
    return List.of(
        fromSecret("CELLAR_MONITORING_USER", secret, Keys.Monitoring.USER),
        fromSecret("MYSQLD_EXPORTER_PASSWORD", secret, Keys.Monitoring.PASSWORD));
  }
}
