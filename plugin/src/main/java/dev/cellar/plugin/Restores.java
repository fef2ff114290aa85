package dev.cellar.plugin;

import dev.cellar.api.v1.BootstrapSpec;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.FromBackupSpec;
import dev.cellar.api.v1.FromBackupSpec.BackupSource;
import dev.cellar.api.v1.TlsSpec;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The Database that {@code kubectl cellar restore NAME --to NEW} writes: the source's engine,
 * version, size, storage class, replicas, resources, image and scheduling, with {@code
 * spec.bootstrap.fromBackup} naming the source and the dump. Backups of the new Database are left
 * at their defaults (its own volume): it does not write into the source's bucket until told to.
 */
public final class Restores {
  private Restores() {}

  /** What the user asked for besides the names. */
  public record Request(
      String newName,
      String backup,
      String source,
      String engine,
      String version,
      String storage,
      String storageClass) {}

  /**
   * The new Database. {@code sourceDb} may be null (the source is gone): then engine, version and
   * storage must be given, and the dump is read from the volume {@code <source>-backups} unless a
   * source of objectStore is asked for (which needs the source's spec for the bucket).
   */
  public static Database newDatabase(
      String namespace, String sourceName, Database sourceDb, Request request)
      throws Args.UsageException {
    if (!Pattern.matches(Database.NAME_PATTERN, request.newName())
        || request.newName().length() > Database.MAX_NAME_LENGTH) {
      throw new Args.UsageException(
          "--to "
              + request.newName()
              + " is not a Database name (a DNS-1035 label of at most "
              + Database.MAX_NAME_LENGTH
              + " characters)");
    }
    if (request.newName().equals(sourceName)) {
      throw new Args.UsageException("--to must name a new Database, not " + sourceName);
    }
    String backup = request.backup() == null ? "latest" : request.backup();
    if (!Pattern.matches(FromBackupSpec.BACKUP_PATTERN, backup)) {
      throw new Args.UsageException(
          "--backup must be latest or a dump's name such as "
              + sourceName
              + "-20260101T020000Z.sql.gz, not "
              + backup);
    }
    DatabaseSpec spec;
    if (sourceDb != null) {
      DatabaseSpec from = sourceDb.getSpec();
      spec = new DatabaseSpec(from.getEngine(), from.getVersion(), from.getStorage());
      spec.setStorageClassName(from.getStorageClassName());
      spec.setReplicas(from.getReplicas());
      spec.setResources(from.getResources());
      spec.setImage(from.getImage());
      spec.setAffinity(from.getAffinity());
      spec.setTolerations(from.getTolerations());
      spec.setNodeSelector(from.getNodeSelector());
      spec.setTopologySpreadConstraints(from.getTopologySpreadConstraints());
      spec.setPriorityClassName(from.getPriorityClassName());
      // As the source runs: its exporter (or none), replication mode and TLS mode; not its own
      // certificate Secret, which names the source's hosts.
      spec.setMonitoring(from.getMonitoring());
      spec.setReplication(from.getReplication());
      if (from.getTls() != null) {
        spec.setTls(
            new TlsSpec(from.getTls().getMode(), null, from.getTls().getClientCertificates()));
      }
    } else {
      if (request.engine() == null || request.version() == null || request.storage() == null) {
        throw new Args.UsageException(
            "Database "
                + sourceName
                + " is not there: give --engine, --version and --storage for the new one");
      }
      spec = new DatabaseSpec(engine(request.engine()), request.version(), request.storage());
    }
    if (request.engine() != null) {
      Engine engine = engine(request.engine());
      if (sourceDb != null && engine != sourceDb.getSpec().getEngine()) {
        throw new Args.UsageException(
            "a "
                + sourceDb.getSpec().getEngine()
                + " dump restores only into "
                + sourceDb.getSpec().getEngine()
                + ", not "
                + engine);
      }
    }
    if (request.version() != null) {
      spec.setVersion(request.version());
    }
    if (request.storage() != null) {
      spec.setStorage(request.storage());
    }
    if (request.storageClass() != null) {
      spec.setStorageClassName(request.storageClass());
    }

    FromBackupSpec fromBackup = new FromBackupSpec();
    fromBackup.setDatabase(sourceName);
    fromBackup.setBackup(backup);
    boolean sourceHasBucket =
        sourceDb != null
            && sourceDb.getSpec().getBackup() != null
            && sourceDb.getSpec().getBackup().getObjectStore() != null;
    BackupSource source;
    if (request.source() == null) {
      source = sourceHasBucket ? BackupSource.OBJECT_STORE : BackupSource.VOLUME;
    } else if (request.source().equals("volume")) {
      source = BackupSource.VOLUME;
    } else if (request.source().equals("objectStore")) {
      if (!sourceHasBucket) {
        throw new Args.UsageException(
            "--source objectStore needs the bucket from "
                + sourceName
                + "'s spec.backup.objectStore, which "
                + (sourceDb == null ? "is not there" : "is not set"));
      }
      source = BackupSource.OBJECT_STORE;
    } else {
      throw new Args.UsageException(
          "--source must be volume or objectStore, not " + request.source());
    }
    fromBackup.setSource(source);
    if (source == BackupSource.OBJECT_STORE) {
      fromBackup.setObjectStore(sourceDb.getSpec().getBackup().getObjectStore());
    }
    spec.setBootstrap(new BootstrapSpec(fromBackup));
    return new Database(namespace, request.newName(), spec);
  }

  static Engine engine(String value) throws Args.UsageException {
    for (Engine e : Engine.values()) {
      if (e.value().equals(value.toLowerCase(Locale.ROOT))) {
        return e;
      }
    }
    throw new Args.UsageException(
        "--engine must be one of " + Arrays.toString(Engine.values()) + ", not " + value);
  }
}
