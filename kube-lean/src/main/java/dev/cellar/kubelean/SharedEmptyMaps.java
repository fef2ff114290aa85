package dev.cellar.kubelean;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

/**
 * Every fabric8 model object carries an {@code additionalProperties} map for fields its class does
 * not know, a {@code LinkedHashMap} of 56 bytes even when empty, which it nearly always is: a
 * StatefulSet and its pod as the informers keep them hold about 100 such maps. Once an object is
 * read, an empty one is replaced by the one shared {@link Collections#emptyMap()}, equal to an
 * empty map (so {@code equals} and {@code hashCode} are unchanged) and serialized the same.
 *
 * <p>What this rules out: {@code setAdditionalProperty} on an object read from the API server whose
 * map was empty (it would throw); Cellar sets no additional property on what it reads, and neither
 * JOSDK nor the client do on what they read. Builders copy the map into a new one ({@code new
 * PodBuilder(pod)}), so edited copies are unaffected. Generic resources (whose whole content is
 * that map), {@code AnyType} and managedFields' {@code FieldsV1} (which {@link CachePruning} shares
 * in place) are left alone.
 */
public final class SharedEmptyMaps {
  static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model";

  static final Set<String> LEFT_ALONE =
      Set.of(
          "io.fabric8.kubernetes.api.model.GenericKubernetesResource",
          "io.fabric8.kubernetes.api.model.AnyType",
          "io.fabric8.kubernetes.api.model.FieldsV1");

  private static final Map<?, ?> EMPTY = Collections.emptyMap();

  private SharedEmptyMaps() {}

  /**
   * Off with {@code -Dcellar.sharedEmptyMaps=false} (to measure what it saves, or as an escape
   * hatch).
   */
  public static boolean enabled() {
    return !"false".equals(System.getProperty("cellar.sharedEmptyMaps"));
  }

  /** A Jackson module that shares the empty additional-properties maps of what it reads. */
  public static SimpleModule module() {
    SimpleModule module = new SimpleModule("cellar-shared-empty-maps");
    module.setDeserializerModifier(
        new BeanDeserializerModifier() {
          @Override
          public JsonDeserializer<?> modifyDeserializer(
              DeserializationConfig config,
              BeanDescription desc,
              JsonDeserializer<?> deserializer) {
            Class<?> type = desc.getBeanClass();
            if (!type.getName().startsWith(MODEL_PACKAGE) || LEFT_ALONE.contains(type.getName())) {
              return deserializer;
            }
            try {
              MethodHandles.Lookup lookup = MethodHandles.publicLookup();
              // Typed (Object) -> Map and (Object, Map) -> void, for invokeExact: no adaptation
              // per call.
              MethodHandle get =
                  lookup
                      .findVirtual(
                          type, "getAdditionalProperties", MethodType.methodType(Map.class))
                      .asType(MethodType.methodType(Map.class, Object.class));
              MethodHandle set =
                  lookup
                      .findVirtual(
                          type,
                          "setAdditionalProperties",
                          MethodType.methodType(void.class, Map.class))
                      .asType(MethodType.methodType(void.class, Object.class, Map.class));
              return new Sharing(deserializer, get, set);
            } catch (ReflectiveOperationException e) {
              return deserializer; // a class without the map (or without its setter)
            }
          }
        });
    return module;
  }

  /** The bean deserializer, then the empty map swapped for the shared one. */
  private static final class Sharing extends DelegatingDeserializer {
    private final transient MethodHandle get;
    private final transient MethodHandle set;

    Sharing(JsonDeserializer<?> delegate, MethodHandle get, MethodHandle set) {
      super(delegate);
      this.get = get;
      this.set = set;
    }

    @Override
    protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> delegate) {
      return new Sharing(delegate, get, set);
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      Object bean = super.deserialize(p, ctxt);
      if (bean != null) {
        share(bean);
      }
      return bean;
    }

    private void share(Object bean) {
      try {
        Map<?, ?> map = (Map<?, ?>) get.invokeExact(bean);
        if (map != null && map.isEmpty() && map != EMPTY) {
          set.invokeExact(bean, EMPTY);
        }
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
