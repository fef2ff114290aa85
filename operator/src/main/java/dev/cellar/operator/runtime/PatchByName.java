package dev.cellar.operator.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * A patch of an object by its name, sent without reading the object first. fabric8's {@code
 * withName(name).patch(context, String)} GETs the object before each such patch, to take from it
 * only the name and namespace the request already has; while 500 Databases were created at once
 * that was a GET per pod label and per TLS Secret patch (docs/performance.md, No read before a
 * write). Handed an object, the client takes its name from it, so this hands it an empty one.
 */
public final class PatchByName {
  private PatchByName() {}

  /** Sends {@code patch} to the object {@code of} names (its kind, namespace and name). */
  @SuppressWarnings("unchecked")
  public static <T extends HasMetadata> T send(
      KubernetesClient client, T of, PatchType patchType, String patch) {
    return send(
        client,
        (Class<T>) of.getClass(),
        of.getMetadata().getNamespace(),
        of.getMetadata().getName(),
        patchType,
        patch);
  }

  /**
   * Sends {@code patch} to the {@code type} named {@code name}; the object as the server left it.
   */
  public static <T extends HasMetadata> T send(
      KubernetesClient client,
      Class<T> type,
      String namespace,
      String name,
      PatchType patchType,
      String patch) {
    T target;
    try {
      target = type.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(type.getName() + " cannot be instantiated", e);
    }
    target.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
    return client.resource(target).patch(PatchContext.of(patchType), patch);
  }
}
