package dev.cellar.operator.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.InstanceStatus;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.events.EventRecorder;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.storage.StorageResize;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Status from children, as pure logic. */
class StatusFactoryTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  static Database db(String version, int replicas) {
    Database db =
        new Database("ns", "orders", new DatabaseSpec(Engine.POSTGRESQL, version, "10Gi"));
    db.getSpec().setReplicas(replicas);
    db.getMetadata().setGeneration(1L);
    return db;
  }

  static StatefulSet sts(String version, int replicas, int ready, boolean rolledOut) {
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName("orders")
        .withGeneration(1L)
        .addToAnnotations("cellar.dev/version", version)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .endSpec()
        .withNewStatus()
        .withObservedGeneration(1L)
        .withReplicas(replicas)
        .withReadyReplicas(ready)
        .withUpdatedReplicas(rolledOut ? replicas : 0)
        .withCurrentRevision("a")
        .withUpdateRevision(rolledOut ? "a" : "b")
        .endStatus()
        .build();
  }

  /** A pod on revision "a", the template of {@link #sts}'s that is rolled out. */
  static Pod pod(boolean ready) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("orders-0")
        .addToLabels(Keys.REVISION, "a")
        .endMetadata()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .endStatus()
        .build();
  }

  static Observed observed(
      Database db, Optional<StatefulSet> sts, boolean primaryReady, Optional<Job> job) {
    CronJob cron =
        new CronJobBuilder().withNewMetadata().withName("orders-backup").endMetadata().build();
    return observed(db, sts, List.of(pod(primaryReady)), Optional.of(cron), job);
  }

  /**
   * What was observed, with nothing else wrong: no error, Secret, pod creation or volume trouble.
   */
  static Observed observed(
      Database db,
      Optional<StatefulSet> sts,
      List<Pod> pods,
      Optional<CronJob> cron,
      Optional<Job> job) {
    return observed(db, sts, pods, cron, job, Map.of());
  }

  /** As above, with the replicas' lag as polled. */
  static Observed observed(
      Database db,
      Optional<StatefulSet> sts,
      List<Pod> pods,
      Optional<CronJob> cron,
      Optional<Job> job,
      Map<String, Long> lag) {
    return new Observed(
        sts,
        pods,
        cron,
        job,
        job.stream().toList(),
        Topology.of(db).versionDecision(sts),
        StorageResize.Outcome.NONE,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Map.of(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        dev.cellar.operator.tls.TlsState.NONE,
        lag);
  }

  static Condition condition(DatabaseStatus status, Type type) {
    return ConditionSet.find(status.getConditions(), type).orElseThrow();
  }

  @Test
  void eachReplicaShowsItsLagAndThePrimaryNone() {
    Database db = db("16", 3);
    Pod primary = pod(true);
    Pod lagging =
        new PodBuilder(pod(true)).editMetadata().withName("orders-1").endMetadata().build();
    Pod silent =
        new PodBuilder(pod(false)).editMetadata().withName("orders-2").endMetadata().build();
    DatabaseStatus status =
        StatusFactory.compute(
            db,
            observed(
                db,
                Optional.empty(),
                List.of(silent, primary, lagging),
                Optional.empty(),
                Optional.empty(),
                // The primary's entry is never shown: only a replica has a lag.
                Map.of("orders-0", 9L, "orders-1", 4L)),
            T0);
    assertThat(status.getInstances())
        .extracting(
            InstanceStatus::getName,
            InstanceStatus::getRole,
            InstanceStatus::getReady,
            InstanceStatus::getReplicationLagSeconds)
        .containsExactly(
            tuple("orders-0", "primary", true, null),
            tuple("orders-1", "replica", true, 4L),
            tuple("orders-2", "replica", false, null));
  }

  @Test
  void aNewDatabaseIsProvisioning() {
    Database db = db("16", 1);
    DatabaseStatus status =
        StatusFactory.compute(db, observed(db, Optional.empty(), false, Optional.empty()), T0);
    assertThat(status.getPhase()).isEqualTo(Phase.Provisioning);
    assertThat(condition(status, Type.PROGRESSING).getReason()).isEqualTo("Creating");
    assertThat(condition(status, Type.READY).getStatus()).isEqualTo("False");
    assertThat(status.getObservedGeneration()).isEqualTo(1L);
    assertThat(status.getConditions())
        .extracting(Condition::getType)
        .containsExactlyInAnyOrder("Ready", "Available", "Progressing", "Degraded", "BackupReady");
  }

  @Test
  void theFirstTimeThePrimaryAcceptsConnectionsIsKeptForGood() {
    Database db = db("16", 1);
    // Degraded before it ever ran (its pod could not be scheduled): still a new database, which
    // its primary may initialise, and which has nothing to fail over from.
    DatabaseStatus degraded = new DatabaseStatus();
    degraded.setPhase(Phase.Degraded);
    db.setStatus(degraded);
    assertThat(PodFacts.everAvailable(db.getStatus())).isFalse();
    assertThat(dev.cellar.operator.primary.PodRoles.mayBootstrap(db)).isTrue();
    DatabaseStatus notYet =
        StatusFactory.compute(
            db, observed(db, Optional.of(sts("16", 1, 0, true)), false, Optional.empty()), T0);
    assertThat(notYet.getFirstAvailableTime()).isNull();

    DatabaseStatus ran =
        StatusFactory.compute(
            db, observed(db, Optional.of(sts("16", 1, 1, true)), true, Optional.empty()), T0);
    assertThat(ran.getFirstAvailableTime()).isEqualTo("2026-01-01T00:00:00Z");
    db.setStatus(ran);
    assertThat(dev.cellar.operator.primary.PodRoles.mayBootstrap(db)).isFalse();
    // Kept when the primary goes: an empty volume under it is lost data from now on.
    DatabaseStatus lost =
        StatusFactory.compute(
            db,
            observed(db, Optional.of(sts("16", 1, 0, true)), false, Optional.empty()),
            T0.plusSeconds(60));
    assertThat(lost.getFirstAvailableTime()).isEqualTo("2026-01-01T00:00:00Z");
  }

  @Test
  void readyWhenRolledOutAndEveryReplicaReady() {
    Database db = db("16", 2);
    DatabaseStatus status = step(db, sts("16", 2, 2, true), twoRunning(), false);
    assertThat(status.getPhase()).isEqualTo(Phase.Ready);
    assertThat(status.getVersion()).isEqualTo("16");
    assertThat(status.getReadOnlyEndpoint()).isEqualTo("orders-ro.ns.svc.cluster.local:5432");
    assertThat(condition(status, Type.PROGRESSING).getReason()).isEqualTo("Reconciled");
    assertThat(condition(status, Type.AVAILABLE).getStatus()).isEqualTo("True");
  }

  @Test
  void readyPodsAreCountedFromThePodsNotFromTheStatefulSetsLaggingCopy() {
    Database db = db("16", 1);
    DatabaseStatus starting = step(db, sts("16", 1, 0, true), List.of(pod(false)), false);
    assertThat(starting.getPhase()).isEqualTo(Phase.Provisioning);
    // The pod turned ready; the StatefulSet controller has not counted it yet.
    DatabaseStatus ready = step(db, sts("16", 1, 0, true), List.of(pod(true)), false);
    assertThat(ready.getPhase()).isEqualTo(Phase.Ready);
    assertThat(ready.getReadyReplicas()).isEqualTo(1);
    assertThat(reason(ready, Type.DEGRADED)).isEqualTo("False AsExpected");
    // And the other way: the controller's copy still counts a pod that is no longer ready.
    DatabaseStatus down = step(db, sts("16", 1, 1, true), List.of(pod(false)), false);
    assertThat(down.getReadyReplicas()).isZero();
    assertThat(reason(down, Type.DEGRADED)).isEqualTo("True ReplicasNotReady");
    assertThat(down.getPhase()).isEqualTo(Phase.Degraded);
  }

  @Test
  void theRollIsCountedFromThePodsRevisionsNotFromTheStatefulSetsLaggingCopy() {
    Database db = db("16", 1);
    StatefulSet uncounted = sts("16", 1, 0, true);
    uncounted.getStatus().setUpdatedReplicas(0);
    // The pod runs the latest template and turned ready; the controller has counted neither: one
    // write says Ready and names the version.
    DatabaseStatus ready = step(db, uncounted, List.of(pod(true)), false);
    assertThat(ready.getPhase()).isEqualTo(Phase.Ready);
    assertThat(ready.getVersion()).isEqualTo("16");
    // A pod on another template is not rolled out, whatever the controller's count says.
    Pod older =
        new PodBuilder(pod(true))
            .editMetadata()
            .addToLabels(Keys.REVISION, "old")
            .endMetadata()
            .build();
    DatabaseStatus rolling = step(db("16", 1), sts("16", 1, 1, true), List.of(older), false);
    assertThat(rolling.getPhase()).isNotEqualTo(Phase.Ready);
    assertThat(rolling.getVersion()).isNull();
  }

  @Test
  void lastTransitionTimeChangesOnlyWhenTheStatusFlips() {
    Database db = db("16", 1);
    db.setStatus(
        StatusFactory.compute(
            db, observed(db, Optional.of(sts("16", 1, 1, true)), true, Optional.empty()), T0));
    DatabaseStatus later =
        StatusFactory.compute(
            db,
            observed(db, Optional.of(sts("16", 1, 1, true)), true, Optional.empty()),
            T0.plusSeconds(60));
    assertThat(later)
        .as("an unchanged world gives an equal status: nothing to write")
        .isEqualTo(db.getStatus());
    DatabaseStatus down =
        StatusFactory.compute(
            db,
            observed(db, Optional.of(sts("16", 1, 0, true)), false, Optional.empty()),
            T0.plusSeconds(60));
    assertThat(condition(down, Type.READY).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:01:00Z");
    assertThat(condition(down, Type.BACKUP_READY).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:00Z");
    assertThat(down.getPhase()).isEqualTo(Phase.Degraded);
    assertThat(condition(down, Type.DEGRADED).getReason())
        .isEqualTo(Reason.REPLICAS_NOT_READY.value());
  }

  @Test
  void aRefusedDowngradeKeepsRunningAndIsDegraded() {
    Database db = db("16.4", 1);
    db.setStatus(
        StatusFactory.compute(
            db, observed(db, Optional.of(sts("16.4", 1, 1, true)), true, Optional.empty()), T0));
    db.getSpec().setVersion("16.2");
    db.getMetadata().setGeneration(2L);
    DatabaseStatus status =
        StatusFactory.compute(
            db, observed(db, Optional.of(sts("16.4", 1, 1, true)), true, Optional.empty()), T0);
    assertThat(status.getPhase()).isEqualTo(Phase.Degraded);
    assertThat(status.getVersion()).isEqualTo("16.4");
    assertThat(condition(status, Type.DEGRADED).getReason())
        .isEqualTo(Reason.DOWNGRADE_REFUSED.value());
    assertThat(condition(status, Type.READY).getStatus())
        .as("not the current spec")
        .isEqualTo("False");
    assertThat(condition(status, Type.AVAILABLE).getStatus()).isEqualTo("True");
    assertThat(condition(status, Type.READY).getObservedGeneration()).isEqualTo(2L);
  }

  @Test
  void aPostgresMajorUpgradeSaysUpgradingMajorUntilRolledOutThenNamesTheNewVersion() {
    Database db = db("15", 1);
    db.setStatus(
        StatusFactory.compute(
            db, observed(db, Optional.of(sts("15", 1, 1, true)), true, Optional.empty()), T0));
    db.getSpec().setVersion("17");
    db.getMetadata().setGeneration(2L);
    StatefulSet rolling = sts("17", 1, 0, false);
    rolling.getMetadata().getAnnotations().put("cellar.dev/upgraded-from", "15");
    DatabaseStatus status =
        StatusFactory.compute(db, observed(db, Optional.of(rolling), false, Optional.empty()), T0);
    assertThat(condition(status, Type.PROGRESSING).getReason())
        .isEqualTo(Reason.UPGRADING_MAJOR.value());
    assertThat(condition(status, Type.PROGRESSING).getMessage()).contains("from 15 to 17");
    db.setStatus(status);
    StatefulSet done = sts("17", 1, 1, true);
    done.getMetadata().getAnnotations().put("cellar.dev/upgraded-from", "15");
    status = StatusFactory.compute(db, observed(db, Optional.of(done), true, Optional.empty()), T0);
    assertThat(status.getPhase()).isEqualTo(Phase.Ready);
    assertThat(status.getVersion()).isEqualTo("17");
  }

  @Test
  void anUnsupportedVersionWithNothingRunningFails() {
    Database db = db("9", 1);
    DatabaseStatus status =
        StatusFactory.compute(db, observed(db, Optional.empty(), false, Optional.empty()), T0);
    assertThat(status.getPhase()).isEqualTo(Phase.Failed);
    assertThat(condition(status, Type.DEGRADED).getMessage()).contains("13, 14, 15, 16, 17, 18");
    assertThat(condition(status, Type.PROGRESSING).getStatus()).isEqualTo("False");
  }

  /**
   * Failed says the Database never ran and only the user can mend it: not while its primary accepts
   * connections, even in the first observation that finds it so (the one that records
   * firstAvailableTime). Ready and Failed together had the journey's `kubectl get db` show a
   * Database Failed right after `kubectl wait --for=condition=Ready` returned.
   */
  @Test
  void aDatabaseWhosePrimaryIsReadyIsNeverFailed() {
    Database db = db("16", 1);
    Observed ready = observed(db, Optional.of(sts("16", 1, 1, true)), true, Optional.empty());
    Observed withBadSecret =
        new Observed(
            ready.statefulSet(),
            ready.pods(),
            ready.backupCronJob(),
            ready.lastBackupJob(),
            ready.backupJobs(),
            ready.versionDecision(),
            ready.storage(),
            ready.error(),
            Optional.of("Secret orders-db-credentials lacks the key(s) password"),
            ready.podCreation(),
            ready.volumes(),
            ready.provisioning(),
            ready.failover(),
            ready.credentialsApplied(),
            ready.credentialsFailure(),
            ready.tls(),
            ready.replicationLag());

    DatabaseStatus status = StatusFactory.compute(db, withBadSecret, T0);

    assertThat(reason(status, Type.READY)).isEqualTo("True Ready");
    assertThat(reason(status, Type.DEGRADED)).isEqualTo("True CredentialsIncomplete");
    assertThat(status.getFirstAvailableTime()).isNotNull();
    assertThat(status.getPhase()).isEqualTo(Phase.Degraded);
  }

  @Test
  void aFailedBackupJobIsReported() {
    Database db = db("16", 1);
    Job failed =
        new JobBuilder()
            .withNewMetadata()
            .withName("orders-backup-123")
            .endMetadata()
            .withNewStatus()
            .addNewCondition()
            .withType("Failed")
            .withStatus("True")
            .withMessage("BackoffLimitExceeded")
            .endCondition()
            .endStatus()
            .build();
    DatabaseStatus status =
        StatusFactory.compute(
            db, observed(db, Optional.of(sts("16", 1, 1, true)), true, Optional.of(failed)), T0);
    Condition backup = condition(status, Type.BACKUP_READY);
    assertThat(backup.getStatus()).isEqualTo("False");
    assertThat(backup.getReason()).isEqualTo(Reason.BACKUP_FAILED.value());
    assertThat(backup.getMessage()).contains("orders-backup-123").contains("kubectl logs");
    assertThat(StatusEvents.notes(db, null, status))
        .extracting(EventRecorder.Note::reason)
        .contains("Created", Reason.BACKUP_FAILED.value());
  }

  @Test
  void aBackupIsReportedOnceItEndsWithItsOwnCompletionTime() {
    Database db = db("16", 1);
    Job running =
        new JobBuilder().withNewMetadata().withName("orders-backup-124").endMetadata().build();
    Job complete =
        new JobBuilder()
            .withNewMetadata()
            .withName("orders-backup-123")
            .endMetadata()
            .withNewStatus()
            .withCompletionTime("2026-01-01T00:03:00Z")
            .addNewCondition()
            .withType("Complete")
            .withStatus("True")
            .endCondition()
            .endStatus()
            .build();
    assertThat(StatusFactory.finished(running)).isFalse();
    assertThat(StatusFactory.finished(complete)).isTrue();
    DatabaseStatus status =
        StatusFactory.compute(
            db, observed(db, Optional.of(sts("16", 1, 1, true)), true, Optional.of(complete)), T0);
    assertThat(status.getLastBackupTime()).isEqualTo("2026-01-01T00:03:00Z");
    assertThat(condition(status, Type.BACKUP_READY).getMessage()).contains("orders-backup-123");
  }

  @Test
  void backupsOffIsReportedAsDisabled() {
    Database db = db("16", 1);
    db.getSpec().setBackupEnabled(false);
    DatabaseStatus status =
        StatusFactory.compute(
            db, observed(db, Optional.of(sts("16", 1, 1, true)), true, Optional.empty()), T0);
    assertThat(condition(status, Type.BACKUP_READY).getReason()).isEqualTo("BackupDisabled");
    assertThat(condition(status, Type.BACKUP_READY).getMessage())
        .endsWith("earlier dumps stay on PVC orders-backups");
    assertThat(status.getPhase()).isEqualTo(Phase.Ready);

    // With a bucket, the dumps are there, not on a volume.
    db.getSpec()
        .getBackup()
        .setObjectStore(
            new dev.cellar.api.v1.ObjectStoreSpec(
                "http://s3.local:9000", "dumps", "prod/", null, "s3-keys"));
    status =
        StatusFactory.compute(
            db, observed(db, Optional.of(sts("16", 1, 1, true)), true, Optional.empty()), T0);
    assertThat(condition(status, Type.BACKUP_READY).getMessage())
        .endsWith("earlier dumps stay in s3://dumps/prod/");
  }

  @Test
  void thePrimaryAndEachInstanceAreReported() {
    Database db = db("16", 2);
    Pod replica =
        new PodBuilder(pod(false)).editMetadata().withName("orders-1").endMetadata().build();
    Observed observed =
        observed(
            db,
            Optional.of(sts("16", 2, 1, true)),
            List.of(replica, pod(true)),
            Optional.empty(),
            Optional.empty());
    DatabaseStatus status = StatusFactory.compute(db, observed, T0);
    assertThat(status.getCurrentPrimary()).isEqualTo("orders-0");
    assertThat(status.getInstances())
        .extracting(i -> i.getName() + " " + i.getRole() + " " + i.getReady())
        .containsExactly("orders-0 primary true", "orders-1 replica false");
  }

  static Pod pod(String name, boolean ready) {
    return new PodBuilder(pod(ready)).editMetadata().withName(name).endMetadata().build();
  }

  static CronJob cron(boolean suspended) {
    return new CronJobBuilder()
        .withNewMetadata()
        .withName("orders-backup")
        .endMetadata()
        .withNewSpec()
        .withSuspend(suspended)
        .endSpec()
        .build();
  }

  static String reason(DatabaseStatus status, Type type) {
    return condition(status, type).getStatus() + " " + condition(status, type).getReason();
  }

  /** Computes the next status over the previous one, as the StatusWriter does, and keeps it. */
  static DatabaseStatus next(Database db, Observed observed) {
    DatabaseStatus before = db.getStatus();
    DatabaseStatus after = StatusFactory.compute(db, observed, T0);
    lastNotes = StatusEvents.notes(db, before, after);
    db.setStatus(after);
    return after;
  }

  static List<EventRecorder.Note> lastNotes = List.of();

  /** The next status of {@code db} with its StatefulSet, pods and backup CronJob's pause. */
  static DatabaseStatus step(
      Database db, StatefulSet sts, List<Pod> pods, boolean backupsSuspended) {
    return next(
        db,
        observed(
            db, Optional.of(sts), pods, Optional.of(cron(backupsSuspended)), Optional.empty()));
  }

  static List<Pod> twoRunning() {
    return List.of(pod("orders-0", true), pod("orders-1", true));
  }

  /** A Database of two replicas, Ready with {@code running}, then asked to hibernate. */
  static Database readyThenHibernated(List<Pod> running) {
    Database db = db("16", 2);
    step(db, sts("16", 2, 2, true), running, false);
    assertThat(db.getStatus().getPhase()).isEqualTo(Phase.Ready);
    db.getSpec().setHibernated(true);
    db.getMetadata().setGeneration(2L);
    return db;
  }

  @Test
  void hibernationStopsThePodsPausesBackupsAndWakingBringsThemBack() {
    List<Pod> running = twoRunning();
    Database db = readyThenHibernated(running);
    DatabaseStatus stopping = step(db, sts("16", 2, 2, true), running, false);
    assertThat(stopping.getPhase()).isEqualTo(Phase.Hibernated);
    assertThat(reason(stopping, Type.READY)).isEqualTo("False Hibernated");
    assertThat(reason(stopping, Type.AVAILABLE)).isEqualTo("False Hibernated");
    assertThat(reason(stopping, Type.PROGRESSING)).isEqualTo("True Hibernating");
    assertThat(reason(stopping, Type.DEGRADED)).isEqualTo("False AsExpected");
    assertThat(reason(stopping, Type.BACKUP_READY)).isEqualTo("False BackupsPaused");
    assertThat(condition(stopping, Type.BACKUP_READY).getMessage()).contains("paused");
    assertThat(lastNotes).extracting(EventRecorder.Note::reason).containsExactly("Hibernating");

    DatabaseStatus hibernated = step(db, sts("16", 0, 0, true), List.of(), true);
    assertThat(hibernated.getPhase()).isEqualTo(Phase.Hibernated);
    assertThat(reason(hibernated, Type.PROGRESSING)).isEqualTo("False Hibernated");
    assertThat(hibernated.getReplicas()).as("the spec's count, not a scale to zero").isEqualTo(2);
    assertThat(hibernated.getReadyReplicas()).isZero();
    assertThat(hibernated.getInstances()).isNull();
    assertThat(lastNotes).extracting(EventRecorder.Note::reason).containsExactly("Hibernated");
    assertThat(
            StatusFactory.compute(
                db,
                observed(
                    db,
                    Optional.of(sts("16", 0, 0, true)),
                    List.of(),
                    Optional.of(cron(true)),
                    Optional.empty()),
                T0.plusSeconds(600)))
        .as("idle while hibernated: nothing to write")
        .isEqualTo(hibernated);

    db.getSpec().setHibernated(false);
    db.getMetadata().setGeneration(3L);
    DatabaseStatus waking = step(db, sts("16", 0, 0, true), List.of(), true);
    assertThat(waking.getPhase()).isEqualTo(Phase.Updating);
    assertThat(reason(waking, Type.PROGRESSING)).isEqualTo("True Waking");
    assertThat(reason(waking, Type.READY)).isEqualTo("False PodsNotReady");
    assertThat(reason(waking, Type.BACKUP_READY)).isEqualTo("False BackupsPaused");
    assertThat(condition(waking, Type.BACKUP_READY).getMessage()).contains("resume");
    assertThat(lastNotes).extracting(EventRecorder.Note::reason).containsExactly("Waking");
    DatabaseStatus halfway =
        next(
            db,
            observed(
                db,
                Optional.of(sts("16", 2, 1, true)),
                List.of(pod("orders-0", true), pod("orders-1", false)),
                Optional.of(cron(false)),
                Optional.empty()));
    assertThat(reason(halfway, Type.PROGRESSING))
        .as("still waking while a replica starts")
        .isEqualTo("True Waking");
    assertThat(reason(halfway, Type.DEGRADED)).isEqualTo("False AsExpected");

    DatabaseStatus awake = step(db, sts("16", 2, 2, true), running, false);
    assertThat(awake.getPhase()).isEqualTo(Phase.Ready);
    assertThat(reason(awake, Type.PROGRESSING)).isEqualTo("False Reconciled");
    assertThat(reason(awake, Type.BACKUP_READY)).isEqualTo("True Scheduled");
    assertThat(lastNotes).extracting(EventRecorder.Note::reason).containsExactly("Ready");
  }

  @Test
  void aDatabaseCreatedHibernatedHasNeverRunAndItsPrimaryInitialisesTheVolumeWhenWoken() {
    Database db = db("16", 2);
    db.getSpec().setHibernated(true);
    // Reconciled a few times while hibernated: the StatefulSet at 0 replicas, never a pod.
    for (int i = 0; i < 3; i++) {
      DatabaseStatus hibernated = step(db, sts("16", 0, 0, true), List.of(), true);
      assertThat(hibernated.getPhase()).isEqualTo(Phase.Hibernated);
      assertThat(hibernated.getFirstAvailableTime())
          .as("no primary ever accepted connections (reconcile %d)", i + 1)
          .isNull();
      assertThat(PodFacts.everAvailable(hibernated)).isFalse();
    }
    assertThat(dev.cellar.operator.primary.PodRoles.mayBootstrap(db)).isTrue();

    db.getSpec().setHibernated(false);
    db.getMetadata().setGeneration(2L);
    DatabaseStatus waking = step(db, sts("16", 2, 0, true), List.of(pod("orders-0", false)), true);
    assertThat(reason(waking, Type.PROGRESSING)).isEqualTo("True Waking");
    assertThat(waking.getPhase()).as("a first start, not an update").isEqualTo(Phase.Provisioning);
    assertThat(dev.cellar.operator.primary.PodRoles.mayBootstrap(db))
        .as("the primary of a Database that never ran may initialise its empty volume")
        .isTrue();

    DatabaseStatus ran = step(db, sts("16", 2, 2, true), twoRunning(), false);
    assertThat(ran.getFirstAvailableTime()).isEqualTo("2026-01-01T00:00:00Z");
    assertThat(dev.cellar.operator.primary.PodRoles.mayBootstrap(db)).isFalse();
  }

  @Test
  void aHibernatedPhaseAloneIsNoProofTheDatabaseEverRan() {
    // Only a status written before firstAvailableTime existed lacks it while the Database ran;
    // Ready and Updating are reached only by a running Database, Hibernated also at creation.
    DatabaseStatus status = new DatabaseStatus();
    status.setPhase(Phase.Hibernated);
    assertThat(PodFacts.everAvailable(status)).isFalse();
    status.setPhase(Phase.Ready);
    assertThat(PodFacts.everAvailable(status)).isTrue();
    status.setPhase(Phase.Updating);
    assertThat(PodFacts.everAvailable(status)).isTrue();
  }

  @Test
  void podsThatStopOrStartWithinOneReconcileStillGetTheirStartEvents() {
    List<Pod> running = twoRunning();
    Database db = readyThenHibernated(running);
    DatabaseStatus hibernated = step(db, sts("16", 0, 0, true), List.of(), true);
    assertThat(reason(hibernated, Type.PROGRESSING)).isEqualTo("False Hibernated");
    assertThat(lastNotes)
        .extracting(EventRecorder.Note::reason)
        .containsExactly("Hibernating", "Hibernated");

    db.getSpec().setHibernated(false);
    db.getMetadata().setGeneration(3L);
    DatabaseStatus awake = step(db, sts("16", 2, 2, true), running, false);
    assertThat(awake.getPhase()).isEqualTo(Phase.Ready);
    assertThat(lastNotes).extracting(EventRecorder.Note::reason).containsExactly("Waking", "Ready");
  }

  @Test
  void aHibernatedDatabaseKeepsReportingWhatTheUserMustFix() {
    Database db = db("16.4", 1);
    db.getSpec().setHibernated(true);
    db.setStatus(
        StatusFactory.compute(
            db,
            observed(
                db,
                Optional.of(sts("16.4", 0, 0, true)),
                List.of(),
                Optional.of(cron(true)),
                Optional.empty()),
            T0));
    db.getSpec().setVersion("16.2");
    DatabaseStatus status =
        StatusFactory.compute(
            db,
            observed(
                db,
                Optional.of(sts("16.4", 0, 0, true)),
                List.of(),
                Optional.of(cron(true)),
                Optional.empty()),
            T0);
    assertThat(reason(status, Type.DEGRADED)).isEqualTo("True DowngradeRefused");
    assertThat(status.getPhase()).isEqualTo(Phase.Degraded);
    assertThat(reason(status, Type.READY)).isEqualTo("False Hibernated");
  }

  /** {@code o} with the failover step's note {@code failure}. */
  static Observed withFailover(Observed o, Failure failure) {
    return new Observed(
        o.statefulSet(),
        o.pods(),
        o.backupCronJob(),
        o.lastBackupJob(),
        o.backupJobs(),
        o.versionDecision(),
        o.storage(),
        o.error(),
        o.credentials(),
        o.podCreation(),
        o.volumes(),
        o.provisioning(),
        Optional.of(failure),
        o.credentialsApplied(),
        o.credentialsFailure(),
        o.tls(),
        o.replicationLag());
  }

  @Test
  void aLostPrimaryThatNoReplicaCanReplaceIsNamedInDegradedWithAWarning() {
    Database db = db("16", 1);
    Observed ready = observed(db, Optional.of(sts("16", 1, 1, true)), true, Optional.empty());
    db.setStatus(StatusFactory.compute(db, ready, T0));
    Observed lost = observed(db, Optional.of(sts("16", 1, 0, true)), false, Optional.empty());

    // While the delay runs, the symptom is all there is to say: a replica takes over by itself.
    DatabaseStatus waiting =
        StatusFactory.compute(
            db,
            withFailover(lost, new Failure(Reason.FAILING_OVER, "a replica takes over at ...")),
            T0.plusSeconds(2));
    assertThat(reason(waiting, Type.AVAILABLE)).isEqualTo("False FailingOver");
    assertThat(reason(waiting, Type.DEGRADED)).isEqualTo("True ReplicasNotReady");

    String why = "primary orders-0 unavailable for 9s; no position from orders-2";
    for (Reason cannot : List.of(Reason.NO_FAILOVER_CANDIDATE, Reason.FAILOVER_FAILED)) {
      DatabaseStatus status =
          StatusFactory.compute(
              db, withFailover(lost, new Failure(cannot, why)), T0.plusSeconds(9));
      assertThat(reason(status, Type.AVAILABLE)).isEqualTo("False " + cannot.value());
      assertThat(reason(status, Type.DEGRADED)).isEqualTo("True " + cannot.value());
      assertThat(condition(status, Type.DEGRADED).getMessage()).isEqualTo(why);
      assertThat(status.getPhase()).isEqualTo(Phase.Degraded);
      assertThat(StatusEvents.notes(db, waiting, status))
          .extracting(EventRecorder.Note::type, EventRecorder.Note::reason)
          .containsExactly(tuple(EventRecorder.WARNING, cannot.value()));
    }
  }

  @Test
  void aNewDatabasesFirstPodComingIsNoStatusWrite() {
    Database db = db("16", 1);
    CronJob cron = cron(false);
    Observed noPod =
        observed(db, Optional.of(sts("16", 1, 0, false)), List.of(), Optional.of(cron), empty());
    db.setStatus(StatusFactory.compute(db, noPod, T0));
    assertThat(db.getStatus().getInstances())
        .extracting(i -> i.getName() + " " + i.getRole() + " " + i.getReady())
        .containsExactly("orders-0 primary false");
    assertThat(db.getStatus().getVersion())
        .as("the version the StatefulSet makes its first pods at")
        .isEqualTo("16");
    Observed pending =
        observed(
            db,
            Optional.of(sts("16", 1, 0, false)),
            List.of(pod(false)),
            Optional.of(cron),
            empty());
    assertThat(StatusFactory.compute(db, pending, T0.plusSeconds(5)))
        .as("the pod's creation changes nothing to write")
        .isEqualTo(db.getStatus());

    // Scaled to 3 with one replica not created yet; a pod scaled away and still there is listed.
    db.getSpec().setReplicas(3);
    Observed scaling =
        observed(
            db,
            Optional.of(sts("16", 3, 1, false)),
            List.of(pod(true), pod("orders-1", false), pod("orders-7", true)),
            Optional.of(cron),
            empty());
    assertThat(StatusFactory.compute(db, scaling, T0).getInstances())
        .extracting(i -> i.getName() + " " + i.getRole() + " " + i.getReady())
        .containsExactly(
            "orders-0 primary true",
            "orders-1 replica false",
            "orders-2 replica false",
            "orders-7 replica true");

    // Without a StatefulSet (an unsupported version) no pod is coming: none is listed.
    Database refused = db("12", 1);
    assertThat(
            StatusFactory.compute(
                    refused,
                    observed(refused, Optional.empty(), List.of(), Optional.of(cron), empty()),
                    T0)
                .getInstances())
        .isNull();
  }

  private static Optional<Job> empty() {
    return Optional.empty();
  }
}
