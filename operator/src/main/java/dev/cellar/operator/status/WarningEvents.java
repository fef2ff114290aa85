package dev.cellar.operator.status;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.informers.Informers;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Event;
import io.javaoperatorsdk.operator.api.config.informer.FieldSelector;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The Warning Events about claims and StatefulSets, watched: why a claim stays Pending (a missing
 * class, a failing provisioner) or why a StatefulSet cannot create its pods (a quota, an admission
 * policy) the controllers say only in Events. Cellar used to list them on reconciles, and each list
 * scans every Event of the namespace: with 500 Databases created at once those lists were the API
 * server's most expensive requests (docs/performance.md, Warning Events watched instead of listed).
 * The API server filters the watch by kind and type, so the caches hold nothing while all is well,
 * and a new Warning reconciles the Database it concerns at once.
 */
public final class WarningEvents {
  static final String CLAIMS = "claim-warnings";
  static final String STATEFULSETS = "statefulset-warnings";

  /** A Warning older than this is a trouble that has passed (the controllers renew theirs). */
  static final Duration RECENT = Duration.ofMinutes(10);

  private WarningEvents() {}

  /** The two event sources: Warnings about PersistentVolumeClaims and about StatefulSets. */
  public static List<InformerEventSource<Event, Database>> eventSources(
      EventSourceContext<Database> context) {
    return List.of(
        source(context, CLAIMS, "PersistentVolumeClaim", ChildNames::databasesOfClaim),
        source(context, STATEFULSETS, "StatefulSet", Set::of));
  }

  private static InformerEventSource<Event, Database> source(
      EventSourceContext<Database> context,
      String name,
      String kind,
      Function<String, Set<String>> databases) {
    var config =
        InformerEventSourceConfiguration.from(Event.class, Database.class)
            .withName(name)
            .withFieldSelector(
                new FieldSelector(
                    new FieldSelector.Field("involvedObject.kind", kind),
                    new FieldSelector.Field("type", "Warning")))
            .withSecondaryToPrimaryMapper(
                e ->
                    databases.apply(e.getInvolvedObject().getName()).stream()
                        .map(db -> new ResourceID(db, e.getMetadata().getNamespace()))
                        .collect(Collectors.toSet()));
    return Informers.bound().whole(config, context);
  }

  /** The newest recent Warning about the claim {@code name}, if any. */
  static Optional<Event> aboutClaim(Context<Database> context, Topology topology, String name) {
    return newest(context, CLAIMS, topology, name);
  }

  /** The newest recent Warning about the StatefulSet {@code name}, if any. */
  static Optional<Event> aboutStatefulSet(
      Context<Database> context, Topology topology, String name) {
    return newest(context, STATEFULSETS, topology, name);
  }

  private static Optional<Event> newest(
      Context<Database> context, String source, Topology topology, String name) {
    Instant since = Instant.now().minus(RECENT);
    return context
        .eventSourceRetriever()
        .getEventSourceFor(Event.class, source)
        .getSecondaryResources(topology.db())
        .stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .filter(e -> seen(e).map(t -> t.isAfter(since)).orElse(false))
        .max(Comparator.comparing(e -> seen(e).orElse(Instant.MIN)));
  }

  /** When the Event last happened: lastTimestamp, else eventTime (events.k8s.io writers). */
  private static Optional<Instant> seen(Event e) {
    try {
      if (e.getLastTimestamp() != null) {
        return Optional.of(Instant.parse(e.getLastTimestamp()));
      }
      if (e.getEventTime() != null && e.getEventTime().getTime() != null) {
        return Optional.of(Instant.parse(e.getEventTime().getTime()));
      }
      return Optional.empty();
    } catch (RuntimeException ex) {
      return Optional.empty();
    }
  }
}
