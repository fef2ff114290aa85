package dev.cellar.kubelean;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The children of one kind that matched their desired state, and what they and the desired state
 * were then. JOSDK's server-side apply matcher turns the child and the desired state into maps and
 * compares the fields Cellar owns, on every reconcile, for children that mostly did not change
 * since the last one: 14 % of the operator's CPU while 500 Databases converged
 * (docs/performance.md, Matches remembered). A child is taken as unchanged while its uid,
 * generation, labels, annotations, owners, finalizers and deletion mark are: the API server bumps
 * the generation on every change of a spec; a kind without one is compared by resourceVersion,
 * which any write bumps. The desired state is taken as unchanged while its hash is.
 */
public final class KnownMatches {
  /** Past this many children the memory starts afresh (an entry is about 100 bytes). */
  static final int LIMIT = 65_536;

  private record Seen(String uid, Long generation, String resourceVersion, int meta, int desired) {
    static Seen of(HasMetadata actual, int desired) {
      ObjectMeta m = actual.getMetadata();
      Long generation = m.getGeneration();
      return new Seen(
          m.getUid(),
          generation,
          generation == null ? m.getResourceVersion() : null,
          Objects.hash(
              hash(m.getLabels()),
              hash(m.getAnnotations()),
              m.getOwnerReferences(),
              m.getFinalizers(),
              m.getDeletionTimestamp()),
          desired);
    }
  }

  /**
   * {@link Map#hashCode} without its entry-set view: a {@code LinkedHashMap} hashed the usual way
   * keeps that view (16 bytes) for as long as it lives, and every cached child's labels and
   * annotations were hashed here, 66,000 views at 1,000 Databases (docs/performance.md, Matches
   * remembered).
   */
  static int hash(Map<String, String> map) {
    if (map == null) {
      return 0;
    }
    int[] h = {0};
    map.forEach((k, v) -> h[0] += Objects.hashCode(k) ^ Objects.hashCode(v));
    return h[0];
  }

  private final Map<ResourceID, Seen> seen = new ConcurrentHashMap<>();

  /** Whether {@code actual} matched a desired state of hash {@code desired} as it is now. */
  public boolean matched(HasMetadata actual, int desired) {
    Seen before = seen.get(ResourceID.fromResource(actual));
    return before != null && before.equals(Seen.of(actual, desired));
  }

  /** Remembers that {@code actual} matched the desired state of hash {@code desired}. */
  public void remember(HasMetadata actual, int desired) {
    if (seen.size() >= LIMIT) {
      seen.clear();
    }
    seen.put(ResourceID.fromResource(actual), Seen.of(actual, desired));
  }
}
