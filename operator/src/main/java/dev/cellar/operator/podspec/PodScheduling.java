package dev.cellar.operator.podspec;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.PodAntiAffinity;
import io.fabric8.kubernetes.api.model.PodAntiAffinityBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;

/**
 * Where the database pods may run: spec.affinity, tolerations, nodeSelector,
 * topologySpreadConstraints and priorityClassName, as the user wrote them, plus a default that
 * spreads the replicas.
 */
public final class PodScheduling {
  /**
   * The weight of the default anti-affinity: the most a preferred term can have, so that spreading
   * the replicas outweighs the scheduler's resource scores, yet stays a preference, so a one-node
   * cluster still runs every replica.
   */
  public static final int SPREAD_WEIGHT = 100;

  private PodScheduling() {}

  /** Sets the scheduling fields of {@code pod} for {@code db}'s database pods. */
  public static void apply(Database db, PodSpecBuilder pod) {
    DatabaseSpec spec = db.getSpec();
    pod.withAffinity(affinity(db))
        .withTolerations(spec.getTolerations())
        .withNodeSelector(spec.getNodeSelector())
        .withTopologySpreadConstraints(spec.getTopologySpreadConstraints())
        .withPriorityClassName(spec.getPriorityClassName());
  }

  /**
   * Sets the scheduling fields of a backup Job's pod: the nodes the Database's pods may run on
   * (nodeSelector, tolerations, node affinity) and its priority. Not the pod (anti-)affinity nor
   * the spread constraints, which are about the database pods among themselves. A cluster whose
   * database nodes are tainted or labelled thus runs the dumps there too.
   */
  public static void applyToJob(Database db, PodSpecBuilder pod) {
    DatabaseSpec spec = db.getSpec();
    if (spec.getAffinity() != null && spec.getAffinity().getNodeAffinity() != null) {
      pod.withNewAffinity()
          .withNodeAffinity(
              new io.fabric8.kubernetes.api.model.NodeAffinityBuilder(
                      spec.getAffinity().getNodeAffinity())
                  .build())
          .endAffinity();
    }
    pod.withTolerations(spec.getTolerations())
        .withNodeSelector(spec.getNodeSelector())
        .withPriorityClassName(spec.getPriorityClassName());
  }

  /**
   * spec.affinity; unless it says how pods of the Database repel each other, the replicas prefer
   * different nodes, so that losing one node loses one replica, not all.
   */
  public static Affinity affinity(Database db) {
    Affinity wanted = db.getSpec().getAffinity();
    // A copy: the spec is the informer's cached object and must not change.
    AffinityBuilder affinity = wanted == null ? new AffinityBuilder() : new AffinityBuilder(wanted);
    if (wanted == null || wanted.getPodAntiAffinity() == null) {
      affinity.withPodAntiAffinity(spreadReplicas(db));
    }
    return affinity.build();
  }

  /** A preferred anti-affinity, per node, between the Database's database pods. */
  public static PodAntiAffinity spreadReplicas(Database db) {
    return new PodAntiAffinityBuilder()
        .addNewPreferredDuringSchedulingIgnoredDuringExecution()
        .withWeight(SPREAD_WEIGHT)
        .withNewPodAffinityTerm()
        .withTopologyKey(Keys.HOSTNAME)
        .withNewLabelSelector()
        .withMatchLabels(Keys.selector(db, Keys.Component.DATABASE))
        .endLabelSelector()
        .endPodAffinityTerm()
        .endPreferredDuringSchedulingIgnoredDuringExecution()
        .build();
  }
}
