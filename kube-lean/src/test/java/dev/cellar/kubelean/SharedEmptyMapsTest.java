package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SharedEmptyMapsTest {
  static final KubernetesSerialization SHARING =
      new KubernetesSerialization(
          new ObjectMapper().registerModule(SharedEmptyMaps.module()), true);

  static Pod pod() {
    return new PodBuilder()
        .withNewMetadata()
        .withName("orders-0")
        .withNamespace("shop")
        .withLabels(Map.of("cellar.dev/role", "primary"))
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("postgresql")
        .withImage("cellar/postgresql:15")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .endStatus()
        .build();
  }

  @Test
  void emptyMapsOfWhatIsReadAreTheSharedOne() {
    Pod read = SHARING.unmarshal(SHARING.asJson(pod()), Pod.class);
    assertThat(read.getAdditionalProperties()).isSameAs(Collections.emptyMap());
    assertThat(read.getMetadata().getAdditionalProperties()).isSameAs(Collections.emptyMap());
    assertThat(read.getSpec().getContainers().get(0).getAdditionalProperties())
        .isSameAs(Collections.emptyMap());
    // Equal to the same pod built (whose maps are its own), and written the same.
    assertThat(read).isEqualTo(pod()).hasSameHashCodeAs(pod());
    assertThat(SHARING.asJson(read)).isEqualTo(SHARING.asJson(pod()));
    // A copy through a builder has maps of its own again, which take additional properties.
    Pod copy = new PodBuilder(read).build();
    copy.setAdditionalProperty("x", 1);
    assertThat(copy.getAdditionalProperties()).containsEntry("x", 1);
  }

  @Test
  void fieldsTheModelDoesNotKnowAreKept() {
    String json = SHARING.asJson(pod()).replace("\"phase\"", "\"futureField\":\"v\",\"phase\"");
    Pod read = SHARING.unmarshal(json, Pod.class);
    assertThat(read.getStatus().getAdditionalProperties()).containsEntry("futureField", "v");
  }

  @Test
  void genericResourcesAreLeftAlone() {
    GenericKubernetesResource read =
        SHARING.unmarshal(
            "{\"apiVersion\":\"v1\",\"kind\":\"Thing\",\"metadata\":{\"name\":\"a\"}}",
            GenericKubernetesResource.class);
    read.setAdditionalProperty("spec", Map.of());
    assertThat(read.getAdditionalProperties()).containsKey("spec");
  }
}
