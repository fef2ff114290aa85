package dev.cellar.kubelean;

import java.util.Collections;
import java.util.Map;

/**
 * One instance per distinct small map of strings in the cached objects. A Database's children
 * repeat the same few: its labels on each of its Secrets, ConfigMap, Services, StatefulSet, claims
 * and NetworkPolicy, JOSDK's three annotations on each Secret it maps by annotation, the selector
 * of its Services, StatefulSet and NetworkPolicy; and every data claim carries the binder's same
 * annotations. Each read makes a new {@code LinkedHashMap} of each (about 300 bytes with its
 * entries); here an equal one found in a {@link LossyTable} takes its place. Called on what is
 * about to be cached ({@link SharedEmptyCollections#share}), never on what Cellar builds to write.
 *
 * <p>The shared maps are unmodifiable: what this rules out, as for the shared empty collections, is
 * changing a cached object's map in place, which would change every object that shares it and now
 * throws instead. Builders copy ({@code new ObjectMetaBuilder(meta)}).
 */
final class SharedStringMaps {
  /** 64 KiB of references: a converged Database needs about four of them. */
  static final int SLOTS = 1 << 14;

  /** Larger maps are returned as they are: they are seldom repeated, and slow to compare. */
  static final int MAX_ENTRIES = 16;

  private static final LossyTable<Map<String, String>> TABLE = new LossyTable<>(SLOTS);

  private static final Class<?> UNMODIFIABLE = Collections.unmodifiableMap(Map.of()).getClass();

  private SharedStringMaps() {}

  /**
   * Off with {@code -Dcellar.sharedStringMaps=false} (to measure what it saves, or as an escape
   * hatch).
   */
  static boolean enabled() {
    return !"false".equals(System.getProperty("cellar.sharedStringMaps"));
  }

  /** {@code map}, or an equal unmodifiable map returned before; {@code map} itself if large. */
  static Map<String, String> shared(Map<String, String> map) {
    return shared(TABLE, map);
  }

  static Map<String, String> shared(
      LossyTable<Map<String, String>> table, Map<String, String> map) {
    if (map.size() > MAX_ENTRIES) {
      return map;
    }
    // KnownMatches.hash: the same as Map.hashCode, without the entry set view it would leave in
    // every map hashed.
    return table.shared(
        map,
        KnownMatches.hash(map),
        m -> m.getClass() == UNMODIFIABLE ? m : Collections.unmodifiableMap(m));
  }
}
