package dev.cellar.api.names;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The status vocabulary: every condition type and every reason Cellar writes, and the reasons of
 * its Events. Status and Events both name reasons through {@link Reason}, so renaming one renames
 * it everywhere; {@link Reason#of(Type)} answers "which reasons can Ready have". The kubectl plugin
 * reads conditions and Events by these values too.
 */
public final class Conditions {
  private Conditions() {}

  /** The condition types, each always present once a Database is reconciled. */
  public enum Type {
    /** The database runs the current spec and every replica is ready. */
    READY("Ready"),
    /** The primary accepts connections. */
    AVAILABLE("Available"),
    /** A create, scale, upgrade or resize is under way. */
    PROGRESSING("Progressing"),
    /** Something needs the user's attention; the reason names it, the message says what to do. */
    DEGRADED("Degraded"),
    /** Backups are scheduled and the last one succeeded. */
    BACKUP_READY("BackupReady");

    private final String value;

    Type(String value) {
      this.value = value;
    }

    public String value() {
      return value;
    }
  }

  /**
   * Every reason, with the condition types that use it. A reason with no type is an Event's only.
   */
  public enum Reason {
    // Ready
    READY("Ready", Type.READY),
    CREATING("Creating", Type.READY, Type.PROGRESSING),
    PODS_NOT_READY("PodsNotReady", Type.READY),
    // Available
    PRIMARY_READY("PrimaryReady", Type.AVAILABLE),
    PRIMARY_NOT_READY("PrimaryNotReady", Type.AVAILABLE),
    // Available, around a failover: the primary is unavailable and a replica takes over after
    // spec.failover.delaySeconds (FailingOver), none can (NoFailoverCandidate), promoting failed
    // (FailoverFailed), or a replica was promoted (FailedOver, also the Event's reason).
    FAILING_OVER("FailingOver", Type.AVAILABLE),
    // The two that need the user are named in Degraded too (StatusFactory.degraded).
    NO_FAILOVER_CANDIDATE("NoFailoverCandidate", Type.AVAILABLE, Type.DEGRADED),
    FAILOVER_FAILED("FailoverFailed", Type.AVAILABLE, Type.DEGRADED),
    FAILED_OVER("FailedOver", Type.AVAILABLE),
    // Available after a planned switchover (annotation cellar.dev/switchover-to), and the Events.
    SWITCHED_OVER("SwitchedOver", Type.AVAILABLE),
    SWITCHOVER_FAILED("SwitchoverFailed"),
    // Progressing
    UPGRADING("Upgrading", Type.PROGRESSING),
    // A major upgrade by dump and restore (PostgreSQL): the old major dumps, the new restores.
    UPGRADING_MAJOR("UpgradingMajor", Type.PROGRESSING),
    ROLLING_OUT("RollingOut", Type.PROGRESSING),
    // A new template replaced pod by pod in Cellar's order; the message names the pod.
    ROLLING_UPDATE("RollingUpdate", Type.PROGRESSING),
    RESIZING_STORAGE("ResizingStorage", Type.READY, Type.PROGRESSING),
    RECONCILED("Reconciled", Type.PROGRESSING),
    // Version refusals: Ready, Progressing (nothing to roll out) and Degraded.
    UNSUPPORTED_VERSION("UnsupportedVersion", Type.READY, Type.PROGRESSING, Type.DEGRADED),
    DOWNGRADE_REFUSED("DowngradeRefused", Type.READY, Type.PROGRESSING, Type.DEGRADED),
    MAJOR_UPGRADE_UNSUPPORTED(
        "MajorUpgradeUnsupported", Type.READY, Type.PROGRESSING, Type.DEGRADED),
    // Hibernation: spec.hibernated stops every pod (Ready, Available and Progressing say so).
    HIBERNATED("Hibernated", Type.READY, Type.AVAILABLE, Type.PROGRESSING),
    HIBERNATING("Hibernating", Type.PROGRESSING),
    WAKING("Waking", Type.PROGRESSING),
    // Degraded
    RESIZE_UNSUPPORTED("ResizeUnsupported", Type.READY, Type.DEGRADED),
    RECONCILE_ERROR("ReconcileError", Type.DEGRADED),
    REPLICAS_NOT_READY("ReplicasNotReady", Type.DEGRADED),
    AS_EXPECTED("AsExpected", Type.DEGRADED),
    // Degraded: why pods cannot run (PodTrouble), what the operator cannot write.
    IMAGE_PULL_FAILED("ImagePullFailed", Type.DEGRADED),
    POD_CONFIG_ERROR("PodConfigError", Type.DEGRADED),
    CRASH_LOOP("CrashLoop", Type.DEGRADED),
    // A container that runs but has not been ready for minutes: its readiness probe fails.
    READINESS_FAILING("ReadinessFailing", Type.DEGRADED),
    OOM_KILLED("OOMKilled", Type.DEGRADED),
    UNSCHEDULABLE("Unschedulable", Type.DEGRADED),
    VOLUME_PENDING("VolumePending", Type.DEGRADED),
    POD_CREATION_FAILED("PodCreationFailed", Type.DEGRADED),
    CREDENTIALS_INCOMPLETE("CredentialsIncomplete", Type.DEGRADED),
    // The credentials Secret's passwords changed and could not be applied in a server (Degraded);
    // the Event when they were.
    CREDENTIALS_NOT_APPLIED("CredentialsNotApplied", Type.DEGRADED),
    CREDENTIALS_APPLIED("CredentialsApplied"),
    // A restore (bootstrap.fromBackup) that failed in its pod; or, before any pod, keys the bucket
    // refuses (then Ready and Progressing say so too: nothing is created).
    RESTORE_FAILED("RestoreFailed", Type.READY, Type.PROGRESSING, Type.DEGRADED),
    // A restore whose source is not there (backup.RestoreSource): no pod is created until it is.
    RESTORE_SOURCE_MISSING("RestoreSourceMissing", Type.READY, Type.PROGRESSING, Type.DEGRADED),
    // The server certificate (spec.tls): a user's Secret missing or unreadable, a certificate near
    // its expiry that was not renewed (Degraded); the Event when Cellar renewed it.
    CERTIFICATE_INVALID("CertificateInvalid", Type.DEGRADED),
    CERTIFICATE_EXPIRING("CertificateExpiring", Type.DEGRADED),
    CERTIFICATE_RENEWED("CertificateRenewed"),
    WRITE_LOOP("WriteLoop", Type.DEGRADED),
    // BackupReady (BackupFailed is also a Degraded reason)
    BACKUP_DISABLED("BackupDisabled", Type.BACKUP_READY),
    BACKUP_PENDING("BackupPending", Type.BACKUP_READY),
    BACKUP_FAILED("BackupFailed", Type.BACKUP_READY, Type.DEGRADED),
    BACKUP_SUCCEEDED("BackupSucceeded", Type.BACKUP_READY),
    BACKUP_VERIFICATION_FAILED("BackupVerificationFailed", Type.BACKUP_READY, Type.DEGRADED),
    BACKUPS_PAUSED("BackupsPaused", Type.BACKUP_READY),
    SCHEDULED("Scheduled", Type.BACKUP_READY),
    // Events only
    CREATED("Created"),
    SCALED("Scaled");

    private final String value;
    private final Set<Type> types;

    Reason(String value, Type... types) {
      this.value = value;
      this.types = Set.of(types);
    }

    public String value() {
      return value;
    }

    /** The condition types that can carry this reason. */
    public Set<Type> types() {
      return types;
    }

    /** The reasons a condition of {@code type} can have. */
    public static List<Reason> of(Type type) {
      return Arrays.stream(values()).filter(r -> r.types.contains(type)).toList();
    }

    /** The reason whose value is {@code value}. */
    public static java.util.Optional<Reason> byValue(String value) {
      return Arrays.stream(values()).filter(r -> r.value.equals(value)).findFirst();
    }
  }
}
