package dev.cellar.operator.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.testkit.LocalCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A resize's release of the deleted StatefulSet's dependents, against the real API server: the
 * strategic merge patch takes off that one owner reference and keeps the others, twice is no error,
 * and an object recreated under the same name is left alone.
 */
class StorageResizeIT {
  static final String NS = "storage-resize-it";
  static final KubernetesClient client = LocalCluster.get().newClient();

  @BeforeAll
  static void namespace() {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .serverSideApply();
  }

  @AfterAll
  static void cleanUp() {
    client.namespaces().withName(NS).delete();
    client.close();
  }

  /** An existing object to own the dependents: the garbage collector leaves those alone. */
  static OwnerReference owner(String name) {
    ConfigMap owner =
        client
            .configMaps()
            .inNamespace(NS)
            .resource(new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().build())
            .create();
    return new OwnerReferenceBuilder()
        .withApiVersion("v1")
        .withKind("ConfigMap")
        .withName(name)
        .withUid(owner.getMetadata().getUid())
        .build();
  }

  /** A pod {@code name} with these owners, created. */
  static Pod pod(String name, OwnerReference... owners) {
    return client
        .pods()
        .inNamespace(NS)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withOwnerReferences(owners)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("db")
                .withImage("db:1")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  static List<String> ownerUids(HasMetadata o) {
    return o.getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid).toList();
  }

  @Test
  void theDeletedOwnersReferenceGoesAndTheOthersStay() {
    OwnerReference deleted = owner("deleted");
    OwnerReference kept = owner("kept");
    Pod pod = pod("db-0", deleted, kept);
    PersistentVolumeClaim claim =
        client
            .persistentVolumeClaims()
            .inNamespace(NS)
            .resource(
                new PersistentVolumeClaimBuilder()
                    .withNewMetadata()
                    .withName("data-db-0")
                    .withOwnerReferences(deleted)
                    .endMetadata()
                    .withNewSpec()
                    .withAccessModes("ReadWriteOnce")
                    .withNewResources()
                    .withRequests(Map.of("storage", new Quantity("1Gi")))
                    .endResources()
                    .endSpec()
                    .build())
            .create();

    StorageResize.release(deleted.getUid(), List.of(pod), List.of(claim), client);
    // Once more, as a reconcile that still saw the references would: nothing left to take off.
    StorageResize.release(deleted.getUid(), List.of(pod), List.of(claim), client);

    Pod released = client.pods().inNamespace(NS).withName("db-0").get();
    assertThat(released.getMetadata().getUid()).isEqualTo(pod.getMetadata().getUid());
    assertThat(ownerUids(released)).containsExactly(kept.getUid());
    PersistentVolumeClaim releasedClaim =
        client.persistentVolumeClaims().inNamespace(NS).withName("data-db-0").get();
    assertThat(releasedClaim.getMetadata().getOwnerReferences()).isEmpty();
  }

  @Test
  void anObjectRecreatedUnderTheSameNameIsLeftAlone() {
    OwnerReference deleted = owner("deleted-too");
    Pod pod = pod("db-1", deleted);
    // As the cache might still have it: the same name, an earlier object's uid.
    Pod earlier =
        new PodBuilder(pod).editMetadata().withUid("an-earlier-pod").endMetadata().build();

    StorageResize.release(deleted.getUid(), List.of(earlier), List.of(), client);

    assertThat(ownerUids(client.pods().inNamespace(NS).withName("db-1").get()))
        .containsExactly(deleted.getUid());
  }
}
