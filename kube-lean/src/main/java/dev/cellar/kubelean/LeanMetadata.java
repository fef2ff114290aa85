package dev.cellar.kubelean;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.PropertyName;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBuilder;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/**
 * Skips {@code metadata.managedFields} while reading the kinds whose managedFields {@link
 * CachePruning} drops anyway (pods, Secrets, Services, ConfigMaps, Jobs, and the primary resources
 * of a {@link CachePruning#primaryStore}: the Databases), instead of building them first (entries,
 * maps of maps) only to drop them: they are about 45 % of a pod's JSON. A restart beside 1000
 * Databases was not measurably faster for it (docs/performance.md, Reads that skip what the caches
 * drop); it allocates less. The kinds matched by server-side apply (StatefulSets, claims, CronJobs,
 * PodDisruptionBudgets, NetworkPolicies) keep theirs: JOSDK's matcher reads Cellar's Apply entries.
 *
 * <p>Jackson builds one ObjectMeta deserializer for every kind, so the kind is passed down on the
 * reading thread: reading one of these kinds marks the thread, and the managedFields property of
 * the ObjectMeta read inside skips its value while the mark is set.
 */
public final class LeanMetadata {
  static final Set<Class<?>> KINDS =
      Set.of(Pod.class, Secret.class, Service.class, ConfigMap.class, Job.class);

  private static final ThreadLocal<Boolean> SKIP = ThreadLocal.withInitial(() -> false);

  private LeanMetadata() {}

  /** Off with {@code -Dcellar.leanMetadata=false} (to measure it, or as an escape hatch). */
  public static boolean enabled() {
    return !"false".equals(System.getProperty("cellar.leanMetadata"));
  }

  /**
   * A Jackson module that reads {@link #KINDS} and {@code primaryKinds} (those kept in a {@link
   * CachePruning#primaryStore}) without their managedFields.
   */
  public static SimpleModule module(Set<Class<?>> primaryKinds) {
    Set<Class<?>> kinds = new HashSet<>(KINDS);
    kinds.addAll(primaryKinds);
    SimpleModule module = new SimpleModule("cellar-lean-metadata");
    module.setDeserializerModifier(
        new BeanDeserializerModifier() {
          @Override
          public BeanDeserializerBuilder updateBuilder(
              DeserializationConfig config, BeanDescription desc, BeanDeserializerBuilder builder) {
            if (desc.getBeanClass() == ObjectMeta.class) {
              SettableBeanProperty managedFields =
                  builder.findProperty(PropertyName.construct("managedFields"));
              if (managedFields != null) {
                builder.addOrReplaceProperty(new SkippableProperty(managedFields, SKIP::get), true);
              }
            }
            return builder;
          }

          @Override
          public JsonDeserializer<?> modifyDeserializer(
              DeserializationConfig config,
              BeanDescription desc,
              JsonDeserializer<?> deserializer) {
            return kinds.contains(desc.getBeanClass()) ? new Marking(deserializer) : deserializer;
          }
        });
    return module;
  }

  /** Reads one of the kinds with the thread marked, as it was marked before after. */
  private static final class Marking extends DelegatingDeserializer {
    Marking(JsonDeserializer<?> delegate) {
      super(delegate);
    }

    @Override
    protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> delegate) {
      return new Marking(delegate);
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      boolean before = SKIP.get();
      SKIP.set(true);
      try {
        return super.deserialize(p, ctxt);
      } finally {
        SKIP.set(before);
      }
    }
  }
}
