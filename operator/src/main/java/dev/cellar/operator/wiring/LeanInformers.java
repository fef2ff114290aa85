package dev.cellar.operator.wiring;

import dev.cellar.api.v1.Database;
import dev.cellar.kubelean.CachePruning;
import dev.cellar.kubelean.ChildEventSource;
import dev.cellar.kubelean.KnownMatches;
import dev.cellar.operator.informers.Informers;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Optional;
import java.util.Set;

/**
 * The operator's informers bound to kube-lean's: every informer lists in pages, the children's (and
 * the pods' and backup Jobs') keep only what Cellar reads and let go of a write's response once
 * they have its version, and the dependents' matching knows what the caches keep
 * (docs/performance.md, Pruned informer caches).
 */
public final class LeanInformers implements Informers {
  /**
   * The Databases' informer: a store that keeps them without managedFields (where one store serves
   * it: {@link CachePruning#forNamespaces}), lists in pages.
   */
  public static void configureDatabases(
      ControllerConfigurationOverrider<Database> config, Set<String> namespaces) {
    if (CachePruning.forNamespaces(namespaces)) {
      config.withItemStore(databaseStore());
    }
    config.withInformerListLimit(CachePruning.LIST_PAGE);
  }

  /** A store for the Databases' informer, which keeps them without managedFields. */
  public static ItemStore<Database> databaseStore() {
    return CachePruning.primaryStore();
  }

  @Override
  public <R extends HasMetadata> InformerEventSource<R, Database> children(
      InformerEventSourceConfiguration.Builder<R> config,
      EventSourceContext<Database> context,
      boolean nameAlone) {
    if (CachePruning.forNamespaces(context.getControllerConfiguration().getEffectiveNamespaces())) {
      config.withItemStore(CachePruning.store());
    }
    config.withInformerListLimit(CachePruning.LIST_PAGE);
    return new ChildEventSource<>(config.build(), context, nameAlone);
  }

  @Override
  public <R extends HasMetadata> InformerEventSource<R, Database> whole(
      InformerEventSourceConfiguration.Builder<R> config, EventSourceContext<Database> context) {
    config.withInformerListLimit(CachePruning.LIST_PAGE);
    return new InformerEventSource<>(config.build(), context);
  }

  /** Every child's informer is a {@link ChildEventSource}, made by {@link #children}. */
  @Override
  public <R extends HasMetadata> Optional<R> child(
      InformerEventSource<R, Database> source, Database db, String name) {
    return ((ChildEventSource<R, Database>) source).child(db, name);
  }

  @Override
  public boolean partial(HasMetadata cached) {
    return CachePruning.specPruned(cached);
  }

  @Override
  public String filesHash(ConfigMap configMap) {
    return CachePruning.dataHash(configMap);
  }

  @Override
  public Matches matches() {
    KnownMatches known = new KnownMatches();
    return new Matches() {
      @Override
      public boolean matched(HasMetadata actual, int desired) {
        return known.matched(actual, desired);
      }

      @Override
      public void remember(HasMetadata actual, int desired) {
        known.remember(actual, desired);
      }
    };
  }
}
