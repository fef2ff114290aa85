package dev.cellar.operator.failover;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.FailoverSpec;
import dev.cellar.operator.events.EventRecorder;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.operator.primary.PodRoles;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failover step of a reconcile: watches the current primary and, once it has been unavailable
 * for {@code spec.failover.delaySeconds}, fences it (its pod is deleted, so it restarts as a
 * replica), promotes the most advanced ready replica, records it in {@code status.currentPrimary}
 * and relabels the pods, which moves the Services. The decision itself is {@link Election}'s.
 */
public final class Failover {
  private static final Logger log = LoggerFactory.getLogger(Failover.class);

  /** How soon to look again when no replica can take over yet. */
  static final Duration NO_CANDIDATE_RECHECK = Duration.ofSeconds(5);

  /** Grace of the fenced primary's pod: long enough for a clean stop, short enough to fence. */
  static final long FENCE_GRACE_SECONDS = 1;

  /**
   * Since when each Database's primary has been seen unavailable (namespace/name/primary). Kept in
   * memory: after an operator restart the clock starts again, which only delays a failover.
   */
  private static final Map<String, Instant> UNAVAILABLE_SINCE = new ConcurrentHashMap<>();

  /** Runs the position calls of one election side by side (each is timed out by the agent). */
  private static final ExecutorService EXEC =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "cellar-failover-exec");
            t.setDaemon(true);
            return t;
          });

  private Failover() {}

  /**
   * What the step did.
   *
   * @param recheck when to reconcile again (a failover that is due later)
   * @param note the reason and message for the Available condition, while it matters
   */
  public record Outcome(Optional<Duration> recheck, Optional<Failure> note) {
    static final Outcome NONE = new Outcome(Optional.empty(), Optional.empty());
  }

  public static Outcome run(Database db, Context<Database> context, InstanceAgent agent) {
    return run(
        db,
        List.copyOf(context.getSecondaryResources(Pod.class)),
        context.getClient(),
        agent,
        Instant.now());
  }

  static Outcome run(
      Database db, List<Pod> pods, KubernetesClient client, InstanceAgent agent, Instant now) {
    Topology topology = Topology.of(db);
    String key = db.getMetadata().getNamespace() + "/" + db.getMetadata().getName();
    DatabaseStatus status = db.getStatus();
    if (status == null
        || status.getCurrentPrimary() == null
        || Boolean.TRUE.equals(db.getSpec().getHibernated())
        || PodRoles.mayBootstrap(db)) {
      // Never available yet, or stopped on purpose: there is nothing to fail over from.
      UNAVAILABLE_SINCE.remove(key);
      return Outcome.NONE;
    }
    Optional<Outcome> switchover = Switchover.run(db, pods, client, agent, now);
    if (switchover.isPresent()) {
      return switchover.get();
    }
    String primary = topology.primaryPod();
    Optional<Pod> primaryPod =
        pods.stream().filter(p -> p.getMetadata().getName().equals(primary)).findFirst();
    boolean available = primaryPod.map(PodFacts::ready).orElse(false);
    Optional<Instant> since = Optional.empty();
    String sinceKey = key + "/" + primary;
    if (available) {
      UNAVAILABLE_SINCE.keySet().removeIf(k -> k.startsWith(key + "/"));
    } else {
      Instant seen = UNAVAILABLE_SINCE.computeIfAbsent(sinceKey, k -> now);
      since = Optional.of(notReadySince(primaryPod).filter(t -> t.isBefore(seen)).orElse(seen));
    }
    FailoverSpec spec =
        Optional.ofNullable(db.getSpec().getFailover()).orElseGet(FailoverSpec::new);
    Election.Situation situation =
        new Election.Situation(
            !Boolean.FALSE.equals(spec.getEnabled()),
            Duration.ofSeconds(
                Optional.ofNullable(spec.getDelaySeconds())
                    .orElse(FailoverSpec.DEFAULT_DELAY_SECONDS)),
            db.getSpec().getReplicas(),
            primary,
            available,
            since,
            members(topology, pods),
            topology.synchronousReplication(),
            standbys(topology, pods, primary));
    Election.Decision decision = Election.assess(situation, now);
    if (decision instanceof Election.Decision.Keep keep) {
      return available
          ? Outcome.NONE
          : new Outcome(
              Optional.empty(), Optional.of(new Failure(Reason.PRIMARY_NOT_READY, keep.why())));
    }
    if (decision instanceof Election.Decision.WaitUntil wait) {
      Duration after = Duration.between(now, wait.at());
      return new Outcome(
          Optional.of(after.isNegative() || after.isZero() ? Duration.ofMillis(200) : after),
          Optional.of(new Failure(Reason.FAILING_OVER, wait.why())));
    }
    if (decision instanceof Election.Decision.NoCandidate none) {
      return new Outcome(
          Optional.of(NO_CANDIDATE_RECHECK),
          Optional.of(new Failure(Reason.NO_FAILOVER_CANDIDATE, none.why())));
    }
    Election.Decision.Elect elect = (Election.Decision.Elect) decision;
    String ns = db.getMetadata().getNamespace();
    // Every one at once: each exec is a round trip through the API server and the kubelet.
    Map<String, CompletableFuture<OptionalLong>> asked = new LinkedHashMap<>();
    for (String name : elect.asked()) {
      asked.put(name, CompletableFuture.supplyAsync(() -> agent.position(ns, name), EXEC));
    }
    Map<String, OptionalLong> positions = new LinkedHashMap<>();
    asked.forEach((name, answer) -> positions.put(name, answer.join()));
    Election.Choice choice = Election.pick(elect, positions);
    if (choice instanceof Election.Choice.Wait wait) {
      log.info(
          "failover of {} waits: {}; positions: {}", key, wait.why(), positionsText(positions));
      return new Outcome(
          Optional.of(NO_CANDIDATE_RECHECK),
          Optional.of(new Failure(Reason.NO_FAILOVER_CANDIDATE, elect.why() + "; " + wait.why())));
    }
    Election.Choice.Promote chosen = (Election.Choice.Promote) choice;
    String target = chosen.member().name();
    // Fence before promoting: the old primary's pod goes, so it cannot take writes while another
    // is promoted; it comes back without a role, and is labelled replica. Only once a replica is
    // chosen, so a failover that cannot happen never keeps deleting the primary's pod.
    primaryPod.ifPresent(p -> fence(client, p));
    Optional<String> failed = agent.promote(ns, target);
    if (failed.isPresent()) {
      String message = elect.why() + "; promoting " + target + " failed: " + failed.get();
      // Its Warning Event comes from Degraded turning FailoverFailed (StatusEvents.notes).
      log.warn("failover of {}: {}", key, message);
      return new Outcome(
          Optional.of(NO_CANDIDATE_RECHECK),
          Optional.of(new Failure(Reason.FAILOVER_FAILED, message)));
    }
    String message =
        elect.why()
            + "; promoted "
            + target
            + " (position "
            + chosen.position()
            + ", the most advanced of "
            + positions.size()
            + " replica(s) asked: "
            + positionsText(positions)
            + ") at "
            + now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    log.info("failover of {}: {}", key, message);
    status.setCurrentPrimary(target);
    UNAVAILABLE_SINCE.keySet().removeIf(k -> k.startsWith(key + "/"));
    // The Services follow the labels: the new primary's at once, the others by PodRoles.
    pods.stream()
        .filter(p -> p.getMetadata().getName().equals(target))
        .findFirst()
        .ifPresent(p -> PodRoles.relabel(client, p, true));
    new EventRecorder(client)
        .emit(
            db, List.of(new EventRecorder.Note(EventRecorder.NORMAL, Reason.FAILED_OVER, message)));
    return new Outcome(Optional.empty(), Optional.of(new Failure(Reason.FAILED_OVER, message)));
  }

  /** "db-1 10, db-2 unknown": what each asked replica answered, for the Event and the log. */
  static String positionsText(Map<String, OptionalLong> positions) {
    return positions.entrySet().stream()
        .map(
            e ->
                e.getKey()
                    + " "
                    + (e.getValue().isPresent()
                        ? String.valueOf(e.getValue().getAsLong())
                        : "unknown"))
        .collect(Collectors.joining(", "));
  }

  /**
   * The pods but the primary's that may have acknowledged a synchronous commit: a missing pod
   * counts (the StatefulSet recreates it on its volume within seconds), one the scheduler has not
   * placed does not: it runs no server, and waiting for it (a replica added without room for it,
   * say) would keep a Database without a primary for good.
   */
  static List<String> standbys(Topology topology, List<Pod> pods, String primary) {
    Set<String> unplaced =
        pods.stream()
            .filter(p -> p.getSpec() != null && p.getSpec().getNodeName() == null)
            .map(p -> p.getMetadata().getName())
            .collect(Collectors.toSet());
    return IntStream.range(0, topology.db().getSpec().getReplicas())
        .mapToObj(topology::pod)
        .filter(name -> !name.equals(primary) && !unplaced.contains(name))
        .toList();
  }

  static List<Election.Member> members(Topology topology, List<Pod> pods) {
    return pods.stream()
        .filter(p -> topology.isPod(p.getMetadata().getName()))
        .map(
            p ->
                new Election.Member(
                    p.getMetadata().getName(),
                    topology.ordinal(p.getMetadata().getName()).orElse(0),
                    PodFacts.ready(p),
                    PodRoles.roleOf(p).orElse(null)))
        .sorted(Comparator.comparingInt(Election.Member::ordinal))
        .toList();
  }

  /** When the pod's Ready condition last turned False, if it is False. */
  static Optional<Instant> notReadySince(Optional<Pod> pod) {
    return pod.map(Pod::getStatus)
        .map(s -> s.getConditions())
        .flatMap(
            conditions ->
                conditions.stream()
                    .filter(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus()))
                    .map(PodCondition::getLastTransitionTime)
                    .filter(t -> t != null)
                    .findFirst())
        .flatMap(
            t -> {
              try {
                return Optional.of(Instant.parse(t));
              } catch (RuntimeException e) {
                return Optional.empty();
              }
            });
  }

  /** Deletes the old primary's pod (unless it is going already), with a short grace. */
  static void fence(KubernetesClient client, Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      return;
    }
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .withGracePeriod(FENCE_GRACE_SECONDS)
          .delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }
}
