package dev.cellar.kubelean;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBuilder;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetList;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobList;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobList;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * What the informers read for their caches (a watch event, a page of an informer's list) is read
 * without what {@link CachePruning} drops from it once stored: the parser skips those fields
 * instead of building them (a pod's spec, a StatefulSet's managedFields and most of its pod
 * template, a CronJob's managedFields and Job template, a Job's spec). Of a pod's watch event (14
 * KB) the cache keeps about 2 KB, of a StatefulSet's (12 KB) less: building the rest only to drop
 * it cost a warm operator a tenth of its CPU while Databases converged, and a restart a second
 * beside 1300 Databases (docs/performance.md, Reads that skip what the caches drop).
 *
 * <p>What is kept is what {@link CachePruning} keeps, so pruning a skipped read gives what pruning
 * a whole read gives ({@code CacheReadsTest}); a field newly read from the cache is kept in both.
 * Only reads marked with {@link #reading} skip, and of those kinds only: a GET (JOSDK's matcher
 * reads a pruned StatefulSet or CronJob whole from the API server) or a write's response is read
 * whole. The one list of these kinds that is not an informer's, a backup Job's pods ({@code
 * BackupResults}), reads what the caches keep of a pod.
 */
public final class CacheReads {
  /** The kind being read for a cache, on this thread; none outside {@link #reading}. */
  private static final ThreadLocal<Class<?>> READING = new ThreadLocal<>();

  /** For each cached kind: the classes inside it with fields its cache drops, and which fields. */
  static final Map<Class<?>, Map<Class<?>, Predicate<String>>> SKIPPED =
      Map.of(
          Pod.class,
          Map.of(
              PodSpec.class,
              allBut("nodeName"),
              PodStatus.class,
              Set.of(
                      "podIP",
                      "podIPs",
                      "hostIP",
                      "hostIPs",
                      "qosClass",
                      "startTime",
                      "ephemeralContainerStatuses")
                  ::contains,
              ContainerStatus.class,
              Set.of(
                      "containerID",
                      "imageID",
                      "restartCount",
                      "allocatedResources",
                      "allocatedResourcesStatus",
                      "resources",
                      "user",
                      "volumeMounts")
                  ::contains),
          StatefulSet.class,
          Map.of(
              ObjectMeta.class,
              "managedFields"::equals,
              StatefulSetSpec.class,
              allBut("replicas", "updateStrategy", "volumeClaimTemplates", "template"),
              PodSpec.class,
              allBut("containers", "initContainers", "volumes"),
              Container.class,
              allBut("name", "image"),
              Volume.class,
              allBut("name", "configMap")),
          CronJob.class,
          Map.of(
              ObjectMeta.class, "managedFields"::equals, CronJobSpec.class, "jobTemplate"::equals),
          Job.class,
          Map.of(Job.class, "spec"::equals));

  /** The specs whose reads for a cache are pruned ones, and of which kind. */
  private static final Map<Class<?>, Class<?>> PRUNED_SPECS =
      Map.of(StatefulSetSpec.class, StatefulSet.class, CronJobSpec.class, CronJob.class);

  /** The lists whose items are read for a cache: only informers list these (and BackupResults). */
  private static final Map<Type, Class<?>> LISTS =
      Map.of(
          PodList.class,
          Pod.class,
          StatefulSetList.class,
          StatefulSet.class,
          CronJobList.class,
          CronJob.class,
          JobList.class,
          Job.class);

  private CacheReads() {}

  private static Predicate<String> allBut(String... kept) {
    return Predicate.not(Set.of(kept)::contains);
  }

  /** Off with {@code -Dcellar.cachePruning=false}, with the pruning itself. */
  public static boolean enabled() {
    return CachePruning.enabled();
  }

  /** A read, which may fail as reading JSON fails. */
  @FunctionalInterface
  public interface Read<T> {
    T read() throws IOException;
  }

  /** {@code read}, reading an object of {@code kind} for its cache. */
  public static <T> T reading(Class<?> kind, Read<T> read) throws IOException {
    Class<?> before = READING.get();
    READING.set(kind);
    try {
      return read.read();
    } finally {
      if (before == null) {
        READING.remove();
      } else {
        READING.set(before);
      }
    }
  }

  /** The kind of the items of a list of {@code type}, if they are read for a cache. */
  public static Optional<Class<?>> itemsOf(Type type) {
    return Optional.ofNullable(LISTS.get(type));
  }

  /** A Jackson module that skips, in a read for a cache, the fields in {@link #SKIPPED}. */
  public static SimpleModule module() {
    SimpleModule module = new SimpleModule("cellar-cache-reads");
    module.setDeserializerModifier(
        new BeanDeserializerModifier() {
          @Override
          public BeanDeserializerBuilder updateBuilder(
              DeserializationConfig config, BeanDescription desc, BeanDeserializerBuilder builder) {
            Class<?> bean = desc.getBeanClass();
            List<SettableBeanProperty> replaced = new ArrayList<>();
            for (Iterator<SettableBeanProperty> it = builder.getProperties(); it.hasNext(); ) {
              SettableBeanProperty property = it.next();
              Set<Class<?>> kinds = kindsSkipping(bean, property.getName());
              if (!kinds.isEmpty()) {
                replaced.add(new SkippableProperty(property, () -> skipping(kinds)));
              }
            }
            // Replaced once the iteration is over: the builder's map is what it iterates.
            replaced.forEach(property -> builder.addOrReplaceProperty(property, true));
            return builder;
          }

          @Override
          public JsonDeserializer<?> modifyDeserializer(
              DeserializationConfig config,
              BeanDescription desc,
              JsonDeserializer<?> deserializer) {
            Class<?> kind = PRUNED_SPECS.get(desc.getBeanClass());
            return kind == null ? deserializer : new MarkedPruned(deserializer, kind);
          }
        });
    return module;
  }

  /** Whether this thread reads an object of one of {@code kinds} for its cache. */
  private static boolean skipping(Set<Class<?>> kinds) {
    Class<?> kind = READING.get();
    return kind != null && kinds.contains(kind);
  }

  /** The kinds whose cache reads skip the field {@code name} of {@code bean}. */
  static Set<Class<?>> kindsSkipping(Class<?> bean, String name) {
    return SKIPPED.entrySet().stream()
        .filter(kind -> kind.getValue().getOrDefault(bean, n -> false).test(name))
        .map(Map.Entry::getKey)
        .collect(Collectors.toUnmodifiableSet());
  }

  /**
   * A spec read for its cache says it is pruned, as {@link CachePruning} marks one: JOSDK's matcher
   * then compares the API server's whole object. Where no pruning store keeps them (several watched
   * namespaces), the caches hold such specs as read, and a spec taken for whole would be applied
   * again at each reconcile.
   */
  private static final class MarkedPruned extends DelegatingDeserializer {
    private final Class<?> kind;

    MarkedPruned(JsonDeserializer<?> delegate, Class<?> kind) {
      super(delegate);
      this.kind = kind;
    }

    @Override
    protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> delegate) {
      return new MarkedPruned(delegate, kind);
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      Object spec = super.deserialize(p, ctxt);
      if (READING.get() == kind) {
        CachePruning.markPruned(spec);
      }
      return spec;
    }
  }
}
