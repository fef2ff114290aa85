package dev.cellar.operator.primary;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.runtime.PatchByName;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Labels each database pod primary or replica, from {@code status.currentPrimary} (pod 0 at first
 * creation). The Services select on the label, and each pod's entrypoint reads it through a
 * downward API volume: a pod starts writable only when labelled primary, so the label is the fence.
 * While the Database has never been available the primary also carries {@link
 * Keys#BOOTSTRAP_ANNOTATION}, the only case in which it may initialise an empty volume.
 */
public final class PodRoles {
  private PodRoles() {}

  public static void label(Database db, Context<Database> context) {
    Topology topology = Topology.of(db);
    String primary = topology.primaryPod();
    boolean bootstrap = mayBootstrap(db);
    for (Pod pod : context.getSecondaryResources(Pod.class)) {
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      boolean isPrimary = pod.getMetadata().getName().equals(primary);
      String patch = patch(pod, isPrimary, isPrimary && bootstrap);
      if (patch != null) {
        try {
          // Through the pods' informer: the pod's event for this very patch reconciles nothing
          // (a reconcile that changed nothing, once for the label and once for the bootstrap
          // annotation of every new Database), and this reconcile reads the patched pod from the
          // cache. Someone else's change that comes meanwhile still reconciles.
          context
              .resourceOperations()
              .resourcePatch(pod, p -> PatchByName.send(context.getClient(), p, MERGE, patch));
        } catch (KubernetesClientException e) {
          ignoreGone(e);
        }
      }
    }
  }

  /**
   * Whether the primary may initialise an empty data volume: only before the Database was ever
   * available. Later, an empty volume under the primary means its data was lost, and a replica must
   * take over instead (a fresh empty primary would replicate the loss to every replica).
   */
  public static boolean mayBootstrap(Database db) {
    return !PodFacts.everAvailable(db.getStatus());
  }

  /** The merge patch that gives {@code pod} its role, or null when it has it already. */
  static String patch(Pod pod, boolean primary, boolean bootstrap) {
    String role = primary ? Keys.ROLE_PRIMARY : Keys.ROLE_REPLICA;
    Map<String, String> labels =
        Optional.ofNullable(pod.getMetadata().getLabels()).orElse(Map.of());
    Map<String, String> annotations =
        Optional.ofNullable(pod.getMetadata().getAnnotations()).orElse(Map.of());
    boolean hasBootstrap = "true".equals(annotations.get(Keys.BOOTSTRAP_ANNOTATION));
    if (role.equals(labels.get(Keys.ROLE)) && hasBootstrap == bootstrap) {
      return null;
    }
    return "{\"metadata\":{\"labels\":{\""
        + Keys.ROLE
        + "\":\""
        + role
        + "\"},\"annotations\":{\""
        + Keys.BOOTSTRAP_ANNOTATION
        + "\":"
        + (bootstrap ? "\"true\"" : "null")
        + "}}}";
  }

  /** Sets the role label of one pod now (a failover relabels before the next reconcile). */
  public static void relabel(KubernetesClient client, Pod pod, boolean primary) {
    String patch = patch(pod, primary, false);
    if (patch != null) {
      apply(client, pod, patch);
    }
  }

  private static void apply(KubernetesClient client, Pod pod, String patch) {
    try {
      PatchByName.send(client, pod, MERGE, patch);
    } catch (KubernetesClientException e) {
      ignoreGone(e);
    }
  }

  /** A merge patch without resourceVersion: kwok and the kubelet update pods all the time. */
  private static final PatchType MERGE = PatchType.JSON_MERGE;

  private static void ignoreGone(KubernetesClientException e) {
    if (e.getCode() != 404) {
      throw e;
    }
  }

  /** The role label a pod carries now, if any. */
  public static Optional<String> roleOf(Pod pod) {
    return Optional.ofNullable(pod.getMetadata().getLabels())
        .map(l -> l.get(Keys.ROLE))
        .filter(Objects::nonNull);
  }
}
