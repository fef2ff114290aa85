package dev.cellar.operator.backup;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.v1.BackupSpec;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.FromBackupSpec;
import dev.cellar.api.v1.ObjectStoreSpec;
import dev.cellar.operator.credentials.CredentialsSecret;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.storage.StoragePlan;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before a Database restored from a backup ({@code spec.bootstrap.fromBackup}) gets its pods: is
 * its source there? A source that is not holds the StatefulSet back (no pod, no claim waiting on a
 * volume that does not exist) and the Database is {@code Failed} with reason {@code
 * RestoreSourceMissing}, its message naming the source Database, where Cellar looked and what to
 * do; once the source is there the restore goes ahead, with no change to the spec. Nothing marks
 * that moment (the source's volume, bucket or status are not this Database's children), so a
 * Database held back looks again every {@link #RECHECK}.
 *
 * <p>What is checked is what can be told without a pod:
 *
 * <ul>
 *   <li>source {@code volume}: the claim {@code <database>-backups} exists in the namespace, and,
 *       if Database {@code <database>} is there too and backs up to that volume, its status names a
 *       backup taken (its files cannot be listed without a pod: a backup named in {@code backup} is
 *       not looked for);
 *   <li>source {@code objectStore}: a ListObjectsV2 of the bucket, by the operator, with the keys
 *       of the Secret the spec names: a dump {@code <database>-<timestamp>.sql.gz} under the prefix
 *       (or the one named in {@code backup}).
 * </ul>
 *
 * Keys the store refuses, or a credentials Secret that is missing or lacks a key, also hold the
 * pods back (the restore would fail the same way in the pod), with reason {@code RestoreFailed}
 * naming that cause. A store the operator cannot reach, or whose answer says nothing about the dump
 * (AccessDenied: keys allowed to read a dump need not be allowed to list; a server error), is no
 * verdict: the operator's network is not the pods', so the pods go ahead and the restore's init
 * container says what it meets (PodTrouble). The check stops once the StatefulSet or a data claim
 * exists: from then on the restore is the pods' (and a running Database's pods are never held back
 * by a source deleted since).
 */
public final class RestoreSource {
  private static final Logger log = LoggerFactory.getLogger(RestoreSource.class);

  /**
   * How often a Database held back looks again: within a minute of the source appearing, at the
   * cost of one cache lookup (volume) or one small request to the bucket a half minute while it is
   * missing; the status is written only when what it says changes.
   */
  public static final Duration RECHECK = Duration.ofSeconds(30);

  private static final String CONTEXT_KEY = RestoreSource.class.getName();

  private RestoreSource() {}

  /**
   * What the check decided.
   *
   * @param holdsBack why the pods are held back, as Degraded will say it; empty: they may be made
   */
  public record Outcome(Optional<Failure> holdsBack) {
    public static final Outcome GO = new Outcome(Optional.empty());

    static Outcome hold(Reason reason, String message) {
      return new Outcome(Optional.of(new Failure(reason, message)));
    }

    public boolean allowsPods() {
      return holdsBack.isEmpty();
    }

    /** When to look again: while held back, the source is not watched. */
    public Optional<Duration> recheck() {
      return holdsBack.map(h -> RECHECK);
    }
  }

  /**
   * Checks {@code db}'s source if it is to be restored now, and keeps the outcome for the workflow.
   */
  public static Outcome check(Database db, Context<Database> context, StoragePlan storage) {
    Outcome outcome = Outcome.GO;
    if (asked(db, storage)) {
      FromBackupSpec from = db.getSpec().getBootstrap().getFromBackup();
      outcome = fromStore(from) ? bucket(db, from, context) : volume(db, from, context);
    }
    context.managedWorkflowAndDependentResourceContext().put(CONTEXT_KEY, outcome);
    return outcome;
  }

  /** The outcome {@link #check} kept for this reconcile: GO when none ran. */
  public static Outcome of(Context<Database> context) {
    return context
        .managedWorkflowAndDependentResourceContext()
        .get(CONTEXT_KEY, Outcome.class)
        .orElse(Outcome.GO);
  }

  /**
   * Whether the source is to be checked: a restore is asked for, no StatefulSet and no data claim
   * exist yet (the restore has not begun), and the version is one that runs (else nothing would be
   * created anyway, and the status names that).
   */
  static boolean asked(Database db, StoragePlan storage) {
    return db.getSpec().getBootstrap() != null
        && db.getSpec().getBootstrap().getFromBackup() != null
        && storage.statefulSet().isEmpty()
        && storage.dataClaims().isEmpty()
        && Topology.of(db).versionDecision(Optional.empty()).target().isPresent();
  }

  /**
   * As the restore's init container (dependent.BootstrapRestore) reads it: from the bucket when one
   * is named for objectStore.
   */
  static boolean fromStore(FromBackupSpec from) {
    return from.getSource() != FromBackupSpec.BackupSource.VOLUME && from.getObjectStore() != null;
  }

  // Source volume.

  private static Outcome volume(Database db, FromBackupSpec from, Context<Database> context) {
    String claim = ChildNames.of(from.getDatabase()).backupClaim();
    String ns = db.getMetadata().getNamespace();
    boolean claimExists =
        StoragePlan.cachedClaim(context, ns, claim).isPresent()
            // A claim without Cellar's labels (made by hand for the dumps) is not in the cache.
            || context.getClient().persistentVolumeClaims().inNamespace(ns).withName(claim).get()
                != null;
    Optional<Database> source =
        context.getPrimaryCache().get(new ResourceID(from.getDatabase(), ns));
    return volume(db, from, claimExists, source);
  }

  /** The verdict on a volume source, from whether its claim exists and the source Database. */
  static Outcome volume(
      Database db, FromBackupSpec from, boolean claimExists, Optional<Database> source) {
    String name = from.getDatabase();
    String claim = ChildNames.of(from.getDatabase()).backupClaim();
    if (!claimExists && source.isPresent()) {
      return Outcome.hold(
          Reason.RESTORE_SOURCE_MISSING,
          "bootstrap.fromBackup: Database "
              + name
              + " keeps no backups on a volume (no PVC "
              + claim
              + ", where source volume reads its dumps). Turn its backups on (spec.backupEnabled,"
              + " without spec.backup.objectStore) and take one (kubectl cellar backup "
              + name
              + "), or restore from its bucket (source: objectStore)"
              + WAITING);
    }
    if (!claimExists) {
      return Outcome.hold(
          Reason.RESTORE_SOURCE_MISSING,
          "bootstrap.fromBackup: Database "
              + name
              + " has no backups volume in namespace "
              + db.getMetadata().getNamespace()
              + " (no PVC "
              + claim
              + ", where source volume reads its dumps). Create Database "
              + name
              + " with backups on a volume and take a backup (kubectl cellar backup "
              + name
              + "), or restore from a bucket (source: objectStore)"
              + WAITING);
    }
    if (source.isPresent() && backsUpToVolume(source.get()) && !recordsBackup(source.get())) {
      return Outcome.hold(
          Reason.RESTORE_SOURCE_MISSING,
          "bootstrap.fromBackup: Database "
              + name
              + " has taken no backup yet (its status names none), so PVC "
              + claim
              + " holds no dump of it. Take one (kubectl cellar backup "
              + name
              + ") or wait for its schedule"
              + WAITING);
    }
    return Outcome.GO;
  }

  private static boolean backsUpToVolume(Database source) {
    BackupSpec backup = source.getSpec().getBackup();
    return backup == null || backup.getObjectStore() == null;
  }

  private static boolean recordsBackup(Database source) {
    DatabaseStatus status = source.getStatus();
    return status != null && (status.getLastBackup() != null || status.getLastBackupTime() != null);
  }

  // Source objectStore.

  private static Outcome bucket(Database db, FromBackupSpec from, Context<Database> context) {
    ObjectStoreSpec store = from.getObjectStore();
    Optional<Secret> secret =
        CredentialsSecret.named(Topology.of(db), store.getCredentialsSecret(), context);
    Optional<Outcome> keysMissing = keysMissing(db, from, secret.map(CredentialsSecret::values));
    if (keysMissing.isPresent()) {
      return keysMissing.get();
    }
    Map<String, String> keys = CredentialsSecret.values(secret.get());
    SigV4 signer =
        new SigV4(
            keys.get(ObjectStoreSpec.ACCESS_KEY_ID),
            keys.get(ObjectStoreSpec.SECRET_ACCESS_KEY),
            Optional.ofNullable(store.getRegion()).orElse("us-east-1"),
            "s3");
    S3Listing.Answer answer =
        S3Listing.list(
            store.getEndpoint(),
            store.getBucket(),
            keyPrefix(store) + listed(from),
            signer,
            Instant.now());
    Outcome outcome = bucket(db, from, answer);
    if (outcome.allowsPods()
        && answer.kind() != S3Listing.Kind.LISTED
        && answer.kind() != S3Listing.Kind.NO_BUCKET) {
      // Once: the StatefulSet is made now, and the check does not run again.
      log.info(
          "could not check the dump of {} for {}/{} at {}: {}; its pods go ahead and the restore"
              + " says what it finds",
          from.getDatabase(),
          db.getMetadata().getNamespace(),
          db.getMetadata().getName(),
          store.getEndpoint(),
          answer.detail());
    }
    return outcome;
  }

  /**
   * A Secret that is missing or lacks a key: the pods could not start (their environment reads both
   * keys), and the operator cannot list.
   */
  static Optional<Outcome> keysMissing(
      Database db, FromBackupSpec from, Optional<Map<String, String>> secret) {
    String name = from.getObjectStore().getCredentialsSecret();
    if (secret.isEmpty()) {
      return Optional.of(
          Outcome.hold(
              Reason.RESTORE_FAILED,
              "bootstrap.fromBackup: Secret "
                  + name
                  + " (objectStore.credentialsSecret) does not exist in namespace "
                  + db.getMetadata().getNamespace()
                  + ": create it with the keys "
                  + ObjectStoreSpec.ACCESS_KEY_ID
                  + " and "
                  + ObjectStoreSpec.SECRET_ACCESS_KEY
                  + " of the bucket that holds the dumps of Database "
                  + from.getDatabase()
                  + WAITING));
    }
    List<String> lacking = new ArrayList<>();
    for (String key : List.of(ObjectStoreSpec.ACCESS_KEY_ID, ObjectStoreSpec.SECRET_ACCESS_KEY)) {
      if (secret.get().getOrDefault(key, "").isEmpty()) {
        lacking.add(key);
      }
    }
    if (lacking.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        Outcome.hold(
            Reason.RESTORE_FAILED,
            "bootstrap.fromBackup: Secret "
                + name
                + " (objectStore.credentialsSecret) lacks "
                + String.join(" and ", lacking)
                + ": add the keys of the bucket that holds the dumps of Database "
                + from.getDatabase()
                + WAITING));
  }

  /** The verdict on a bucket source, from the store's answer. */
  static Outcome bucket(Database db, FromBackupSpec from, S3Listing.Answer answer) {
    ObjectStoreSpec store = from.getObjectStore();
    String name = from.getDatabase();
    String where =
        "s3://" + store.getBucket() + "/" + keyPrefix(store) + " at " + store.getEndpoint();
    switch (answer.kind()) {
      case LISTED -> {
        if (answer.truncated() || answer.keys().stream().anyMatch(k -> isDump(store, from, k))) {
          // More than 1,000 keys under the prefix: a dump may be among those not listed.
          return Outcome.GO;
        }
        return Outcome.hold(
            Reason.RESTORE_SOURCE_MISSING,
            latest(from)
                ? "bootstrap.fromBackup: no dump of Database "
                    + name
                    + " in "
                    + where
                    + " (its dumps are named "
                    + name
                    + "-<UTC timestamp>.sql.gz). Check fromBackup.database and objectStore"
                    + " (bucket, prefix) against the source's spec.backup.objectStore, or take a"
                    + " backup of "
                    + name
                    + WAITING
                : "bootstrap.fromBackup: no dump "
                    + from.getBackup()
                    + " of Database "
                    + name
                    + " in "
                    + where
                    + ". Name one that is there (the source's status.lastBackup.name) or use"
                    + " backup: latest"
                    + WAITING);
      }
      case NO_BUCKET -> {
        return Outcome.hold(
            Reason.RESTORE_SOURCE_MISSING,
            "bootstrap.fromBackup: bucket "
                + store.getBucket()
                + " does not exist at "
                + store.getEndpoint()
                + ", so no dump of Database "
                + name
                + " is there. Check objectStore.bucket and endpoint against the source's"
                + " spec.backup.objectStore"
                + WAITING);
      }
      case REFUSED -> {
        return Outcome.hold(
            Reason.RESTORE_FAILED,
            "bootstrap.fromBackup: the object store at "
                + store.getEndpoint()
                + " refused the credentials in Secret "
                + store.getCredentialsSecret()
                + " ("
                + answer.detail()
                + ") when Cellar looked for the dumps of Database "
                + name
                + " in s3://"
                + store.getBucket()
                + "/"
                + keyPrefix(store)
                + "; check "
                + ObjectStoreSpec.ACCESS_KEY_ID
                + ", "
                + ObjectStoreSpec.SECRET_ACCESS_KEY
                + " and objectStore.region"
                + WAITING);
      }
      default -> {
        return Outcome.GO;
      }
    }
  }

  /** The end of every message: what happens next. */
  static final String WAITING =
      ". No pod is created until the dump is found; Cellar looks again every "
          + RECHECK.toSeconds()
          + " s";

  /**
   * The key prefix as the scripts use it (restore-fetch.sh): without a leading slash, with one
   * trailing slash unless empty.
   */
  static String keyPrefix(ObjectStoreSpec store) {
    String prefix = Optional.ofNullable(store.getPrefix()).orElse("").replaceAll("^/+|/+$", "");
    return prefix.isEmpty() ? "" : prefix + "/";
  }

  private static boolean latest(FromBackupSpec from) {
    return from.getBackup() == null || "latest".equals(from.getBackup());
  }

  /** What to list under the prefix: the source's dumps, or the one named. */
  static String listed(FromBackupSpec from) {
    return latest(from) ? from.getDatabase() + "-" : from.getBackup();
  }

  /** Whether {@code key} is a dump the restore would take (the pattern of restore-fetch.sh). */
  static boolean isDump(ObjectStoreSpec store, FromBackupSpec from, String key) {
    String prefix = keyPrefix(store);
    if (!key.startsWith(prefix)) {
      return false;
    }
    String name = key.substring(prefix.length());
    return latest(from)
        ? Pattern.matches(
            Pattern.quote(from.getDatabase()) + "-[0-9]{8}T[0-9]{6}Z\\.sql\\.gz", name)
        : name.equals(from.getBackup());
  }
}
