package dev.cellar.operator.topology;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.informers.Informers;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Optional;

/**
 * A Database's children read from their informers by the names its {@link Topology} gives them.
 *
 * <p>Not {@code context.getSecondaryResource(StatefulSet.class)}: JOSDK collects the Database's
 * children of the kind into a HashSet first, and hashing a StatefulSet walks its whole spec, its
 * managed fields and each resource quantity (as a BigDecimal). A reconcile asks for the StatefulSet
 * about ten times; those hashes were 5 % of the operator's CPU and 8 % of what it allocated while
 * 500 Databases converged (docs/performance.md, Children found by name). The answer is the same:
 * the object of that name, when its informer maps it to this Database, the mapping JOSDK builds its
 * index from.
 */
public final class Children {
  private Children() {}

  public static Optional<StatefulSet> statefulSet(Database db, Context<Database> context) {
    return named(db, context, StatefulSet.class, Topology.of(db).statefulSet());
  }

  public static Optional<CronJob> backupCronJob(Database db, Context<Database> context) {
    return named(db, context, CronJob.class, Topology.of(db).backupCronJob());
  }

  /** The child {@code name} of {@code type}, whose kind has one informer. */
  @SuppressWarnings("unchecked")
  static <R extends HasMetadata> Optional<R> named(
      Database db, Context<Database> context, Class<R> type, String name) {
    return named(
        db,
        (InformerEventSource<R, Database>) context.eventSourceRetriever().getEventSourceFor(type),
        name);
  }

  /**
   * The child {@code name} in {@code source}, if it is the Database's: see {@link Informers#child}.
   */
  public static <R extends HasMetadata> Optional<R> named(
      Database db, InformerEventSource<R, Database> source, String name) {
    // Every child's informer is one of Informers#children (DatabaseChild#createEventSource).
    return Informers.bound().child(source, db, name);
  }
}
