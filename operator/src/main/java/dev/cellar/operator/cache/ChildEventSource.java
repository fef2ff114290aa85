package dev.cellar.operator.cache;

import dev.cellar.api.v1.Database;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.PrimaryToSecondaryMapper;
import io.javaoperatorsdk.operator.processing.event.source.ResourceAction;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * JOSDK's informer event source for a Database's children (and its pods, which Cellar patches
 * through it: {@code PodRoles}), whose read-cache-after-write lets go of a write's response once
 * the informer has the same version.
 *
 * <p>JOSDK 5.3.2 keeps a write's response (whole, not pruned) until the informer delivers a version
 * at least as new, and it puts each response twice: once while it writes, once more after, from the
 * dependent's {@code onCreated}/{@code onUpdated} (there with the Database's id, which the cache
 * ignores). When the informer's event comes between the two, which under load is most writes, the
 * second put waits for an event that has come already and stays until the object's next change.
 * Secrets, Services and ConfigMaps rarely change: at N = 500 that was a second, unpruned copy of
 * some 1,700 children, 14 MiB of live heap (docs/performance.md, Write responses not kept). Here a
 * response is dropped right after it is put if the informer already holds that same version, which
 * JOSDK would read instead anyway.
 *
 * <p>An informer configured with a mapping from a Database to its children's names has JOSDK keep
 * no index from each Database to its children (JOSDK then asks the mapping instead): those indexes
 * held about 400 bytes per Database in each informer, 2 MB at 500 Databases (docs/performance.md,
 * Children found by name). A child of one of those names is the Database's only if it maps back to
 * it, as the index had it: Databases named {@code orders} and {@code orders-ro} both want a Service
 * {@code orders-ro}.
 */
public final class ChildEventSource<R extends HasMetadata>
    extends InformerEventSource<R, Database> {
  /** Whether the name alone makes a child the Database's (the shared scripts ConfigMap). */
  private final boolean nameAlone;

  public ChildEventSource(
      InformerEventSourceConfiguration<R> configuration, EventSourceContext<Database> context) {
    this(configuration, context, false);
  }

  public ChildEventSource(
      InformerEventSourceConfiguration<R> configuration,
      EventSourceContext<Database> context,
      boolean nameAlone) {
    super(configuration, context);
    this.nameAlone = nameAlone;
  }

  /**
   * The Database's children in this informer: by JOSDK's index, or by the names the Database's
   * mapping gives them, those that map back to it. An identity set: a HashSet hashes each child
   * whole ({@code Children}).
   */
  @Override
  public Set<R> getSecondaryResources(Database db) {
    PrimaryToSecondaryMapper<Database> names = configuration().getPrimaryToSecondaryMapper();
    if (names == null) {
      return super.getSecondaryResources(db);
    }
    Set<R> children = Collections.newSetFromMap(new IdentityHashMap<>());
    for (ResourceID id : names.toSecondaryResourceIDs(db)) {
      get(id).filter(child -> belongs(child, db)).ifPresent(children::add);
    }
    return children;
  }

  /** The Database's child {@code name} (one of its names) in this informer, if it has it. */
  public Optional<R> child(Database db, String name) {
    return get(new ResourceID(name, db.getMetadata().getNamespace()))
        .filter(child -> belongs(child, db));
  }

  /** Whether {@code child} maps to {@code db}. */
  private boolean belongs(R child, Database db) {
    return nameAlone
        || configuration()
            .getSecondaryToPrimaryMapper()
            .toPrimaryResourceIDs(child)
            .contains(ResourceID.fromResource(db));
  }

  @Override
  public void handleRecentResourceCreate(ResourceID id, R resource) {
    super.handleRecentResourceCreate(id, resource);
    settle(ResourceID.fromResource(resource));
  }

  @Override
  public void handleRecentResourceUpdate(ResourceID id, R resource, R previous) {
    super.handleRecentResourceUpdate(id, resource, previous);
    settle(ResourceID.fromResource(resource));
  }

  /**
   * Drops the cached response for {@code id} once the informer has its very version: {@link #get}
   * then answers with the informer's copy, not the response. Under the cache's own lock, so no
   * event comes between the comparison and the drop; the drop goes through the cache's event path,
   * which removes an entry an event's version reaches and, for an equal version, records nothing to
   * replay.
   */
  private void settle(ResourceID id) {
    synchronized (temporaryResourceCache) {
      temporaryResourceCache
          .getResourceFromCache(id)
          .ifPresent(
              written ->
                  get(id)
                      .filter(
                          seen ->
                              seen != written
                                  && Objects.equals(
                                      seen.getMetadata().getResourceVersion(),
                                      written.getMetadata().getResourceVersion()))
                      .ifPresent(
                          seen ->
                              temporaryResourceCache.onAddOrUpdateEvent(
                                  ResourceAction.UPDATED, seen, null)));
    }
  }
}
