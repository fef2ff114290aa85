package dev.cellar.operator.storage;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/** Whether a volume can grow in place: its storage class must allow volume expansion. */
public final class VolumeExpansion {
  static final String DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class";

  private VolumeExpansion() {}

  /**
   * The class of a claim: set on the claim (the API server fills in the default class at creation),
   * else the one asked for, else the cluster's default.
   */
  public static Optional<StorageClass> classOf(
      KubernetesClient client, Optional<PersistentVolumeClaim> claim, String requested) {
    String name =
        claim
            .map(c -> c.getSpec().getStorageClassName())
            .filter(n -> !n.isEmpty())
            .orElse(requested);
    if (name != null) {
      return Optional.ofNullable(client.storage().v1().storageClasses().withName(name).get());
    }
    return client.storage().v1().storageClasses().list().getItems().stream()
        .filter(
            c ->
                c.getMetadata().getAnnotations() != null
                    && "true"
                        .equals(c.getMetadata().getAnnotations().get(DEFAULT_CLASS_ANNOTATION)))
        .findFirst();
  }

  public static boolean allowsExpansion(Optional<StorageClass> storageClass) {
    return storageClass.map(c -> Boolean.TRUE.equals(c.getAllowVolumeExpansion())).orElse(false);
  }

  /** What the claim asks for. */
  public static Optional<Quantity> requested(PersistentVolumeClaim claim) {
    return Optional.ofNullable(claim.getSpec().getResources())
        .map(r -> r.getRequests())
        .map(r -> r.get("storage"));
  }

  /** What the claim has: its status capacity. */
  public static Optional<Quantity> capacity(PersistentVolumeClaim claim) {
    return Optional.ofNullable(claim.getStatus())
        .map(s -> s.getCapacity())
        .map(c -> c.get("storage"));
  }

  public static boolean smaller(Optional<Quantity> size, Quantity than) {
    return size.map(s -> s.getNumericalAmount().compareTo(than.getNumericalAmount()) < 0)
        .orElse(true);
  }
}
