package dev.cellar.operator.facts;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.Phase;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;

/**
 * What a Database's pods say of themselves, read the same way by every class that decides from
 * them: the status, the rollout, failover, the roles, backups and password rotation. Here, below
 * all of them, so that none asks the status for it.
 */
public final class PodFacts {
  private PodFacts() {}

  /** Whether the pod is Ready and not being deleted. */
  public static boolean ready(Pod pod) {
    return pod.getStatus() != null
        && pod.getMetadata().getDeletionTimestamp() == null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** The revision of its StatefulSet's template that the pod was made from. */
  public static Optional<String> revision(Pod pod) {
    return Optional.ofNullable(pod.getMetadata().getLabels()).map(l -> l.get(Keys.REVISION));
  }

  /**
   * Whether every pod the spec asks for runs the StatefulSet's latest template: the controller has
   * seen the latest spec, and {@code desired} of its pods carry its update revision. The pods'
   * revision labels are counted here, as the controller counts its updatedReplicas: that count is
   * its later copy of the same fact, and read from it a Database whose pod had just turned ready
   * was written once for the pod and once more for the count (a third of new Databases at N = 20).
   *
   * @param pods the StatefulSet's pods
   */
  public static boolean rolledOut(StatefulSet sts, int desired, Collection<Pod> pods) {
    StatefulSetStatus s = sts.getStatus();
    if (s == null
        || s.getObservedGeneration() == null
        || s.getObservedGeneration() < sts.getMetadata().getGeneration()
        || !Objects.equals(sts.getSpec().getReplicas(), desired)) {
      return false;
    }
    String update = s.getUpdateRevision();
    long updated =
        update == null
            ? 0
            : pods.stream().filter(p -> revision(p).filter(update::equals).isPresent()).count();
    return updated >= desired;
  }

  /**
   * Whether the Database's primary has ever accepted connections: recorded in {@code
   * firstAvailableTime}, and for a status written before that field existed, a phase that only a
   * running Database reaches. Other phases cannot tell: a Database that never ran is Degraded when
   * its pods cannot be scheduled, and Hibernated when created with spec.hibernated (counted as run,
   * such a Database got a firstAvailableTime at its second reconcile, and its primary, once woken,
   * would never have initialised its empty volume).
   */
  public static boolean everAvailable(DatabaseStatus status) {
    if (status == null) {
      return false;
    }
    if (status.getFirstAvailableTime() != null) {
      return true;
    }
    Phase phase = status.getPhase();
    return phase == Phase.Ready || phase == Phase.Updating;
  }
}
