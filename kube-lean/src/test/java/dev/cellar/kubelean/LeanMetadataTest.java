package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LeanMetadataTest {
  /** As the operator's client reads: with fabric8's modules and the other caches' ones. */
  static final KubernetesSerialization LEAN =
      new KubernetesSerialization(
          new ObjectMapper()
              .registerModule(SharedEmptyMaps.module())
              .registerModule(LeanMetadata.module(Set.of())),
          true);

  static ObjectMeta metadata(String name) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace("shop")
        .withLabels(Map.of("app.kubernetes.io/instance", "orders"))
        .withManagedFields(
            new ManagedFieldsEntryBuilder()
                .withManager("cellar-operator")
                .withOperation("Apply")
                .withApiVersion("v1")
                .withFieldsType("FieldsV1")
                .withNewFieldsV1()
                .addToAdditionalProperties("f:metadata", Map.of("f:labels", Map.of()))
                .endFieldsV1()
                .build())
        .build();
  }

  <T extends HasMetadata> T read(T written, Class<T> type) {
    return LEAN.unmarshal(LEAN.asJson(written), type);
  }

  @Test
  void theKindsWhoseManagedFieldsTheCacheDropsAreReadWithout() {
    Pod pod = new Pod();
    pod.setMetadata(metadata("orders-0"));
    Pod read = read(pod, Pod.class);
    assertThat(read.getMetadata().getManagedFields()).isNullOrEmpty();
    // The rest of the metadata, and of what follows it, is read as before.
    assertThat(read.getMetadata().getName()).isEqualTo("orders-0");
    assertThat(read.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/instance", "orders");

    Secret secret =
        new SecretBuilder()
            .withMetadata(metadata("orders-credentials"))
            .addToData("k", "dg==")
            .build();
    Secret readSecret = read(secret, Secret.class);
    assertThat(readSecret.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(readSecret.getData()).containsEntry("k", "dg==");

    // In a list (an informer's page), each item.
    PodList list = new PodListBuilder().addToItems(pod, pod).build();
    assertThat(LEAN.unmarshal(LEAN.asJson(list), PodList.class).getItems())
        .allSatisfy(p -> assertThat(p.getMetadata().getManagedFields()).isNullOrEmpty());
  }

  @Test
  void theKindsServerSideApplyMatchesKeepTheirs() {
    StatefulSet sts = new StatefulSetBuilder().withMetadata(metadata("orders")).build();
    StatefulSet read = read(sts, StatefulSet.class);
    assertThat(read.getMetadata().getManagedFields())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getManager()).isEqualTo("cellar-operator");
              assertThat(e.getFieldsV1().getAdditionalProperties()).containsKey("f:metadata");
            });
    // And after a pod was read on the same thread.
    Pod pod = new Pod();
    pod.setMetadata(metadata("orders-0"));
    read(pod, Pod.class);
    assertThat(read(sts, StatefulSet.class).getMetadata().getManagedFields()).hasSize(1);
  }
}
