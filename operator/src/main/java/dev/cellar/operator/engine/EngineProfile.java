package dev.cellar.operator.engine;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.TlsMode;
import dev.cellar.api.v1.TlsSpec;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Everything that differs between engines: image, port, paths, environment, probes, dump command
 * and supported versions. Dependents ask the profile and never switch on the engine themselves.
 */
public abstract class EngineProfile {
  /** The uid and gid of the official images' database user (postgres, mysql). */
  public static final long DATABASE_UID = 999L;

  public abstract Engine engine();

  /** The official image repository, e.g. {@code postgres}. */
  protected abstract String imageRepository();

  public abstract int port();

  /** Supported series, oldest first: majors, or major.minor where the engine names them so. */
  public abstract List<String> supportedSeries();

  /** Where the data volume is mounted for this version. */
  public abstract String dataMountPath(EngineVersion version);

  /** Engine-specific environment; credentials come from the Secret named {@code secret}. */
  public abstract List<EnvVar> env(String secret, EngineVersion version);

  /** A shell command that exits 0 when the server accepts connections on this pod. */
  protected abstract String readinessCommand();

  /** A shell command that exits 0 while the server process is alive and answering. */
  protected abstract String livenessCommand();

  /**
   * A shell command that writes a logical dump of every database to stdout, connecting to {@code
   * $DB_HOST} with the credentials of {@link #dumpEnv}.
   */
  public abstract String dumpCommand();

  /**
   * The dump command for {@code db}: {@link #dumpCommand()}, with what its spec.tls needs (the
   * clients of PostgreSQL and MySQL take TLS where the server offers it; MariaDB's before 11.4 do
   * not, and a required mode refuses them).
   */
  public String dumpCommand(Database db) {
    return dumpCommand();
  }

  /**
   * A script for {@code bash -c} that restores the dump on its stdin into a throwaway server of
   * this engine in a temporary directory, asks it a query and prints one line saying what answered
   * (backup verification); it exits non-zero when the dump does not restore.
   */
  public abstract String verifyScript();

  /**
   * The backup Jobs' script for {@code bash -c}: the S3 functions, then backup.sh (see its header
   * for the environment).
   */
  public static String backupScript() {
    return resource("s3.sh") + "\n" + resource("backup.sh");
  }

  /**
   * The script the image's first initialisation runs from /docker-entrypoint-initdb.d to restore a
   * bootstrap's dump (cellar-dump.gz beside it).
   */
  public abstract String restoreScript();

  /** A path that exists once the data directory of {@code version} is initialised. */
  public abstract String initialisedPath(EngineVersion version);

  /**
   * The bootstrap's init container script for {@code bash -c}: the S3 functions, then
   * restore-fetch.sh.
   */
  public static String restoreFetchScript() {
    return resource("s3.sh") + "\n" + resource("restore-fetch.sh");
  }

  /** Credentials the dump command needs, from the Secret named {@code secret}. */
  public abstract List<EnvVar> dumpEnv(String secret);

  /**
   * What the dump command also needs when spec.tls.clientCertificates is on and the Secret is
   * mounted at {@link #CLIENT_TLS_DIR}; empty when it connects as a user that needs no certificate
   * (the MySQL family dumps as root).
   */
  public List<EnvVar> dumpClientCertificateEnv() {
    return List.of();
  }

  /** The URI scheme of the credentials Secret's {@code uri}. */
  public abstract String uriScheme();

  /**
   * Where the Database's configuration and the engine's scripts are mounted (one projected volume
   * of both ConfigMaps) in database pods, and the scripts alone in backup Jobs.
   */
  public static final String CELLAR_DIR = "/etc/cellar";

  /** Where the server certificate Secret (tls.crt, tls.key, ca.crt) is mounted, when TLS is on. */
  public static final String TLS_DIR = "/etc/cellar-tls";

  /**
   * Where the application user's client certificate (spec.tls.clientCertificates) is mounted, in
   * the database pods and the PostgreSQL backup Jobs.
   */
  public static final String CLIENT_TLS_DIR = "/etc/cellar-client-tls";

  /** spec.tls.mode as the scripts read it (CELLAR_TLS_MODE): disabled, enabled or required. */
  public static String tlsMode(Database db) {
    TlsMode mode =
        Optional.ofNullable(db.getSpec().getTls()).map(TlsSpec::getMode).orElse(TlsMode.ENABLED);
    return switch (mode) {
      case DISABLED -> "disabled";
      case ENABLED -> "enabled";
      case REQUIRED -> "required";
    };
  }

  /** Whether the servers of {@code db} speak TLS. */
  public static boolean tlsOn(Database db) {
    return !tlsMode(db).equals("disabled");
  }

  /** Whether {@code db}'s servers refuse connections without TLS. */
  public static boolean tlsRequired(Database db) {
    return tlsMode(db).equals("required");
  }

  /**
   * The query that makes the credentials Secret's {@code uri} verify the server's certificate and
   * name (with the Secret's ca.crt as the client's CA).
   */
  public abstract String uriTlsQuery();

  /** The credentials Secret's {@code uri}: the server verified when TLS is on. */
  public String uri(
      String user, String password, String host, String port, String database, boolean tls) {
    return uriScheme()
        + "://"
        + user
        + ":"
        + password
        + "@"
        + host
        + ":"
        + port
        + "/"
        + database
        + (tls ? "?" + uriTlsQuery() : "");
  }

  /**
   * The Database's own configuration files for its {@code <name>-config} ConfigMap, by file name;
   * mounted at CELLAR_DIR beside the engine's {@link #scripts()}.
   */
  public abstract Map<String, String> configFiles(Database db);

  /** The scripts the database pods run, by file name (the same for every Database). */
  protected abstract Map<String, String> podScripts();

  /** The file names, in the scripts ConfigMap, of the backup Jobs' and the restore's scripts. */
  public static final String BACKUP_JOB_SCRIPT = "backup-job.sh";

  public static final String VERIFY_SCRIPT = "verify-dump.sh";
  public static final String RESTORE_FETCH_SCRIPT = "restore-fetch.sh";
  public static final String RESTORE_SCRIPT = "restore-dump.sh";

  private volatile Map<String, String> scripts;
  private volatile String scriptsHash;

  /**
   * Every script of this engine, by file name: the pods', the backup Jobs' and the restore's. They
   * are the same for every Database, so they live in one immutable ConfigMap per namespace and
   * engine, named by their hash, instead of in each Database's ConfigMap and CronJob (nearly two
   * thirds of what a restarted operator read: docs/performance.md, Scripts in one ConfigMap per
   * engine).
   */
  public final Map<String, String> scripts() {
    if (scripts == null) {
      Map<String, String> files = new TreeMap<>(podScripts());
      files.put(BACKUP_JOB_SCRIPT, backupScript());
      files.put(VERIFY_SCRIPT, verifyScript());
      files.put(RESTORE_FETCH_SCRIPT, restoreFetchScript());
      files.put(RESTORE_SCRIPT, restoreScript());
      scripts = Collections.unmodifiableMap(files);
    }
    return scripts;
  }

  /**
   * A hash of {@link #scripts()}, for the scripts ConfigMap's name: a changed script is a new
   * ConfigMap, so a pod never runs a mix of two operator versions' scripts, and rolls to the new.
   */
  public final String scriptsHash() {
    if (scriptsHash == null) {
      scriptsHash = filesHash(scripts()).substring(0, 10);
    }
    return scriptsHash;
  }

  /** A hash of files by name (hex, 16 digits): the same files, in any order, the same hash. */
  public static String filesHash(Map<String, String> files) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      new TreeMap<>(files)
          .forEach(
              (name, content) -> {
                digest.update(name.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
                digest.update(content.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
              });
      return HexFormat.of().formatHex(digest.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * ConfigMap files that the engine must also find in its own include directory: file name to
   * absolute path in the container.
   */
  public Map<String, String> engineIncludes() {
    return Map.of();
  }

  /** The container command; empty keeps the image's entrypoint. */
  public List<String> command() {
    return List.of();
  }

  /** Container arguments. */
  public List<String> args(Database db) {
    return List.of();
  }

  /** The image to run: spec.image when the user names one, else the official one at version. */
  public String image(Database db, EngineVersion version) {
    return Optional.ofNullable(db.getSpec().getImage())
        .filter(s -> !s.isBlank())
        .orElse(imageRepository() + ":" + version);
  }

  /**
   * The upstream exporter image at the version the tests run: that of the exporter
   * e2e/realnode/images.sh builds from Debian's package (ExporterImagesTest holds them equal).
   */
  protected abstract String exporterImage();

  /** The port the exporter serves /metrics on (its upstream default). */
  public abstract int exporterPort();

  /** The exporter image: spec.monitoring.image, else {@link #exporterImage()}. */
  public String exporterImage(Database db) {
    return Optional.ofNullable(db.getSpec().getMonitoring())
        .map(m -> m.getImage())
        .filter(s -> !s.isBlank())
        .orElse(exporterImage());
  }

  /** The exporter container's arguments (it connects to this pod's server on 127.0.0.1). */
  public abstract List<String> exporterArgs(Database db);

  /**
   * The exporter's environment: its account from the monitoring Secret {@code secret} ({@code
   * CELLAR_MONITORING_USER} and the engine's password variable), never on the command line.
   */
  public abstract List<EnvVar> exporterEnv(Database db, String secret);

  /** The exporter account in the database containers, for primary-setup.sh to create. */
  public static List<EnvVar> monitoringAccountEnv(String secret) {
    return List.of(
        fromSecret("CELLAR_MONITORING_USER", secret, Keys.Monitoring.USER, true),
        fromSecret("CELLAR_MONITORING_PASSWORD", secret, Keys.Monitoring.PASSWORD, true));
  }

  /** The supported series that contains {@code version}, if any. */
  public Optional<String> seriesOf(EngineVersion version) {
    return supportedSeries().stream()
        .filter(series -> version.isIn(EngineVersion.parse(series)))
        .findFirst();
  }

  /** Whether moving from {@code running} to {@code wanted} changes the major (on-disk) format. */
  public boolean isMajorChange(EngineVersion running, EngineVersion wanted) {
    return !seriesOf(running).equals(seriesOf(wanted));
  }

  /**
   * Whether a major change can be rolled out by starting the new server on the old data. False for
   * PostgreSQL, whose data directory needs pg_upgrade.
   */
  public abstract boolean upgradesMajorInPlace();

  /**
   * Whether a major change from {@code running} to {@code wanted} is upgraded by dumping the old
   * data with the old image and restoring it into a new data directory with the new one (see {@link
   * #majorUpgradeEnv}); the old data directory stays as it was, for a rollback.
   */
  public boolean upgradesMajorByDump(EngineVersion running, EngineVersion wanted) {
    return false;
  }

  /**
   * The database container's environment after a major upgrade from {@code from} by dump and
   * restore: the new data directory, the old one and the dump's path. The init container that dumps
   * runs the old image with the same environment and {@link #majorUpgradeDumpCommand}.
   */
  public List<EnvVar> majorUpgradeEnv(String secret, EngineVersion version, EngineVersion from) {
    return env(secret, version);
  }

  /** The command of the init container that dumps the old major's data (old image). */
  public List<String> majorUpgradeDumpCommand() {
    return List.of();
  }

  public Probe readinessProbe() {
    return execProbe(readinessCommand(), 5, 3);
  }

  public Probe livenessProbe() {
    return execProbe(livenessCommand(), 10, 6);
  }

  /**
   * Generous, ten minutes: initialising an empty data directory takes a while on a cold node. Asked
   * every 2 s rather than every 10: a pod counts as started (and its readiness probes begin) only
   * at the first success, so the period is how long a started server waits unseen, at every start
   * of every pod (with OrderedReady, once per pod in turn). The probe ends at that success.
   */
  public Probe startupProbe() {
    return execProbe(livenessCommand(), 2, 300);
  }

  protected static Probe execProbe(String command, int periodSeconds, int failureThreshold) {
    return new ProbeBuilder()
        .withNewExec()
        .withCommand("sh", "-c", command)
        .endExec()
        .withPeriodSeconds(periodSeconds)
        .withTimeoutSeconds(5)
        .withFailureThreshold(failureThreshold)
        .withSuccessThreshold(1)
        .build();
  }

  protected static EnvVar fromSecret(String name, String secret, String key) {
    return fromSecret(name, secret, key, false);
  }

  /** An env var from a Secret key; an optional one is left unset when the key is missing. */
  public static EnvVar fromSecret(String name, String secret, String key, boolean optional) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewSecretKeyRef()
        .withName(secret)
        .withKey(key)
        .withOptional(optional ? Boolean.TRUE : null)
        .endSecretKeyRef()
        .endValueFrom()
        .build();
  }

  /** The container command that runs the engine's entrypoint script from the ConfigMap. */
  protected static List<String> cellarEntrypoint() {
    return List.of("bash", CELLAR_DIR + "/" + ENTRYPOINT);
  }

  /** The entrypoint script's file name in the ConfigMap. */
  public static final String ENTRYPOINT = "entrypoint.sh";

  /**
   * A script or config file shipped with the operator, by its path under this package's resource
   * directory (dev/cellar/operator/engine/), e.g. {@code postgresql/entrypoint.sh}.
   */
  public static String resource(String path) {
    try (InputStream in = EngineProfile.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing resource dev/cellar/operator/engine/" + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static EnvVar value(String name, String value) {
    return new EnvVarBuilder().withName(name).withValue(value).build();
  }
}
