package dev.cellar.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.events.EventRecorder;
import dev.cellar.operator.facts.PodTrouble;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Why a pod cannot run, from its status, and how the Database reports it. */
class PodTroubleTest {
  static final Instant T0 = StatusFactoryTest.T0;

  static Pod pod(String name, Instant notReadySince, ContainerStatus container) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withCreationTimestamp(notReadySince.toString())
        .endMetadata()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus("False")
        .withLastTransitionTime(notReadySince.toString())
        .endCondition()
        .withContainerStatuses(container)
        .endStatus()
        .build();
  }

  static ContainerStatus waiting(String reason, String message) {
    return new ContainerStatusBuilder()
        .withName("database")
        .withImage("postgres:99-nope")
        .withNewState()
        .withNewWaiting()
        .withReason(reason)
        .withMessage(message)
        .endWaiting()
        .endState()
        .build();
  }

  static ContainerStatus crashing(String lastReason, int exitCode) {
    return new ContainerStatusBuilder(waiting("CrashLoopBackOff", "back-off 40s restarting"))
        .withNewLastState()
        .withNewTerminated()
        .withReason(lastReason)
        .withExitCode(exitCode)
        .endTerminated()
        .endLastState()
        .withRestartCount(4)
        .build();
  }

  @Test
  void aFailedPullCountsOnlyAfterItsGrace() {
    Pod pod = pod("orders-0", T0, waiting("ErrImagePull", "not found\nsecond line"));
    PodTrouble trouble = PodTrouble.of(List.of(pod)).orElseThrow();
    assertThat(trouble.reason()).isEqualTo(Reason.IMAGE_PULL_FAILED);
    assertThat(trouble.message())
        .contains("orders-0", "postgres:99-nope", "not found", "spec.image")
        .doesNotContain("second line");
    assertThat(trouble.counts(T0.plusSeconds(10))).isFalse();
    assertThat(trouble.countsIn(T0.plusSeconds(10))).contains(Duration.ofSeconds(20));
    assertThat(trouble.counts(T0.plusSeconds(30))).isTrue();
    assertThat(trouble.countsIn(T0.plusSeconds(31))).isEmpty();
  }

  @Test
  void crashLoopsNameTheLastTermination() {
    PodTrouble oom =
        PodTrouble.of(List.of(pod("orders-1", T0, crashing("OOMKilled", 137)))).orElseThrow();
    assertThat(oom.reason()).isEqualTo(Reason.OOM_KILLED);
    assertThat(oom.message())
        .contains("orders-1", "OOMKilled", "137", "spec.resources.limits.memory")
        .doesNotContain("restart")
        .doesNotContain("40s");
    assertThat(oom.counts(T0)).isTrue();
    PodTrouble crash =
        PodTrouble.of(List.of(pod("orders-1", T0, crashing("Error", 1)))).orElseThrow();
    assertThat(crash.reason()).isEqualTo(Reason.CRASH_LOOP);
    assertThat(crash.message()).contains("kubectl logs orders-1 --previous");
  }

  @Test
  void configErrorsAndUnschedulablePods() {
    PodTrouble config =
        PodTrouble.of(
                List.of(
                    pod(
                        "orders-0",
                        T0,
                        waiting(
                            "CreateContainerConfigError",
                            "couldn't find key password in Secret shop/orders-credentials"))))
            .orElseThrow();
    assertThat(config.reason()).isEqualTo(Reason.POD_CONFIG_ERROR);
    assertThat(config.message()).contains("couldn't find key password");
    Pod unscheduled = unscheduled("orders-2", "0/3 nodes are available: 3 Insufficient memory.");
    PodTrouble trouble = PodTrouble.of(List.of(unscheduled)).orElseThrow();
    assertThat(trouble.reason()).isEqualTo(Reason.UNSCHEDULABLE);
    assertThat(trouble.message()).contains("Insufficient memory");
    assertThat(trouble.counts(T0.plusSeconds(59))).isFalse();
  }

  /**
   * The scheduler rewrites an unschedulable pod's message whenever other pods come and go (its
   * counts of nodes per cause, its preemption verdict): the status names the causes, so that a
   * Database whose pod stays unschedulable for the same causes is not written again (the fuzzer's
   * idle minute caught one such write while another batch's pods took CPU).
   */
  @Test
  void anUnschedulablePodsMessageChangesOnlyWithItsCauses() {
    String before =
        PodTrouble.of(
                List.of(
                    unscheduled(
                        "orders-0",
                        "0/5 nodes are available: 2 Insufficient cpu, 5 Insufficient memory."
                            + " preemption: 0/5 nodes are available: 5 Preemption is not helpful"
                            + " for scheduling.")))
            .orElseThrow()
            .message();
    String after =
        PodTrouble.of(
                List.of(
                    unscheduled(
                        "orders-0",
                        "0/5 nodes are available: 10 Insufficient cpu, 5 Insufficient memory. no"
                            + " new claims to deallocate, preemption: 0/5 nodes are available: 5"
                            + " Preemption is not helpful for scheduling.")))
            .orElseThrow()
            .message();
    assertThat(after).isEqualTo(before);
    assertThat(before)
        .contains("0/5 nodes are available: Insufficient memory (on every node)")
        .doesNotContain("preemption")
        .doesNotContain("cpu");
    // Whether some nodes also lack CPU comes and goes with other pods: the same message.
    assertThat(
            PodTrouble.of(
                    List.of(
                        unscheduled("orders-0", "0/5 nodes are available: 5 Insufficient memory.")))
                .orElseThrow()
                .message())
        .isEqualTo(before);
    // No cause rules out every node: each is named, without counts, in a stable order.
    String partial =
        PodTrouble.of(
                List.of(
                    unscheduled(
                        "orders-0",
                        "0/5 nodes are available: 2 Insufficient memory, 3 Insufficient cpu.")))
            .orElseThrow()
            .message();
    assertThat(partial).contains("0/5 nodes are available: Insufficient cpu, Insufficient memory.");
    assertThat(
            PodTrouble.of(
                    List.of(
                        unscheduled(
                            "orders-0",
                            "0/5 nodes are available: 1 Insufficient memory, 4 Insufficient cpu.")))
                .orElseThrow()
                .message())
        .isEqualTo(partial);
  }

  @Test
  void aPodWaitingForItsClaimIsNamedSoNotAsWantingNodes() {
    Pod waiting =
        unscheduled(
            "orders-0",
            "0/23 nodes are available: pod has unbound immediate PersistentVolumeClaims."
                + " preemption: 0/23 nodes are available: 23 Preemption is not helpful.");
    PodTrouble trouble = PodTrouble.of(List.of(waiting)).orElseThrow();
    assertThat(trouble.reason()).isEqualTo(Reason.UNSCHEDULABLE);
    assertThat(trouble.message())
        .contains("waits for its volume claim to be bound", "kubectl describe pvc data-orders-0")
        .doesNotContain("add nodes");
    assertThat(trouble.counts(T0.plusSeconds(59))).isFalse();
    assertThat(trouble.counts(T0.plusSeconds(60))).isTrue();
  }

  @Test
  void aClaimThatWaitsForItsClassesProvisionerHasFiveMinutes() {
    String unbound = "0/23 nodes are available: pod has unbound immediate PersistentVolumeClaims.";
    Map<String, String> provisioning = Map.of("data-orders-0", "fast-ssd");
    PodTrouble trouble =
        PodTrouble.of(List.of(unscheduled("orders-0", unbound)), provisioning).orElseThrow();
    assertThat(trouble.reason()).isEqualTo(Reason.UNSCHEDULABLE);
    assertThat(trouble.message())
        .contains(
            "waited over 5 min for its volume claim data-orders-0 to be bound",
            "storage class fast-ssd's provisioner",
            "kubectl describe pvc data-orders-0",
            "kubectl describe pod orders-0");
    assertThat(trouble.counts(T0.plusSeconds(299))).isFalse();
    assertThat(trouble.counts(T0.plusSeconds(300))).isTrue();
    assertThat(trouble.countsIn(T0.plusSeconds(60))).contains(Duration.ofSeconds(240));
    // Another pod's claim, or a pod that wants nodes, keeps the minute.
    assertThat(
            PodTrouble.of(List.of(unscheduled("orders-1", unbound)), provisioning)
                .orElseThrow()
                .counts(T0.plusSeconds(60)))
        .isTrue();
    PodTrouble nodes =
        PodTrouble.of(
                List.of(unscheduled("orders-0", "0/3 nodes are available: 3 Insufficient cpu.")),
                provisioning)
            .orElseThrow();
    assertThat(nodes.counts(T0.plusSeconds(60))).isTrue();
    assertThat(nodes.message()).contains("Insufficient cpu").doesNotContain("fast-ssd");
  }

  /** A pod the scheduler could not place since T0, for {@code message}. */
  static Pod unscheduled(String name, String message) {
    return new PodBuilder(pod(name, T0, waiting("ContainerCreating", "")))
        .editStatus()
        .addNewCondition()
        .withType("PodScheduled")
        .withStatus("False")
        .withReason("Unschedulable")
        .withMessage(message)
        .withLastTransitionTime(T0.toString())
        .endCondition()
        .endStatus()
        .build();
  }

  @Test
  void startingPodsAreNoTrouble() {
    assertThat(PodTrouble.of(List.of(pod("orders-0", T0, waiting("ContainerCreating", "")))))
        .isEmpty();
    assertThat(PodTrouble.of(List.of(pod("orders-0", T0, waiting("PodInitializing", "")))))
        .isEmpty();
  }

  static Observed observed(Database db, Optional<StatefulSet> sts, List<Pod> pods) {
    return StatusFactoryTest.observed(db, sts, pods, Optional.empty(), Optional.empty());
  }

  @Test
  void aNewDatabaseThatCannotPullHasFailedAndTheBackOffDoesNotRewriteTheStatus() {
    Database db = StatusFactoryTest.db("16", 1);
    db.getSpec().setImage("postgres:99-nope");
    Optional<StatefulSet> sts = Optional.of(StatusFactoryTest.sts("16", 1, 0, true));
    Pod failing = pod("orders-0", T0, waiting("ErrImagePull", "manifest unknown"));
    DatabaseStatus early = StatusFactory.compute(db, observed(db, sts, List.of(failing)), T0);
    assertThat(StatusFactoryTest.condition(early, Type.DEGRADED).getStatus())
        .as("within the grace")
        .isEqualTo("False");
    DatabaseStatus failed =
        StatusFactory.compute(db, observed(db, sts, List.of(failing)), T0.plusSeconds(40));
    assertThat(failed.getPhase()).isEqualTo(Phase.Failed);
    assertThat(StatusFactoryTest.condition(failed, Type.DEGRADED).getReason())
        .isEqualTo("ImagePullFailed");
    assertThat(StatusFactoryTest.condition(failed, Type.DEGRADED).getMessage())
        .contains("manifest unknown");
    db.setStatus(failed);
    Pod backingOff = pod("orders-0", T0, waiting("ImagePullBackOff", "Back-off pulling image"));
    DatabaseStatus later =
        StatusFactory.compute(db, observed(db, sts, List.of(backingOff)), T0.plusSeconds(90));
    assertThat(later).as("the back-off writes nothing").isEqualTo(failed);
  }

  @Test
  void aDatabaseThatRanBeforeIsDegradedNotFailed() {
    Database db = StatusFactoryTest.db("16", 1);
    DatabaseStatus ready = new DatabaseStatus();
    ready.setPhase(Phase.Ready);
    db.setStatus(ready);
    Optional<StatefulSet> sts = Optional.of(StatusFactoryTest.sts("16", 1, 0, true));
    DatabaseStatus status =
        StatusFactory.compute(
            db,
            observed(db, sts, List.of(pod("orders-0", T0, crashing("OOMKilled", 137)))),
            T0.plusSeconds(1));
    assertThat(status.getPhase()).isEqualTo(Phase.Degraded);
    assertThat(StatusFactoryTest.condition(status, Type.DEGRADED).getReason())
        .isEqualTo("OOMKilled");
    assertThat(StatusEvents.notes(db, ready, status))
        .extracting(EventRecorder.Note::reason)
        .contains("OOMKilled");
  }

  static ContainerStatus runningNotReady(Instant startedAt) {
    return new ContainerStatusBuilder()
        .withName("mariadb")
        .withReady(false)
        .withNewState()
        .withNewRunning()
        .withStartedAt(startedAt.toString())
        .endRunning()
        .endState()
        .build();
  }

  @Test
  void aContainerThatRunsButStaysUnreadyCountsAfterFiveMinutes() {
    // Created at T0, its container started 20 s later (the image pulled).
    Pod pod = pod("orders-0", T0, runningNotReady(T0.plusSeconds(20)));
    PodTrouble trouble = PodTrouble.of(List.of(pod)).orElseThrow();
    assertThat(trouble.reason()).isEqualTo(Reason.READINESS_FAILING);
    assertThat(trouble.message())
        .contains(
            "container mariadb of pod orders-0 has run for over 5 min without becoming ready",
            "kubectl describe pod orders-0",
            "kubectl logs orders-0 -c mariadb");
    assertThat(trouble.counts(T0.plusSeconds(319))).isFalse();
    assertThat(trouble.countsIn(T0.plusSeconds(300))).contains(Duration.ofSeconds(20));
    assertThat(trouble.counts(T0.plusSeconds(320))).isTrue();
    // Not a pod that cannot run: replacing it would not help (StuckPods leaves it).
    assertThat(PodTrouble.ofPod(pod)).isEmpty();
  }

  @Test
  void aPodThatCannotRunIsNamedBeforeAnUnreadyOne() {
    Pod unready = pod("orders-0", T0, runningNotReady(T0));
    Pod crashing = pod("orders-1", T0, crashing("Error", 1));
    assertThat(PodTrouble.of(List.of(unready, crashing)).orElseThrow().reason())
        .isEqualTo(Reason.CRASH_LOOP);
  }

  /**
   * The MariaDB primary of a new sync Database whose set-up waited for a replica: Running 0/1 for
   * minutes while Degraded said nothing needed attention.
   */
  @Test
  void aNewDatabaseWhosePrimaryNeverBecomesReadyIsDegraded() {
    Database db = StatusFactoryTest.db("16", 3);
    Optional<StatefulSet> sts = Optional.of(StatusFactoryTest.sts("16", 3, 0, true));
    Pod primary = pod("orders-0", T0, runningNotReady(T0));
    DatabaseStatus starting = StatusFactory.compute(db, observed(db, sts, List.of(primary)), T0);
    assertThat(StatusFactoryTest.condition(starting, Type.DEGRADED).getStatus()).isEqualTo("False");
    DatabaseStatus stuck =
        StatusFactory.compute(db, observed(db, sts, List.of(primary)), T0.plusSeconds(301));
    Condition degraded = StatusFactoryTest.condition(stuck, Type.DEGRADED);
    assertThat(degraded.getStatus()).isEqualTo("True");
    assertThat(degraded.getReason()).isEqualTo("ReadinessFailing");
    assertThat(degraded.getMessage()).contains("pod orders-0");
    assertThat(stuck.getPhase()).isEqualTo(Phase.Degraded);
  }
}
