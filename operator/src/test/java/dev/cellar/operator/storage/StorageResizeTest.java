package dev.cellar.operator.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which dependents a resize releases from the StatefulSet it deleted, and how. */
class StorageResizeTest {
  static Pod pod(String name, String... ownerUids) {
    PodBuilder pod =
        new PodBuilder().withNewMetadata().withName(name).withUid(name + "-uid").endMetadata();
    for (String uid : ownerUids) {
      pod.editMetadata()
          .addNewOwnerReference()
          .withKind("StatefulSet")
          .withName("orders")
          .withUid(uid)
          .withController(true)
          .endOwnerReference()
          .endMetadata();
    }
    return pod.build();
  }

  static PersistentVolumeClaim claim(String name, String ownerUid) {
    PersistentVolumeClaimBuilder claim =
        new PersistentVolumeClaimBuilder().withNewMetadata().withName(name).endMetadata();
    if (ownerUid != null) {
      claim
          .editMetadata()
          .addNewOwnerReference()
          .withUid(ownerUid)
          .endOwnerReference()
          .endMetadata();
    }
    return claim.build();
  }

  @Test
  void onlyTheDeletedStatefulSetsPodsAndClaimsAreReleased() {
    List<HasMetadata> released =
        StorageResize.ownedBy(
            "old",
            List.of(pod("orders-0", "old"), pod("orders-1", "new"), pod("orders-backup-1")),
            List.of(claim("data-orders-0", "old"), claim("data-orders-1", null)));
    assertThat(released)
        .extracting(o -> o.getMetadata().getName())
        .containsExactly("orders-0", "data-orders-0");
  }

  @Test
  void theReleaseDeletesTheReferenceByUidOnThatObjectOnly() throws Exception {
    JsonNode patch =
        new ObjectMapper().readTree(StorageResize.releasePatch(pod("orders-0", "old"), "old"));
    assertThat(patch.at("/metadata/uid").asText()).isEqualTo("orders-0-uid");
    assertThat(patch.at("/metadata/ownerReferences/0/$patch").asText()).isEqualTo("delete");
    assertThat(patch.at("/metadata/ownerReferences/0/uid").asText()).isEqualTo("old");
    assertThat(patch.at("/metadata/ownerReferences").size()).isEqualTo(1);
  }
}
