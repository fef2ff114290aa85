package dev.cellar.operator.rollout;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.facts.PodTrouble;
import dev.cellar.operator.guard.WriteBudget;
import dev.cellar.operator.topology.Children;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces pods that cannot run with pods from the current template. The StatefulSet controller
 * rolls a new template out only over Ready pods: a pod that never became Ready (an image it cannot
 * pull, a memory limit it is killed under) keeps its old template forever, so fixing the spec would
 * not fix the Database (kubernetes/kubernetes#67250). Such a pod, on an old revision and in
 * trouble, is deleted; its volume stays and the controller recreates it from the fixed template. A
 * Ready pod is never touched: the controller rolls those out itself.
 */
public final class StuckPods {
  private static final Logger log = LoggerFactory.getLogger(StuckPods.class);

  private StuckPods() {}

  public static void replace(Database db, Context<Database> context) {
    Optional<StatefulSet> sts = Children.statefulSet(db, context);
    if (sts.isEmpty() || sts.get().getStatus() == null) {
      return;
    }
    String update = sts.get().getStatus().getUpdateRevision();
    boolean seen =
        Objects.equals(
            sts.get().getStatus().getObservedGeneration(), sts.get().getMetadata().getGeneration());
    if (update == null || !seen) {
      return;
    }
    for (Pod pod : context.getSecondaryResources(Pod.class)) {
      if (stuck(pod, update)) {
        String name = pod.getMetadata().getName();
        WriteBudget.spend(db, "Pod " + name);
        log.info("replacing pod {}: it cannot run and its template is outdated ({})", name, update);
        try {
          context
              .getClient()
              .pods()
              .inNamespace(pod.getMetadata().getNamespace())
              .withName(name)
              .delete();
        } catch (KubernetesClientException e) {
          if (e.getCode() != 404) {
            throw e;
          }
        }
      }
    }
  }

  /** On another revision than {@code update}, not being deleted, and unable to run. */
  static boolean stuck(Pod pod, String update) {
    String revision = PodFacts.revision(pod).orElse(null);
    return revision != null
        && !revision.equals(update)
        && pod.getMetadata().getDeletionTimestamp() == null
        && PodTrouble.ofPod(pod).isPresent()
        && !PodFacts.ready(pod);
  }
}
