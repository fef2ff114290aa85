package dev.cellar.operator.failover;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.events.EventRecorder;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.operator.primary.PodRoles;
import dev.cellar.operator.runtime.PatchByName;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A planned switchover, asked for with the annotation {@code cellar.dev/switchover-to: <pod>} on
 * the Database and removed when done (or refused). In order: the old primary loses its label (the
 * {@code <name>} Service drops it), is demoted (writes refused; the position it ended at is read),
 * the target replays up to that position, is promoted, recorded in {@code status.currentPrimary}
 * and labelled; then the old primary restarts as a replica of it. If the target cannot catch up or
 * be promoted, the old primary is given its writes and label back.
 */
public final class Switchover {
  private static final Logger log = LoggerFactory.getLogger(Switchover.class);

  /** How long the target may take to replay the old primary's last writes. */
  static final Duration CATCH_UP = Duration.ofSeconds(30);

  private Switchover() {}

  /** The switchover the annotation asks for, if any; empty when there is none. */
  static Optional<String> requested(Database db) {
    return Optional.ofNullable(db.getMetadata().getAnnotations())
        .map(a -> a.get(Keys.SWITCHOVER_ANNOTATION))
        .filter(t -> !t.isBlank());
  }

  /**
   * Runs a requested switchover to completion (or gives up), within one reconcile: at most a few
   * exec calls and {@link #CATCH_UP}. Empty when none is requested.
   */
  static Optional<Failover.Outcome> run(
      Database db, List<Pod> pods, KubernetesClient client, InstanceAgent agent, Instant now) {
    Optional<String> wanted = requested(db);
    if (wanted.isEmpty()) {
      return Optional.empty();
    }
    String target = wanted.get();
    Topology topology = Topology.of(db);
    String primary = topology.primaryPod();
    String ns = db.getMetadata().getNamespace();
    EventRecorder events = new EventRecorder(client);
    if (target.equals(primary)) {
      removeAnnotation(client, db);
      return Optional.of(Failover.Outcome.NONE);
    }
    Optional<Pod> targetPod = pod(pods, target);
    Optional<Pod> primaryPod = pod(pods, primary);
    String refusal = null;
    if (targetPod.isEmpty() || !topology.isPod(target)) {
      refusal = target + " is not a pod of this Database";
    } else if (!PodFacts.ready(targetPod.get())
        || !Keys.ROLE_REPLICA.equals(PodRoles.roleOf(targetPod.get()).orElse(null))) {
      refusal = target + " is not a ready replica";
    } else if (primaryPod.isEmpty() || !PodFacts.ready(primaryPod.get())) {
      refusal = "the primary " + primary + " is not ready (a failover replaces it)";
    }
    if (refusal != null) {
      String message = "switchover to " + target + " refused: " + refusal;
      events.emit(
          db,
          List.of(
              new EventRecorder.Note(EventRecorder.WARNING, Reason.SWITCHOVER_FAILED, message)));
      removeAnnotation(client, db);
      return Optional.of(Failover.Outcome.NONE);
    }
    long started = System.nanoTime();
    // 1. The old primary leaves the Service, and refuses writes.
    PodRoles.relabel(client, primaryPod.get(), false);
    OptionalLong last = agent.demote(ns, primary);
    if (last.isEmpty()) {
      return Optional.of(
          undo(
              db,
              client,
              agent,
              events,
              primaryPod.get(),
              target,
              "demoting " + primary + " failed"));
    }
    // 2. The target replays up to where the old primary stopped.
    OptionalLong reached = OptionalLong.empty();
    long deadline = System.nanoTime() + CATCH_UP.toNanos();
    while (System.nanoTime() < deadline) {
      reached = agent.position(ns, target);
      if (reached.isPresent() && reached.getAsLong() >= last.getAsLong()) {
        break;
      }
      sleep(200);
    }
    if (reached.isEmpty() || reached.getAsLong() < last.getAsLong()) {
      return Optional.of(
          undo(
              db,
              client,
              agent,
              events,
              primaryPod.get(),
              target,
              target
                  + " did not reach "
                  + primary
                  + "'s position "
                  + last.getAsLong()
                  + " within "
                  + CATCH_UP.toSeconds()
                  + " s (at "
                  + reached
                  + ")"));
    }
    // 3. The target becomes the primary.
    Optional<String> failed = agent.promote(ns, target);
    if (failed.isPresent()) {
      return Optional.of(undo(db, client, agent, events, primaryPod.get(), target, failed.get()));
    }
    db.getStatus().setCurrentPrimary(target);
    PodRoles.relabel(client, targetPod.get(), true);
    long millis = (System.nanoTime() - started) / 1_000_000;
    String message =
        "switched over from "
            + primary
            + " to "
            + target
            + " (position "
            + last.getAsLong()
            + " reached; writes refused for "
            + millis
            + " ms) at "
            + now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    log.info("{}/{}: {}", ns, db.getMetadata().getName(), message);
    events.emit(
        db, List.of(new EventRecorder.Note(EventRecorder.NORMAL, Reason.SWITCHED_OVER, message)));
    removeAnnotation(client, db);
    // 4. The old primary restarts as a replica of the new one.
    agent.restart(ns, primary);
    return Optional.of(
        new Failover.Outcome(
            Optional.empty(), Optional.of(new Failure(Reason.SWITCHED_OVER, message))));
  }

  /** Gives the old primary its writes and label back after a switchover that cannot finish. */
  private static Failover.Outcome undo(
      Database db,
      KubernetesClient client,
      InstanceAgent agent,
      EventRecorder events,
      Pod primary,
      String target,
      String why) {
    String ns = db.getMetadata().getNamespace();
    Optional<String> back = agent.promote(ns, primary.getMetadata().getName());
    PodRoles.relabel(client, primary, true);
    String message =
        "switchover to "
            + target
            + " abandoned: "
            + why
            + "; "
            + primary.getMetadata().getName()
            + (back.isEmpty()
                ? " stays the primary"
                : " could not take writes again: " + back.get());
    events.emit(
        db,
        List.of(new EventRecorder.Note(EventRecorder.WARNING, Reason.SWITCHOVER_FAILED, message)));
    removeAnnotation(client, db);
    return Failover.Outcome.NONE;
  }

  private static Optional<Pod> pod(List<Pod> pods, String name) {
    return pods.stream().filter(p -> p.getMetadata().getName().equals(name)).findFirst();
  }

  private static void removeAnnotation(KubernetesClient client, Database db) {
    try {
      PatchByName.send(
          client,
          db,
          PatchType.JSON_MERGE,
          "{\"metadata\":{\"annotations\":{\"" + Keys.SWITCHOVER_ANNOTATION + "\":null}}}");
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
