package dev.cellar.operator.status;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.dependent.BackupCronJobDependent;
import dev.cellar.operator.dependent.BackupPvcDependent;
import dev.cellar.operator.dependent.CredentialsSecretDependent;
import dev.cellar.operator.dependent.PrimaryServiceDependent;
import dev.cellar.operator.dependent.ReadOnlyServiceDependent;
import dev.cellar.operator.dependent.StatefulSetDependent;
import dev.cellar.operator.engine.EngineProfiles;
import dev.cellar.operator.engine.VersionDecision;
import dev.cellar.operator.storage.StorageResize;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** Computes a Database's status from what its children report. Pure: no API calls. */
public final class StatusFactory {
  public static final String READY = "Ready";
  public static final String AVAILABLE = "Available";
  public static final String PROGRESSING = "Progressing";
  public static final String DEGRADED = "Degraded";
  public static final String BACKUP_READY = "BackupReady";

  public static final String BACKUP_FAILED = "BackupFailed";
  public static final String RECONCILE_ERROR = "ReconcileError";
  public static final String REPLICAS_NOT_READY = "ReplicasNotReady";

  private StatusFactory() {}

  public static DatabaseStatus compute(Database db, Observed observed, Instant now) {
    DatabaseStatus previous = Optional.ofNullable(db.getStatus()).orElseGet(DatabaseStatus::new);
    long generation = Optional.ofNullable(db.getMetadata().getGeneration()).orElse(0L);
    int desired = db.getSpec().getReplicas();
    Optional<StatefulSet> sts = observed.statefulSet();
    VersionDecision decision = observed.versionDecision();
    int ready = sts.map(StatefulSet::getStatus).map(StatefulSetStatus::getReadyReplicas).orElse(0);
    boolean rolledOut = sts.map(s -> rolledOut(s, desired)).orElse(false);
    boolean primaryReady = observed.primaryPod().map(StatusFactory::podReady).orElse(false);
    boolean wasReadyBefore =
        previous.getPhase() != null && previous.getPhase() != Phase.Provisioning;
    String endpoint = PrimaryServiceDependent.host(db) + ":" + EngineProfiles.of(db).port();

    ConditionSet conditions = new ConditionSet(previous.getConditions(), generation, now);

    // Ready: the current spec runs and every replica is ready.
    StorageResize.Outcome storage = observed.storage();
    boolean isReady =
        rolledOut
            && ready == desired
            && primaryReady
            && decision.refusal().isEmpty()
            && storage.reason().isEmpty();
    if (isReady) {
      conditions.set(
          READY, true, "Ready", desired + "/" + desired + " replicas ready; " + endpoint);
    } else if (decision.refusal().isPresent()) {
      conditions.set(
          READY, false, decision.refusal().get().reason(), decision.refusal().get().message());
    } else if (storage.reason().isPresent()) {
      conditions.set(READY, false, storage.reason().get(), storage.message());
    } else {
      conditions.set(
          READY,
          false,
          sts.isEmpty() ? "Creating" : "PodsNotReady",
          ready + "/" + desired + " replicas ready");
    }

    // Available: the primary accepts connections.
    conditions.set(
        AVAILABLE,
        primaryReady,
        primaryReady ? "PrimaryReady" : "PrimaryNotReady",
        primaryReady
            ? "primary "
                + StatefulSetDependent.podName(db, 0)
                + " accepts connections at "
                + endpoint
            : "primary " + StatefulSetDependent.podName(db, 0) + " is not ready");

    // Progressing: something is being rolled out.
    Optional<String> runningVersion = sts.flatMap(StatefulSetDependent::runningVersion);
    String progressReason;
    String progressMessage;
    if (storage.resizing()) {
      progressReason = StorageResize.RESIZING;
      progressMessage = storage.message();
    } else if (sts.isEmpty()) {
      progressReason =
          decision.target().isPresent() ? "Creating" : decision.refusal().get().reason();
      progressMessage =
          decision.target().isPresent()
              ? "creating the StatefulSet"
              : "nothing to roll out: " + decision.refusal().get().message();
    } else if (!rolledOut
        && previous.getVersion() != null
        && runningVersion.isPresent()
        && !runningVersion.get().equals(previous.getVersion())) {
      progressReason = "Upgrading";
      progressMessage =
          "rolling out version " + runningVersion.get() + " from " + previous.getVersion();
    } else if (!rolledOut && wasReadyBefore) {
      progressReason = "RollingOut";
      progressMessage = "rolling out the StatefulSet: " + ready + "/" + desired + " replicas ready";
    } else if (!rolledOut || (!wasReadyBefore && ready < desired)) {
      progressReason = "Creating";
      progressMessage = ready + "/" + desired + " replicas ready";
    } else {
      progressReason = "Reconciled";
      progressMessage = "the StatefulSet runs the current spec";
    }
    boolean progressing =
        !progressReason.equals("Reconciled") && !(sts.isEmpty() && decision.target().isEmpty());
    conditions.set(PROGRESSING, progressing, progressReason, progressMessage);

    // BackupReady, from the CronJob and its last Job.
    BackupState backup = backupState(db, observed);
    conditions.set(BACKUP_READY, backup.ok(), backup.reason(), backup.message());

    // Degraded: something needs the user's attention.
    if (decision.refusal().isPresent()) {
      conditions.set(
          DEGRADED, true, decision.refusal().get().reason(), decision.refusal().get().message());
    } else if (storage.unsupported()) {
      conditions.set(
          DEGRADED,
          true,
          StorageResize.UNSUPPORTED,
          storage.message() + ". " + storage.pendingAction());
    } else if (observed.error().isPresent()) {
      conditions.set(DEGRADED, true, RECONCILE_ERROR, observed.error().get());
    } else if (rolledOut && wasReadyBefore && ready < desired) {
      conditions.set(
          DEGRADED,
          true,
          REPLICAS_NOT_READY,
          ready
              + "/"
              + desired
              + " replicas ready; see kubectl describe pod -l app.kubernetes.io/instance="
              + db.getMetadata().getName());
    } else if (backup.reason().equals(BACKUP_FAILED)) {
      conditions.set(DEGRADED, true, BACKUP_FAILED, backup.message());
    } else {
      conditions.set(DEGRADED, false, "AsExpected", "nothing needs attention");
    }

    DatabaseStatus status = new DatabaseStatus();
    status.setObservedGeneration(generation);
    status.setConditions(conditions.build());
    status.setPhase(phase(status, sts.isPresent(), wasReadyBefore));
    status.setEngine(sts.isPresent() ? db.getSpec().getEngine().value() : previous.getEngine());
    status.setVersion(
        rolledOut ? runningVersion.orElse(previous.getVersion()) : previous.getVersion());
    status.setReplicas(desired);
    status.setReadyReplicas(ready);
    status.setEndpoint(endpoint);
    status.setReadOnlyEndpoint(
        desired > 1
            ? ReadOnlyServiceDependent.host(db) + ":" + EngineProfiles.of(db).port()
            : null);
    status.setCredentialsSecret(CredentialsSecretDependent.name(db));
    status.setLastBackupTime(
        observed
            .backupCronJob()
            .map(c -> c.getStatus() == null ? null : c.getStatus().getLastSuccessfulTime())
            .orElse(previous.getLastBackupTime()));
    status.setPendingAction(storage.pendingAction());
    return status;
  }

  private static Phase phase(DatabaseStatus status, boolean stsExists, boolean wasReadyBefore) {
    var conditions = status.getConditions();
    if (!stsExists && ConditionSet.isTrue(conditions, DEGRADED)) {
      return Phase.Failed;
    }
    if (ConditionSet.isTrue(conditions, DEGRADED)) {
      return Phase.Degraded;
    }
    if (ConditionSet.isTrue(conditions, READY)) {
      return Phase.Ready;
    }
    if (!wasReadyBefore) {
      return Phase.Provisioning;
    }
    return ConditionSet.isTrue(conditions, PROGRESSING) ? Phase.Updating : Phase.Degraded;
  }

  /** Whether the StatefulSet controller has rolled out the latest spec to every replica. */
  static boolean rolledOut(StatefulSet sts, int desired) {
    StatefulSetStatus s = sts.getStatus();
    if (s == null || s.getObservedGeneration() == null) {
      return false;
    }
    return s.getObservedGeneration() >= sts.getMetadata().getGeneration()
        && Objects.equals(sts.getSpec().getReplicas(), desired)
        && Optional.ofNullable(s.getUpdatedReplicas()).orElse(0) >= desired
        && (s.getUpdateRevision() == null || s.getUpdateRevision().equals(s.getCurrentRevision()));
  }

  static boolean podReady(Pod pod) {
    return pod.getStatus() != null
        && pod.getMetadata().getDeletionTimestamp() == null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  record BackupState(boolean ok, String reason, String message) {}

  static BackupState backupState(Database db, Observed observed) {
    if (!Boolean.TRUE.equals(db.getSpec().getBackupEnabled())) {
      return new BackupState(
          false,
          "BackupDisabled",
          "spec.backupEnabled is false; earlier dumps stay on PVC " + BackupPvcDependent.name(db));
    }
    if (observed.backupCronJob().isEmpty()) {
      return new BackupState(false, "BackupPending", "the backup CronJob is being created");
    }
    String schedule = db.getSpec().getBackup().getSchedule();
    Optional<Job> last = observed.lastBackupJob();
    if (last.isPresent() && jobCondition(last.get(), "Failed")) {
      String name = last.get().getMetadata().getName();
      return new BackupState(
          false,
          BACKUP_FAILED,
          "backup job "
              + name
              + " failed"
              + jobMessage(last.get(), "Failed")
              + "; see kubectl logs job/"
              + name
              + ". The next run is on schedule '"
              + schedule
              + "'");
    }
    if (last.isPresent() && jobCondition(last.get(), "Complete")) {
      return new BackupState(
          true,
          "BackupSucceeded",
          "last backup by job " + last.get().getMetadata().getName() + " succeeded");
    }
    return new BackupState(
        true,
        "Scheduled",
        "CronJob " + BackupCronJobDependent.name(db) + " runs on schedule '" + schedule + "'");
  }

  private static boolean jobCondition(Job job, String type) {
    return job.getStatus() != null
        && job.getStatus().getConditions() != null
        && job.getStatus().getConditions().stream()
            .anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static String jobMessage(Job job, String type) {
    return job.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .map(c -> c.getMessage() == null ? "" : ": " + c.getMessage())
        .findFirst()
        .orElse("");
  }
}
