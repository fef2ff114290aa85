package dev.cellar.operator.replication;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.operator.runtime.OperatorSettings;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.polling.PerResourcePollingConfigurationBuilder;
import io.javaoperatorsdk.operator.processing.event.source.polling.PerResourcePollingEventSource;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * How far behind its primary each ready replica is, asked of the servers themselves ({@code role.sh
 * lag}) every {@link #period}, away from the reconcile threads. The answers are a polled event
 * source's resources: a reconcile (and a status write) follows only when a replica's lag in whole
 * seconds changed, so an idle Database, whose replicas are 0 s behind, costs no write.
 */
public final class ReplicationLag {
  /** How often the replicas are asked: the setting LAG_POLL_SECONDS, 30 s unless set. */
  public static Duration period() {
    return OperatorSettings.ofProcess().lagPoll();
  }

  /**
   * How often a Database without replicas (scaled down or hibernated since it was registered) is
   * looked at again: nothing is asked of any server then.
   */
  static final Duration WITHOUT_REPLICAS = Duration.ofMinutes(5);

  /** One replica's lag: a secondary resource of its Database. */
  public record Replica(String pod, long seconds) {}

  private ReplicationLag() {}

  /**
   * The event source that polls the replicas of every Database with replicas; {@code pods} are the
   * Database's pods as the pod informer has them.
   */
  public static PerResourcePollingEventSource<Replica, Database, String> eventSource(
      EventSourceContext<Database> context,
      Function<Database, Collection<Pod>> pods,
      InstanceAgent agent) {
    Duration period = period();
    // Each ask is timed out (InstanceAgent); two threads keep one slow server from holding up the
    // others' Databases.
    ScheduledExecutorService executor =
        Executors.newScheduledThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "cellar-replication-lag");
              t.setDaemon(true);
              return t;
            });
    var config =
        new PerResourcePollingConfigurationBuilder<Replica, Database, String>(
                new PerResourcePollingEventSource.ResourceFetcher<>() {
                  @Override
                  public Set<Replica> fetchResources(Database db) {
                    return ask(db, pods.apply(db), agent);
                  }

                  @Override
                  public Optional<Duration> fetchDelay(Set<Replica> last, Database db) {
                    return Optional.of(replicated(db) ? period : WITHOUT_REPLICAS);
                  }
                },
                period)
            .withName("replication-lag")
            .withExecutorService(executor)
            .withRegisterPredicate(ReplicationLag::replicated)
            .withResourceIDMapper(Replica::pod)
            .build();
    return new PerResourcePollingEventSource<>(Replica.class, context, config);
  }

  /** Whether {@code db} has replicas running, whose lag there is to ask. */
  static boolean replicated(Database db) {
    return db.getSpec() != null
        && db.getSpec().getReplicas() != null
        && db.getSpec().getReplicas() > 1
        && !Boolean.TRUE.equals(db.getSpec().getHibernated());
  }

  /**
   * Asks each ready replica among {@code pods} for its lag; a replica that cannot say is left out.
   */
  static Set<Replica> ask(Database db, Collection<Pod> pods, InstanceAgent agent) {
    if (!replicated(db)) {
      return Set.of();
    }
    String primary = Topology.of(db).primaryPod();
    Set<Replica> replicas = new HashSet<>();
    pods.stream()
        .filter(PodFacts::ready)
        .map(p -> p.getMetadata().getName())
        .filter(name -> !name.equals(primary))
        .sorted(Comparator.naturalOrder())
        .forEach(
            name -> {
              OptionalLong lag = agent.lag(db.getMetadata().getNamespace(), name);
              if (lag.isPresent()) {
                replicas.add(new Replica(name, lag.getAsLong()));
              }
            });
    return replicas;
  }

  /**
   * The lag last observed for each replica of {@code db}, by pod name: what the last poll found,
   * never asked from the reconcile thread (the event source's own look-up would ask the servers
   * when there is no poll yet). Empty for a Database without replicas.
   */
  public static Map<String, Long> observed(Database db, Context<Database> context) {
    if (!replicated(db)) {
      return Map.of();
    }
    EventSource<Replica, Database> source;
    try {
      source = context.eventSourceRetriever().getEventSourceFor(Replica.class);
    } catch (RuntimeException e) {
      return Map.of(); // a controller without the poll (some tests)
    }
    if (!(source instanceof PerResourcePollingEventSource<Replica, Database, ?> polled)) {
      return Map.of();
    }
    return polled.getSecondaryResources(ResourceID.fromResource(db)).stream()
        .collect(Collectors.toUnmodifiableMap(Replica::pod, Replica::seconds, Math::max));
  }
}
