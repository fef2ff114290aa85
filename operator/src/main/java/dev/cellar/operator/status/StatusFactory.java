package dev.cellar.operator.status;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.BackupRecord;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.InstanceStatus;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.backup.BackupResults;
import dev.cellar.operator.engine.VersionDecision;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.facts.PodTrouble;
import dev.cellar.operator.rollout.RollingUpdate;
import dev.cellar.operator.storage.StorageResize;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Computes a Database's status from what its children report, one small method per condition. Pure:
 * no API calls.
 */
public final class StatusFactory {
  private StatusFactory() {}

  /** One condition's verdict. */
  record Verdict(boolean status, Reason reason, String message) {}

  /** What every condition is judged on: the observation and the facts derived from it once. */
  record Facts(
      Database db,
      Topology topology,
      Observed observed,
      DatabaseStatus previous,
      boolean hibernated,
      int desired,
      int ready,
      boolean rolledOut,
      boolean primaryReady,
      boolean wasReadyBefore,
      Optional<String> runningVersion,
      Optional<PodTrouble> podTrouble) {

    static Facts of(Database db, Observed observed, Instant now) {
      DatabaseStatus previous = Optional.ofNullable(db.getStatus()).orElseGet(DatabaseStatus::new);
      boolean hibernated = Boolean.TRUE.equals(db.getSpec().getHibernated());
      // The pods that should run: none while hibernated.
      int desired = hibernated ? 0 : db.getSpec().getReplicas();
      Optional<StatefulSet> sts = observed.statefulSet();
      Topology topology = Topology.of(db);
      List<Pod> own =
          observed.pods().stream().filter(p -> topology.isPod(p.getMetadata().getName())).toList();
      return new Facts(
          db,
          topology,
          observed,
          previous,
          hibernated,
          desired,
          sts.isPresent() ? readyPods(own) : 0,
          sts.map(s -> PodFacts.rolledOut(s, desired, own)).orElse(false),
          observed.pod(topology.primaryPod()).map(PodFacts::ready).orElse(false),
          PodFacts.everAvailable(previous),
          sts.flatMap(Topology::runningVersion),
          PodTrouble.of(observed.pods(), observed.provisioning()).filter(t -> t.counts(now)));
    }

    /**
     * The StatefulSet's pods that are ready, counted from the pods themselves. The StatefulSet's
     * readyReplicas is the controller's later copy of the same fact: read from it, a Database whose
     * only pod had just turned ready was Available, then Degraded with ReplicasNotReady ("0/1
     * replicas ready", and a Warning Event), and only then Ready, two status writes more than it
     * took (seen at N = 20 and in bin/bench 500's Warning Events).
     */
    static int readyPods(List<Pod> own) {
      return (int) own.stream().filter(PodFacts::ready).count();
    }

    VersionDecision decision() {
      return observed.versionDecision();
    }

    StorageResize.Outcome storage() {
      return observed.storage();
    }

    boolean hasStatefulSet() {
      return observed.statefulSet().isPresent();
    }

    String replicasReady() {
      return ready + "/" + desired + " replicas ready";
    }

    /** Whether the Database is coming back from hibernation: the previous status said so. */
    boolean waking() {
      return !hibernated
          && ConditionSet.reasonOf(previous.getConditions(), Type.PROGRESSING)
              .flatMap(Reason::byValue)
              .filter(HIBERNATION::contains)
              .isPresent();
    }
  }

  /** The Progressing reasons of a hibernation and of the wake-up after it. */
  private static final Set<Reason> HIBERNATION =
      Set.of(Reason.HIBERNATING, Reason.HIBERNATED, Reason.WAKING);

  public static DatabaseStatus compute(Database db, Observed observed, Instant now) {
    Facts f = Facts.of(db, observed, now);
    long generation = Optional.ofNullable(db.getMetadata().getGeneration()).orElse(0L);
    Verdict backup = backupReady(f);
    Verdict degraded = degraded(f, backup);
    ConditionSet conditions =
        new ConditionSet(f.previous().getConditions(), generation, now)
            .set(Type.READY, ready(f))
            .set(Type.AVAILABLE, available(f))
            .set(Type.PROGRESSING, progressing(f))
            .set(Type.BACKUP_READY, backup)
            .set(Type.DEGRADED, degraded);

    DatabaseStatus status = new DatabaseStatus();
    status.setObservedGeneration(generation);
    status.setConditions(conditions.build());
    status.setPhase(phase(status, f, degraded.reason()));
    status.setEngine(
        f.hasStatefulSet() ? db.getSpec().getEngine().value() : f.previous().getEngine());
    // A new Database's StatefulSet whose pods are not created yet makes them at its version, the
    // only one there can be: named now, not in a status write of its own when the first pod comes
    // (most new Databases under load: docs/performance.md, Two status writes a new Database).
    boolean firstPodsToCome = f.previous().getVersion() == null && observed.pods().isEmpty();
    status.setVersion(
        f.rolledOut() || firstPodsToCome
            ? f.runningVersion().orElse(f.previous().getVersion())
            : f.previous().getVersion());
    // The spec's count, hibernated or not: hibernation is not a scale to zero.
    status.setReplicas(db.getSpec().getReplicas());
    status.setTls(observed.tls().status().orElse(null));
    status.setReadyReplicas(f.ready());
    status.setCurrentPrimary(f.topology().primaryPod());
    status.setFirstAvailableTime(
        f.previous().getFirstAvailableTime() != null
            ? f.previous().getFirstAvailableTime()
            : f.primaryReady() || PodFacts.everAvailable(f.previous())
                ? now.truncatedTo(ChronoUnit.SECONDS).toString()
                : null);
    status.setInstances(instances(f));
    status.setEndpoint(f.topology().endpoint());
    status.setReadOnlyEndpoint(
        db.getSpec().getReplicas() > 1 ? f.topology().readOnlyEndpoint() : null);
    status.setCredentialsSecret(f.topology().credentialsSecret());
    status.setCredentials(observed.credentialsApplied().orElse(f.previous().getCredentials()));
    // From the Job itself, not the CronJob's lastSuccessfulTime: the CronJob controller sets that a
    // moment after the Job completes, which would cost a second status write per backup.
    status.setLastBackupTime(
        observed
            .lastBackupJob()
            .filter(j -> jobCondition(j, "Complete"))
            .filter(j -> !BackupResults.verification(j))
            .map(j -> j.getStatus().getCompletionTime())
            .orElse(f.previous().getLastBackupTime()));
    // A verification Job checks a dump again and writes none: it counts as verified, not backed up.
    status.setLastBackup(
        newestRecord(
                observed.backupJobs().stream().filter(j -> !BackupResults.verification(j)).toList(),
                r -> true)
            .orElse(f.previous().getLastBackup()));
    status.setLastVerifiedBackup(
        newestRecord(observed.backupJobs(), BackupResults.Result::isVerified)
            .orElse(f.previous().getLastVerifiedBackup()));
    status.setPendingAction(f.storage().pendingAction());
    return status;
  }

  /**
   * Each instance with its role, readiness and, for a replica, its lag as last polled; by name;
   * null while there is none. The instances are the pods the spec asks for (once the StatefulSet
   * exists) and any other pod still there (one scaled away, terminating): a pod the StatefulSet
   * controller has not created yet is listed, not ready, rather than added when it comes. Its
   * coming changes nothing a user reads (the counts and conditions said 0/1 ready already), and
   * listing it then cost a status write for most new Databases (docs/performance.md, Two status
   * writes a new Database).
   */
  static List<InstanceStatus> instances(Facts f) {
    Map<String, Pod> byName = new TreeMap<>();
    if (f.hasStatefulSet()) {
      for (int i = 0; i < f.desired(); i++) {
        byName.put(f.topology().pod(i), null);
      }
    }
    f.observed().pods().forEach(p -> byName.put(p.getMetadata().getName(), p));
    List<InstanceStatus> instances = new ArrayList<>(byName.size());
    byName.forEach(
        (name, pod) -> {
          boolean primary = name.equals(f.topology().primaryPod());
          instances.add(
              new InstanceStatus(
                  name,
                  primary ? Keys.ROLE_PRIMARY : Keys.ROLE_REPLICA,
                  pod != null && PodFacts.ready(pod),
                  primary ? null : f.observed().replicationLag().get(name)));
        });
    return instances.isEmpty() ? null : instances;
  }

  /** Ready: the current spec runs and every replica is ready. */
  static Verdict ready(Facts f) {
    if (f.hibernated()) {
      return new Verdict(
          false,
          Reason.HIBERNATED,
          "spec.hibernated is true: no pod runs; volumes, Secret and Services are kept. Set it to"
              + " false to wake the Database");
    }
    Optional<VersionDecision.Refusal> refusal = f.decision().refusal();
    StorageResize.Outcome storage = f.storage();
    if (f.rolledOut()
        && f.ready() == f.desired()
        && f.primaryReady()
        && refusal.isEmpty()
        && storage.reason().isEmpty()) {
      return new Verdict(
          true,
          Reason.READY,
          f.desired() + "/" + f.desired() + " replicas ready; " + f.topology().endpoint());
    }
    if (refusal.isPresent()) {
      return new Verdict(false, refusal.get().reason(), refusal.get().message());
    }
    if (restoreHeldBack(f).isPresent()) {
      return new Verdict(
          false, restoreHeldBack(f).get().reason(), restoreHeldBack(f).get().message());
    }
    if (storage.reason().isPresent()) {
      return new Verdict(false, storage.reason().get(), storage.message());
    }
    return new Verdict(
        false, f.hasStatefulSet() ? Reason.PODS_NOT_READY : Reason.CREATING, f.replicasReady());
  }

  /**
   * Available: the primary accepts connections. Around a failover the failover step's note says
   * when a replica takes over, or which one did; the last failover stays named while the same
   * primary is ready.
   */
  static Verdict available(Facts f) {
    String primary = f.topology().primaryPod();
    if (f.hibernated()) {
      // Even while the primary is still stopping: clients are told not to count on it.
      return new Verdict(false, Reason.HIBERNATED, "the Database is hibernated: no pod serves");
    }
    Optional<Failure> failover = f.observed().failover();
    if (f.primaryReady()) {
      if (failover.isPresent() && MOVED.contains(failover.get().reason())) {
        return new Verdict(true, failover.get().reason(), failover.get().message());
      }
      Optional<Condition> before = ConditionSet.find(f.previous().getConditions(), Type.AVAILABLE);
      Optional<Reason> beforeReason =
          before.map(Condition::getReason).flatMap(Reason::byValue).filter(MOVED::contains);
      if (beforeReason.isPresent()
          && primary.equals(f.previous().getCurrentPrimary())
          && "True".equals(before.get().getStatus())) {
        return new Verdict(true, beforeReason.get(), before.get().getMessage());
      }
      return new Verdict(
          true,
          Reason.PRIMARY_READY,
          "primary " + primary + " accepts connections at " + f.topology().endpoint());
    }
    if (failover.isPresent() && !MOVED.contains(failover.get().reason())) {
      return new Verdict(false, failover.get().reason(), failover.get().message());
    }
    return new Verdict(false, Reason.PRIMARY_NOT_READY, "primary " + primary + " is not ready");
  }

  /**
   * What holds a restore's pods back before there are any (backup.RestoreSource, reported as the
   * observation's failure): Ready and Progressing name it too, as they name a refused version, for
   * nothing is being created.
   */
  static Optional<Failure> restoreHeldBack(Facts f) {
    return f.hasStatefulSet()
        ? Optional.empty()
        : f.observed().error().filter(e -> RESTORE_HELD_BACK.contains(e.reason()));
  }

  private static final Set<Reason> RESTORE_HELD_BACK =
      Set.of(Reason.RESTORE_SOURCE_MISSING, Reason.RESTORE_FAILED);

  /** The reasons of a primary that moved: named while the same primary stays ready. */
  private static final Set<Reason> MOVED = Set.of(Reason.FAILED_OVER, Reason.SWITCHED_OVER);

  /** Progressing: something is being rolled out; False with Reconciled when done. */
  static Verdict progressing(Facts f) {
    VersionDecision decision = f.decision();
    if (f.hibernated()) {
      return f.observed().pods().isEmpty()
          ? new Verdict(false, Reason.HIBERNATED, "hibernated: no pod runs")
          : new Verdict(
              true,
              Reason.HIBERNATING,
              "stopping the pods: " + f.observed().pods().size() + " still running");
    }
    if (f.storage().resizing()) {
      return new Verdict(true, Reason.RESIZING_STORAGE, f.storage().message());
    }
    if (!f.hasStatefulSet() && restoreHeldBack(f).isPresent()) {
      return new Verdict(
          false,
          restoreHeldBack(f).get().reason(),
          "waiting for the restore's source: " + restoreHeldBack(f).get().message());
    }
    if (!f.hasStatefulSet()) {
      return decision.target().isPresent()
          ? new Verdict(true, Reason.CREATING, "creating the StatefulSet")
          : new Verdict(
              false,
              decision.refusal().get().reason(),
              "nothing to roll out: " + decision.refusal().get().message());
    }
    if (f.waking() && (!f.rolledOut() || f.ready() < f.desired())) {
      return new Verdict(true, Reason.WAKING, "waking from hibernation: " + f.replicasReady());
    }
    String previousVersion = f.previous().getVersion();
    if (!f.rolledOut()
        && decision.upgradedFrom().isPresent()
        && f.runningVersion().isPresent()
        && !f.runningVersion().get().equals(previousVersion)) {
      return new Verdict(
          true,
          Reason.UPGRADING_MAJOR,
          "upgrading the major version from "
              + decision.upgradedFrom().get()
              + " to "
              + f.runningVersion().get()
              + " by dump and restore (writes stop until the new primary is ready; the old data"
              + " directory is kept): "
              + f.replicasReady());
    }
    if (!f.rolledOut()
        && previousVersion != null
        && f.runningVersion().isPresent()
        && !f.runningVersion().get().equals(previousVersion)) {
      return new Verdict(
          true,
          Reason.UPGRADING,
          "rolling out version " + f.runningVersion().get() + " from " + previousVersion);
    }
    if (!f.rolledOut() && f.wasReadyBefore()) {
      RollingUpdate.Step step =
          RollingUpdate.decide(f.db(), f.observed().statefulSet(), f.observed().pods());
      if (step instanceof RollingUpdate.Step.Replace r) {
        return new Verdict(true, Reason.ROLLING_UPDATE, r.why() + ": " + f.replicasReady());
      }
      if (step instanceof RollingUpdate.Step.SwitchOver s) {
        return new Verdict(true, Reason.ROLLING_UPDATE, s.why() + ": " + f.replicasReady());
      }
      if (step instanceof RollingUpdate.Step.Wait w) {
        return new Verdict(
            true, Reason.ROLLING_UPDATE, "rolling update, " + w.why() + ": " + f.replicasReady());
      }
      return new Verdict(
          true, Reason.ROLLING_OUT, "rolling out the StatefulSet: " + f.replicasReady());
    }
    if (!f.rolledOut() || (!f.wasReadyBefore() && f.ready() < f.desired())) {
      return new Verdict(true, Reason.CREATING, f.replicasReady());
    }
    return new Verdict(false, Reason.RECONCILED, "the StatefulSet runs the current spec");
  }

  /** Degraded: something needs the user's attention; the message says what to do. */
  static Verdict degraded(Facts f, Verdict backup) {
    Optional<VersionDecision.Refusal> refusal = f.decision().refusal();
    if (refusal.isPresent()) {
      return new Verdict(true, refusal.get().reason(), refusal.get().message());
    }
    if (f.storage().unsupported()) {
      return new Verdict(
          true,
          Reason.RESIZE_UNSUPPORTED,
          f.storage().message() + ". " + f.storage().pendingAction());
    }
    if (f.observed().credentials().isPresent()) {
      return new Verdict(true, Reason.CREDENTIALS_INCOMPLETE, f.observed().credentials().get());
    }
    if (f.observed().credentialsFailure().isPresent()) {
      Failure failure = f.observed().credentialsFailure().get();
      return new Verdict(true, failure.reason(), failure.message());
    }
    if (f.observed().tls().failure().isPresent()) {
      Failure failure = f.observed().tls().failure().get();
      return new Verdict(true, failure.reason(), failure.message());
    }
    if (f.observed().error().isPresent()) {
      Failure error = f.observed().error().get();
      return new Verdict(true, error.reason(), error.message());
    }
    if (f.hibernated()) {
      // The pods are stopping or gone: their troubles no longer need the user.
      return new Verdict(false, Reason.AS_EXPECTED, "hibernated; nothing needs attention");
    }
    if (f.observed().podCreation().isPresent()) {
      return new Verdict(true, Reason.POD_CREATION_FAILED, f.observed().podCreation().get());
    }
    if (f.observed().volumes().isPresent()) {
      return new Verdict(true, Reason.VOLUME_PENDING, f.observed().volumes().get());
    }
    if (f.podTrouble().isPresent()) {
      return podTrouble(f, f.podTrouble().get());
    }
    // A lost primary that no replica can replace, or whose replacement failed: Available says so,
    // and Degraded too, since the way out is the user's (ReplicasNotReady below would name only
    // the symptom). Their Warning Events come from this condition.
    Optional<Failure> failover = f.observed().failover();
    if (failover.isPresent() && failover.get().reason().types().contains(Type.DEGRADED)) {
      return new Verdict(true, failover.get().reason(), failover.get().message());
    }
    // Waking replicas are starting, not failing (Progressing says Waking until all are ready).
    if (f.rolledOut() && f.wasReadyBefore() && !f.waking() && f.ready() < f.desired()) {
      return new Verdict(
          true,
          Reason.REPLICAS_NOT_READY,
          f.replicasReady()
              + "; see kubectl describe pod -l app.kubernetes.io/instance="
              + f.db().getMetadata().getName());
    }
    if (backup.reason() == Reason.BACKUP_FAILED
        || backup.reason() == Reason.BACKUP_VERIFICATION_FAILED) {
      return new Verdict(true, backup.reason(), backup.message());
    }
    return new Verdict(false, Reason.AS_EXPECTED, "nothing needs attention");
  }

  /**
   * A pod's trouble. An image pull alternates between ErrImagePull (with the registry's message)
   * and ImagePullBackOff (without): while the same image fails on the same pod, the message written
   * first stays, so the back-off does not rewrite the status at every retry.
   */
  static Verdict podTrouble(Facts f, PodTrouble trouble) {
    Optional<Condition> before = ConditionSet.find(f.previous().getConditions(), Type.DEGRADED);
    String samePull = trouble.message().split(": ", 2)[0].split("\\. Check", 2)[0];
    if (trouble.reason() == Reason.IMAGE_PULL_FAILED
        && before.isPresent()
        && trouble.reason().value().equals(before.get().getReason())
        && before.get().getMessage() != null
        && before.get().getMessage().startsWith(samePull)) {
      return new Verdict(true, trouble.reason(), before.get().getMessage());
    }
    return new Verdict(true, trouble.reason(), trouble.message());
  }

  /** Where the dumps are: the bucket when spec.backup.objectStore names one, else the volume. */
  static String whereDumpsStay(Database db, Topology topology) {
    var store = db.getSpec().getBackup() == null ? null : db.getSpec().getBackup().getObjectStore();
    if (store == null) {
      return "on PVC " + topology.backupClaim();
    }
    String prefix = store.getPrefix() == null ? "" : store.getPrefix().replaceAll("^/+|/+$", "");
    return "in s3://" + store.getBucket() + "/" + (prefix.isEmpty() ? "" : prefix + "/");
  }

  /** BackupReady, from the CronJob and its last Job. */
  static Verdict backupReady(Facts f) {
    Database db = f.db();
    if (!Boolean.TRUE.equals(db.getSpec().getBackupEnabled())) {
      return new Verdict(
          false,
          Reason.BACKUP_DISABLED,
          "spec.backupEnabled is false; earlier dumps stay " + whereDumpsStay(db, f.topology()));
    }
    if (f.hibernated()) {
      return new Verdict(
          false,
          Reason.BACKUPS_PAUSED,
          "backups are paused while the Database is hibernated: CronJob "
              + f.topology().backupCronJob()
              + " is suspended; earlier dumps stay "
              + whereDumpsStay(db, f.topology()));
    }
    if (f.observed().backupCronJob().isEmpty()) {
      return new Verdict(false, Reason.BACKUP_PENDING, "the backup CronJob is being created");
    }
    CronJob cron = f.observed().backupCronJob().get();
    if (cron.getSpec() != null && Boolean.TRUE.equals(cron.getSpec().getSuspend())) {
      return new Verdict(
          false,
          Reason.BACKUPS_PAUSED,
          "backups resume once the primary is ready after hibernation (CronJob "
              + f.topology().backupCronJob()
              + " is suspended until then)");
    }
    String schedule = db.getSpec().getBackup().getSchedule();
    Optional<Job> last = f.observed().lastBackupJob();
    Optional<BackupResults.Result> result = last.flatMap(BackupResults::of);
    if (last.isPresent() && result.isPresent() && !result.get().succeeded()) {
      // What backup.sh said: the stage, the dump and why, in one line.
      BackupResults.Result r = result.get();
      String name = last.get().getMetadata().getName();
      boolean verification = "verify".equals(r.stage());
      return new Verdict(
          false,
          verification ? Reason.BACKUP_VERIFICATION_FAILED : Reason.BACKUP_FAILED,
          (verification ? "verification of " : "backup ")
              + (r.name() == null || r.name().isEmpty() ? "" : r.name() + " ")
              + "failed"
              + (r.stage() == null || verification ? "" : " at " + r.stage())
              + ": "
              + r.message()
              + " (job "
              + name
              + "; kubectl logs job/"
              + name
              + ")");
    }
    if (last.isPresent()
        && result.isPresent()
        && result.get().name() != null
        && BackupResults.verification(last.get())) {
      BackupResults.Result r = result.get();
      return new Verdict(
          true,
          Reason.BACKUP_SUCCEEDED,
          "dump "
              + r.name()
              + " at "
              + r.location()
              + " verified again on request (job "
              + last.get().getMetadata().getName()
              + "): "
              + r.verification());
    }
    if (last.isPresent() && result.isPresent() && result.get().name() != null) {
      BackupResults.Result r = result.get();
      return new Verdict(
          true,
          Reason.BACKUP_SUCCEEDED,
          "last backup "
              + r.name()
              + " ("
              + r.sizeBytes()
              + " bytes) is at "
              + r.location()
              + (r.isVerified() ? "; verified: " + r.verification() : "; not verified"));
    }
    if (last.isPresent() && jobCondition(last.get(), "Failed")) {
      String name = last.get().getMetadata().getName();
      return new Verdict(
          false,
          Reason.BACKUP_FAILED,
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
      return new Verdict(
          true,
          Reason.BACKUP_SUCCEEDED,
          (BackupResults.verification(last.get())
                  ? "last verification by job "
                  : "last backup by job ")
              + last.get().getMetadata().getName()
              + " succeeded");
    }
    return new Verdict(
        true,
        Reason.SCHEDULED,
        "CronJob " + f.topology().backupCronJob() + " runs on schedule '" + schedule + "'");
  }

  /** Reasons that nothing but the user mends: a Database that never ran with one has Failed. */
  private static final Set<Reason> USER_MUST_ACT =
      Set.of(
          Reason.IMAGE_PULL_FAILED,
          Reason.POD_CONFIG_ERROR,
          Reason.CREDENTIALS_INCOMPLETE,
          Reason.POD_CREATION_FAILED,
          Reason.VOLUME_PENDING,
          Reason.OOM_KILLED,
          Reason.RESTORE_FAILED);

  private static Phase phase(DatabaseStatus status, Facts f, Reason degraded) {
    var conditions = status.getConditions();
    if (!f.hasStatefulSet() && ConditionSet.isTrue(conditions, Type.DEGRADED)) {
      return Phase.Failed;
    }
    // A primary that accepts connections now has run, even before firstAvailableTime says so (this
    // write records it): such a Database is Degraded, never Failed.
    if (!f.wasReadyBefore() && !f.primaryReady() && USER_MUST_ACT.contains(degraded)) {
      return Phase.Failed;
    }
    if (ConditionSet.isTrue(conditions, Type.DEGRADED)) {
      return Phase.Degraded;
    }
    if (f.hibernated()) {
      // Also while the pods stop: Progressing (Hibernating) says they are not all gone yet.
      return Phase.Hibernated;
    }
    if (ConditionSet.isTrue(conditions, Type.READY)) {
      return Phase.Ready;
    }
    if (!f.wasReadyBefore()) {
      return Phase.Provisioning;
    }
    return ConditionSet.isTrue(conditions, Type.PROGRESSING) ? Phase.Updating : Phase.Degraded;
  }

  /**
   * The newest successful backup whose result passes {@code which}, by completion, as status
   * records it; empty when no Job that still exists reported one.
   */
  static Optional<BackupRecord> newestRecord(
      List<Job> jobs, java.util.function.Predicate<BackupResults.Result> which) {
    return jobs.stream()
        .flatMap(
            j ->
                BackupResults.of(j)
                    .filter(BackupResults.Result::succeeded)
                    .filter(r -> r.name() != null)
                    .filter(which)
                    .map(r -> record(j, r))
                    .stream())
        .max(
            Comparator.comparing(
                (BackupRecord b) -> Optional.ofNullable(b.getCompletionTime()).orElse("")));
  }

  private static BackupRecord record(Job job, BackupResults.Result r) {
    return new BackupRecord(
        r.name(),
        r.location(),
        r.startTime(),
        r.completionTime(),
        r.sizeBytes(),
        BackupResults.trigger(job),
        job.getMetadata().getName());
  }

  /** A Job that has ended, well or not. */
  static boolean finished(Job job) {
    return jobCondition(job, "Complete") || jobCondition(job, "Failed");
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
