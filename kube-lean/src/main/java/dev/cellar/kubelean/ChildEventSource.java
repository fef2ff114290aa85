package dev.cellar.kubelean;

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
 * JOSDK's informer event source for the children of a primary resource {@code P} (a Database's, and
 * its pods, which Cellar patches through it), whose read-cache-after-write lets go of a write's
 * response once the informer has the same version.
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
public final class ChildEventSource<R extends HasMetadata, P extends HasMetadata>
    extends InformerEventSource<R, P> {
  /** Whether the name alone makes a child the primary's (Cellar's shared scripts ConfigMap). */
  private final boolean nameAlone;

  public ChildEventSource(
      InformerEventSourceConfiguration<R> configuration, EventSourceContext<P> context) {
    this(configuration, context, false);
  }

  public ChildEventSource(
      InformerEventSourceConfiguration<R> configuration,
      EventSourceContext<P> context,
      boolean nameAlone) {
    super(configuration, context);
    this.nameAlone = nameAlone;
  }

  /**
   * The primary's children in this informer: by JOSDK's index, or by the names the primary's
   * mapping gives them, those that map back to it. An identity set: a HashSet hashes each child
   * whole (Cellar's {@code Children} says what that cost).
   */
  @Override
  public Set<R> getSecondaryResources(P primary) {
    PrimaryToSecondaryMapper<P> names = configuration().getPrimaryToSecondaryMapper();
    if (names == null) {
      return super.getSecondaryResources(primary);
    }
    Set<R> children = Collections.newSetFromMap(new IdentityHashMap<>());
    for (ResourceID id : names.toSecondaryResourceIDs(primary)) {
      get(id).filter(child -> belongs(child, primary)).ifPresent(children::add);
    }
    return children;
  }

  /** The primary's child {@code name} (one of its names) in this informer, if it has it. */
  public Optional<R> child(P primary, String name) {
    return get(new ResourceID(name, primary.getMetadata().getNamespace()))
        .filter(child -> belongs(child, primary));
  }

  /** Whether {@code child} maps to {@code primary}. */
  private boolean belongs(R child, P primary) {
    return nameAlone
        || configuration()
            .getSecondaryToPrimaryMapper()
            .toPrimaryResourceIDs(child)
            .contains(ResourceID.fromResource(primary));
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
