package dev.cellar.kubelean;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Secret;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * fabric8's model classes start every list and map field as a new empty {@code ArrayList} or {@code
 * LinkedHashMap} (24 and 56 bytes), and most stay empty: a pod's finalizers, a container's env and
 * ports as the pruned caches keep them, a Secret's stringData. Beside 500 converged Databases the
 * informers' caches held 41,000 empty lists and 18,000 empty maps, 2 MB of a 49 MB live heap
 * (docs/performance.md, Shared collections). Each is replaced here, in an object about to be
 * cached, by the one shared immutable empty list or map, which equals and hashes as an empty one
 * and serializes the same. A map of strings that is not empty (labels, annotations, selectors) is
 * replaced by an equal one shared with the other cached objects ({@link SharedStringMaps}).
 *
 * <p>What this rules out: changing a cached object's collection in place, which would change the
 * informer's cache behind its back and now throws instead. Builders copy ({@code new
 * PodBuilder(pod)}), fabric8's {@code edit} works on a copy it reads anew, and JOSDK hands a
 * reconcile a copy of the Database, whose cache this leaves alone (JOSDK adds its finalizer to that
 * copy).
 */
public final class SharedEmptyCollections {
  private static final String MODEL_PACKAGE = SharedEmptyMaps.MODEL_PACKAGE;

  /**
   * Those whose maps SharedEmptyMaps leaves alone, and managedFields, which CachePruning shares.
   */
  private static boolean leftAlone(Class<?> type) {
    return SharedEmptyMaps.LEFT_ALONE.contains(type.getName()) || type == ManagedFieldsEntry.class;
  }

  private static final List<?> EMPTY_LIST = Collections.emptyList();
  private static final Map<?, ?> EMPTY_MAP = Collections.emptyMap();

  private SharedEmptyCollections() {}

  /**
   * Off with {@code -Dcellar.sharedEmptyCollections=false} (to measure what it saves, or as an
   * escape hatch).
   */
  public static boolean enabled() {
    return !"false".equals(System.getProperty("cellar.sharedEmptyCollections"));
  }

  /** {@code object}'s empty collections, at every depth, swapped for the shared ones, in place. */
  public static void share(Object object) {
    if (object == null) {
      return;
    }
    try {
      for (Property property : PROPERTIES.get(object.getClass())) {
        Object value = property.get().invokeExact(object);
        if (value instanceof List<?> list) {
          if (list.isEmpty()) {
            if (list != EMPTY_LIST) {
              property.set().invokeExact(object, (Object) EMPTY_LIST);
            }
          } else {
            list.forEach(SharedEmptyCollections::share);
          }
        } else if (value instanceof Map<?, ?> map) {
          if (map.isEmpty()) {
            if (map != EMPTY_MAP) {
              property.set().invokeExact(object, (Object) EMPTY_MAP);
            }
          } else if (property.ofStrings()) {
            if (SHARED_STRING_MAPS) {
              @SuppressWarnings("unchecked")
              Map<String, String> shared = SharedStringMaps.shared((Map<String, String>) map);
              if (shared != map) {
                property.set().invokeExact(object, (Object) shared);
              }
            }
          } else {
            map.values().forEach(SharedEmptyCollections::share);
          }
        } else if (value != null) {
          share(value);
        }
      }
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A property whose value may hold collections: a list, a map or another model object; {@code
   * ofStrings} for a map of strings to strings that {@link SharedStringMaps} may share.
   */
  private record Property(MethodHandle get, MethodHandle set, boolean ofStrings) {}

  private static final boolean SHARED_STRING_MAPS = SharedStringMaps.enabled();

  /**
   * Whether {@code getter} of {@code type} returns a map of strings worth sharing: not a Secret's
   * (its values are each Database's own keys and passwords, which would only evict what repeats).
   */
  private static boolean ofStrings(Class<?> type, Method getter) {
    return type != Secret.class
        && getter.getGenericReturnType() instanceof ParameterizedType map
        && Arrays.equals(map.getActualTypeArguments(), new Type[] {String.class, String.class});
  }

  /**
   * A class's properties, found once: none for what is not a fabric8 model class (a string, a
   * Database) or is left alone, so each object of the walk costs one lookup.
   */
  private static final ClassValue<List<Property>> PROPERTIES =
      new ClassValue<>() {
        @Override
        protected List<Property> computeValue(Class<?> type) {
          if (!type.getName().startsWith(MODEL_PACKAGE) || leftAlone(type)) {
            return List.of();
          }
          List<Property> properties = new ArrayList<>();
          MethodHandles.Lookup lookup = MethodHandles.publicLookup();
          for (Method getter : type.getMethods()) {
            Class<?> valueType = getter.getReturnType();
            if (getter.getParameterCount() != 0
                || Modifier.isStatic(getter.getModifiers())
                || !getter.getName().startsWith("get")
                || !(List.class == valueType
                    || Map.class == valueType
                    || valueType.getName().startsWith(MODEL_PACKAGE))) {
              continue;
            }
            try {
              Method setter = type.getMethod("set" + getter.getName().substring(3), valueType);
              // (Object) -> Object and (Object, Object) -> void, for invokeExact.
              properties.add(
                  new Property(
                      lookup
                          .unreflect(getter)
                          .asType(MethodType.methodType(Object.class, Object.class)),
                      lookup
                          .unreflect(setter)
                          .asType(MethodType.methodType(void.class, Object.class, Object.class)),
                      ofStrings(type, getter)));
            } catch (NoSuchMethodException | IllegalAccessException e) {
              // read-only: nothing to swap
            }
          }
          return List.copyOf(properties);
        }
      };
}
