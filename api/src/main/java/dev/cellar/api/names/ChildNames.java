package dev.cellar.api.names;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of a Database's children, pods, volume claims and containers, made from the Database's
 * name alone: the operator creates them by these names, and the plugin and users find them by them.
 * A name that needs more than the Database's name (the engine's scripts ConfigMap, named by the
 * scripts' hash) is the operator's (Topology).
 *
 * @param database the Database's name
 */
public record ChildNames(String database) {

  /** The name of the data volume in the pod template, and so the prefix of its claims. */
  public static final String DATA_VOLUME = "data";

  /** The database container in every database pod. */
  public static final String DATABASE_CONTAINER = "database";

  /** The init container that dumps the old major's data in a major upgrade (old image). */
  public static final String MAJOR_UPGRADE_CONTAINER = "major-upgrade";

  /** The container of the backup Jobs. */
  public static final String BACKUP_CONTAINER = "backup";

  /**
   * The init container that restores a dump into an empty data volume, for a Database started from
   * a backup (spec.bootstrap.fromBackup).
   */
  public static final String RESTORE_CONTAINER = "restore";

  private static final Pattern DATA_CLAIM = Pattern.compile(DATA_VOLUME + "-(.+)-[0-9]+");
  private static final String BACKUP_CLAIM_SUFFIX = "-backups";

  public static ChildNames of(String database) {
    return new ChildNames(database);
  }

  public String statefulSet() {
    return database;
  }

  /** The read-write Service: it reaches the primary only. */
  public String primaryService() {
    return database;
  }

  /** The read-only Service, for replicas > 1: it reaches the replicas. */
  public String readOnlyService() {
    return database + "-ro";
  }

  /** The StatefulSet's governing Service: a stable DNS name for every pod, ready or not. */
  public String headlessService() {
    return database + "-headless";
  }

  public String configMap() {
    return database + "-config";
  }

  public String credentialsSecret() {
    return database + "-credentials";
  }

  /**
   * The exporter's account (monitoring-user, monitoring-password): created once with a random
   * password, like the credentials, and kept or deleted with them.
   */
  public String monitoringSecret() {
    return database + "-monitoring";
  }

  /** The PodMonitor that has the Prometheus Operator scrape the exporters. */
  public String podMonitor() {
    return database;
  }

  /**
   * The Database's own CA (ca.crt, ca.key), which signs its server certificate. One CA per
   * Database, not per namespace: a client that trusts it trusts this Database's servers only, a
   * Database deleted with its CA takes no other Database's trust along, and the Secret follows the
   * Database's deletionPolicy like the credentials (a recreated Database keeps its clients' CA).
   */
  public String caSecret() {
    return database + "-ca";
  }

  /** The server certificate Cellar issues (tls.crt, tls.key, ca.crt), mounted in the pods. */
  public String tlsSecret() {
    return database + "-tls";
  }

  /**
   * The cert-manager Certificate Cellar creates for spec.tls.issuerRef. Not {@link #tlsSecret}'s
   * name: moving between Cellar and cert-manager never has both write one Secret.
   */
  public String certManagerCertificate() {
    return database + "-server";
  }

  /** The Secret cert-manager writes for {@link #certManagerCertificate}. */
  public String certManagerSecret() {
    return database + "-server-tls";
  }

  /**
   * The client certificate Cellar issues for the application user (tls.crt, tls.key, ca.crt) when
   * spec.tls.clientCertificates asks for one; clients mount it, and so do PostgreSQL backup Jobs.
   */
  public String clientTlsSecret() {
    return database + "-client-tls";
  }

  public String podDisruptionBudget() {
    return database;
  }

  /** The NetworkPolicy on the database pods (spec.networkPolicy). */
  public String networkPolicy() {
    return database;
  }

  public String backupClaim() {
    return database + BACKUP_CLAIM_SUFFIX;
  }

  public String backupCronJob() {
    return database + "-backup";
  }

  /**
   * The on-demand backup Job for one value of the backup-now annotation: the same value names the
   * same Job, so a request runs once. At most 45 + 12 + 6 = 63 characters.
   */
  public String onDemandBackupJob(String token) {
    return database + "-backup-now-" + shortHash(token);
  }

  /** The verification Job for one value of the verify-now annotation; as long at most. */
  public String onDemandVerifyJob(String token) {
    return database + "-verify-now-" + shortHash(token);
  }

  private static String shortHash(String token) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash).substring(0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public String pod(int ordinal) {
    return statefulSet() + "-" + ordinal;
  }

  /** The data PVC of one pod, as the StatefulSet controller names it. */
  public String dataClaim(int ordinal) {
    return DATA_VOLUME + "-" + pod(ordinal);
  }

  /**
   * The Databases whose claim could be named {@code claim}: the inverse of {@link #dataClaim} and
   * {@link #backupClaim}, for what names only the claim (an Event about it). Both readings are
   * given when a name allows both; a name of neither form gives none.
   */
  public static Set<String> databasesOfClaim(String claim) {
    Set<String> names = new HashSet<>();
    Matcher data = DATA_CLAIM.matcher(claim);
    if (data.matches()) {
      names.add(data.group(1));
    }
    if (claim.endsWith(BACKUP_CLAIM_SUFFIX) && claim.length() > BACKUP_CLAIM_SUFFIX.length()) {
      names.add(claim.substring(0, claim.length() - BACKUP_CLAIM_SUFFIX.length()));
    }
    return names;
  }
}
