package dev.cellar.operator.rollout;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.guard.WriteBudget;
import dev.cellar.operator.primary.PodRoles;
import dev.cellar.operator.runtime.PatchByName;
import dev.cellar.operator.topology.Children;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rolls a new pod template out in Cellar's order, not the StatefulSet controller's: the
 * StatefulSet's update strategy is OnDelete, so a changed template (version, image, resources,
 * configuration, TLS) replaces no pod until Cellar deletes it. Replicas go first, one at a time;
 * then one switchover moves the primary to an updated replica (annotation {@code
 * cellar.dev/switchover-to}, run by the failover step); then the former primary, now a replica, is
 * replaced last. The primary is never restarted while it is the primary (unless it is the only
 * pod), so a rollout never makes a failover happen on top of it.
 */
public final class RollingUpdate {
  private static final Logger log = LoggerFactory.getLogger(RollingUpdate.class);

  private RollingUpdate() {}

  /** One pod as the decision sees it. */
  public record Member(
      String name, int ordinal, String revision, boolean ready, boolean deleting) {}

  /** What to do next. */
  public sealed interface Step {
    /** Every pod runs the current template (or there is nothing to roll out yet). */
    record Done() implements Step {}

    /** Nothing to do now: a pod is restarting, or a switchover is under way. */
    record Wait(String pod, String why) implements Step {}

    /** Delete this pod; the controller recreates it from the current template. */
    record Replace(String pod, String why) implements Step {}

    /** Move the primary to this updated replica before its own pod is replaced. */
    record SwitchOver(String to, String why) implements Step {}
  }

  /**
   * The next step of a rollout, from what was observed.
   *
   * @param update the StatefulSet's update revision (empty: the controller has not computed it)
   * @param desired the pods the spec asks for
   * @param primary the current primary's pod name
   * @param switching a switchover already asked for (its target), if any
   * @param switchable whether a switchover can run: not before the Database first had a primary (no
   *     writes to keep then, and the failover step, which runs switchovers, waits for one)
   */
  public static Step decide(
      Optional<String> update,
      int desired,
      String primary,
      Optional<String> switching,
      boolean switchable,
      List<Member> members) {
    if (update.isEmpty() || desired == 0) {
      return new Step.Done();
    }
    String rev = update.get();
    List<Member> outdated =
        members.stream()
            .filter(m -> !rev.equals(m.revision()))
            .sorted(Comparator.comparingInt(Member::ordinal).reversed())
            .toList();
    if (outdated.isEmpty()) {
      return new Step.Done();
    }
    if (switching.isPresent()) {
      return new Step.Wait(primary, "switching over to " + switching.get());
    }
    // One pod at a time: the next goes only once every pod is back and Ready, so at most one
    // replica is missing at any moment and a failover always has a candidate.
    Optional<Member> busy =
        members.stream()
            .filter(m -> m.deleting() || !m.ready())
            .min(Comparator.comparingInt(Member::ordinal));
    if (busy.isPresent()) {
      return new Step.Wait(busy.get().name(), "waiting for " + busy.get().name() + " to be ready");
    }
    if (members.size() < desired) {
      return new Step.Wait(primary, "waiting for every pod to be created");
    }
    Optional<Member> replica = outdated.stream().filter(m -> !m.name().equals(primary)).findFirst();
    if (replica.isPresent()) {
      return new Step.Replace(
          replica.get().name(),
          "updating replica " + replica.get().name() + " (" + outdated.size() + " pod(s) to go)");
    }
    // Only the primary is outdated.
    Optional<Member> target =
        members.stream()
            .filter(m -> !m.name().equals(primary) && rev.equals(m.revision()))
            .min(Comparator.comparingInt(Member::ordinal));
    if (target.isEmpty()) {
      return new Step.Replace(primary, "updating " + primary + ", the only pod (a restart)");
    }
    if (!switchable) {
      return new Step.Replace(primary, "updating " + primary + " (no primary to keep yet)");
    }
    return new Step.SwitchOver(
        target.get().name(),
        "switching over from " + primary + " to the updated " + target.get().name());
  }

  /** The decision for a Database, from its StatefulSet and pods. */
  public static Step decide(Database db, Optional<StatefulSet> sts, List<Pod> pods) {
    Topology topology = Topology.of(db);
    boolean hibernated = Boolean.TRUE.equals(db.getSpec().getHibernated());
    if (sts.isEmpty()
        || hibernated
        || sts.get().getStatus() == null
        || !Objects.equals(
            sts.get().getStatus().getObservedGeneration(),
            sts.get().getMetadata().getGeneration())) {
      return new Step.Done();
    }
    List<Member> members =
        pods.stream()
            .filter(p -> topology.isPod(p.getMetadata().getName()))
            .map(
                p ->
                    new Member(
                        p.getMetadata().getName(),
                        topology.ordinal(p.getMetadata().getName()).orElse(0),
                        PodFacts.revision(p).orElse(null),
                        PodFacts.ready(p),
                        p.getMetadata().getDeletionTimestamp() != null))
            .toList();
    Optional<String> switching =
        Optional.ofNullable(db.getMetadata().getAnnotations())
            .map(a -> a.get(Keys.SWITCHOVER_ANNOTATION))
            .filter(t -> !t.isBlank());
    return decide(
        Optional.ofNullable(sts.get().getStatus().getUpdateRevision()),
        db.getSpec().getReplicas(),
        topology.primaryPod(),
        switching,
        db.getStatus() != null
            && db.getStatus().getCurrentPrimary() != null
            && !PodRoles.mayBootstrap(db),
        members);
  }

  /** Takes the step: deletes a pod or asks for the switchover. */
  public static void run(Database db, Context<Database> context) {
    Step step =
        decide(
            db,
            Children.statefulSet(db, context),
            List.copyOf(context.getSecondaryResources(Pod.class)));
    KubernetesClient client = context.getClient();
    String ns = db.getMetadata().getNamespace();
    try {
      if (step instanceof Step.Replace replace) {
        WriteBudget.spend(db, "Pod " + replace.pod());
        log.info("{}/{}: {}", ns, db.getMetadata().getName(), replace.why());
        client.pods().inNamespace(ns).withName(replace.pod()).delete();
      } else if (step instanceof Step.SwitchOver switchOver) {
        WriteBudget.spend(db, "Database " + db.getMetadata().getName());
        log.info("{}/{}: {}", ns, db.getMetadata().getName(), switchOver.why());
        PatchByName.send(
            client,
            db,
            PatchType.JSON_MERGE,
            "{\"metadata\":{\"annotations\":{\""
                + Keys.SWITCHOVER_ANNOTATION
                + "\":\""
                + switchOver.to()
                + "\"}}}");
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }
}
