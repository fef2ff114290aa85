package dev.cellar.operator.informers;

import dev.cellar.api.v1.Database;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Optional;

/**
 * The operator's informers and their caches, as the reconciler and the dependents use them. How an
 * informer lists, what its cache keeps of each object and what it lets go after a write are the
 * client's tuning, in the kube-lean module; the composition root binds this interface to it ({@code
 * dev.cellar.operator.wiring}), and the domain asks only these questions, so that no domain package
 * depends on the tuning (LayersTest). The binding is found on the class path ({@code
 * META-INF/services}), so the reconciler tests get the operator's very informers.
 */
public interface Informers {
  /** The operator's informers, as the composition root binds them. */
  static Informers bound() {
    return Binding.INFORMERS;
  }

  /**
   * An informer of a Database's children (or of its pods or backup Jobs) configured by {@code
   * config}. Where the configuration maps a Database to its children's names, its children are
   * those of these names that map back to it, or, with {@code nameAlone}, those of these names (a
   * child that Databases share).
   */
  <R extends HasMetadata> InformerEventSource<R, Database> children(
      InformerEventSourceConfiguration.Builder<R> config,
      EventSourceContext<Database> context,
      boolean nameAlone);

  /** An informer whose cache keeps each object whole (the Warning Events), as {@code config}. */
  <R extends HasMetadata> InformerEventSource<R, Database> whole(
      InformerEventSourceConfiguration.Builder<R> config, EventSourceContext<Database> context);

  /**
   * The Database's child {@code name} in {@code source}, an informer {@link #children} made, if it
   * is the Database's.
   */
  <R extends HasMetadata> Optional<R> child(
      InformerEventSource<R, Database> source, Database db, String name);

  /**
   * Whether the cache keeps only part of {@code cached} (a StatefulSet's or CronJob's spec): a
   * comparison with a desired state, or a copy of the part that is missing, reads it from the API
   * server.
   */
  boolean partial(HasMetadata cached);

  /**
   * A hash of a ConfigMap's files, the same for a cached ConfigMap (whose cache may keep only the
   * hash) as for the whole one: compare files by it.
   */
  String filesHash(ConfigMap configMap);

  /** A memory, for the children of one kind, of those that matched their desired state. */
  Matches matches();

  /**
   * The children that matched their desired state, and what they and the desired state were then: a
   * child unchanged since matches a desired state of the same hash without a comparison.
   */
  interface Matches {
    /** Whether {@code actual} matched a desired state of hash {@code desired} as it is now. */
    boolean matched(HasMetadata actual, int desired);

    /** Remembers that {@code actual} matched the desired state of hash {@code desired}. */
    void remember(HasMetadata actual, int desired);
  }
}
