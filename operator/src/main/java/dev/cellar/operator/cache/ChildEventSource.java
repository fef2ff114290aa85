package dev.cellar.operator.cache;

import dev.cellar.api.v1.Database;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.ResourceAction;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Objects;

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
 * some 1,700 children, 14 MiB of live heap (docs/benchmarks.md, twelfth pass). Here a response is
 * dropped right after it is put if the informer already holds that same version, which JOSDK would
 * read instead anyway.
 */
public final class ChildEventSource<R extends HasMetadata>
    extends InformerEventSource<R, Database> {

  public ChildEventSource(
      InformerEventSourceConfiguration<R> configuration, EventSourceContext<Database> context) {
    super(configuration, context);
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
