package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SharedEmptyCollectionsTest {
  static final KubernetesSerialization JSON = new KubernetesSerialization();

  static StatefulSet statefulSet() {
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName("orders")
        .withNamespace("shop")
        .withLabels(Map.of("app.kubernetes.io/managed-by", "cellar-operator"))
        .endMetadata()
        .withNewSpec()
        .withReplicas(2)
        .withNewTemplate()
        .withNewSpec()
        .addNewContainer()
        .withName("postgresql")
        .withImage("cellar/postgresql:15")
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  @Test
  void emptyCollectionsAtEveryDepthAreTheSharedOnes() {
    StatefulSet cached = statefulSet();
    SharedEmptyCollections.share(cached);
    // A container of a non-empty list, a field of the metadata, a map.
    var container = cached.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getEnv()).isSameAs(Collections.emptyList());
    assertThat(container.getPorts()).isSameAs(Collections.emptyList());
    assertThat(cached.getMetadata().getFinalizers()).isSameAs(Collections.emptyList());
    assertThat(cached.getMetadata().getAnnotations()).isSameAs(Collections.emptyMap());
    assertThat(cached.getAdditionalProperties()).isSameAs(Collections.emptyMap());
    // What is not empty stays as it was.
    assertThat(cached.getMetadata().getLabels())
        .isEqualTo(Map.of("app.kubernetes.io/managed-by", "cellar-operator"));
    assertThat(cached.getSpec().getReplicas()).isEqualTo(2);
  }

  @Test
  void theSharedObjectEqualsHashesAndIsWrittenAsBefore() {
    StatefulSet cached = statefulSet();
    SharedEmptyCollections.share(cached);
    assertThat(cached).isEqualTo(statefulSet()).hasSameHashCodeAs(statefulSet());
    assertThat(JSON.asJson(cached)).isEqualTo(JSON.asJson(statefulSet()));
  }

  @Test
  void aCopyHasCollectionsOfItsOwnAndACachedOneRefusesChange() {
    StatefulSet cached = statefulSet();
    SharedEmptyCollections.share(cached);
    StatefulSet copy = new StatefulSetBuilder(cached).build();
    copy.getMetadata().getFinalizers().add("example.com/keep");
    assertThat(copy.getMetadata().getFinalizers()).containsExactly("example.com/keep");
    assertThatThrownBy(() -> cached.getMetadata().getFinalizers().add("example.com/keep"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void equalMapsOfStringsAcrossObjectsAreOneUnmodifiableInstance() {
    StatefulSet first = statefulSet();
    StatefulSet second = statefulSet();
    Secret secret =
        new SecretBuilder()
            .withMetadata(
                new ObjectMetaBuilder()
                    .withName("orders-credentials")
                    .withLabels(Map.of("app.kubernetes.io/managed-by", "cellar-operator"))
                    .build())
            .build();
    SharedEmptyCollections.share(first);
    SharedEmptyCollections.share(second);
    SharedEmptyCollections.share(secret);
    assertThat(second.getMetadata().getLabels())
        .isSameAs(first.getMetadata().getLabels())
        .isSameAs(secret.getMetadata().getLabels())
        .isEqualTo(Map.of("app.kubernetes.io/managed-by", "cellar-operator"));
    assertThat(second).isEqualTo(statefulSet()).hasSameHashCodeAs(statefulSet());
    assertThat(JSON.asJson(second)).isEqualTo(JSON.asJson(statefulSet()));
    // A change in place would change every object that shares the map: it is refused.
    assertThatThrownBy(() -> first.getMetadata().getLabels().put("app.kubernetes.io/name", "x"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(new StatefulSetBuilder(first).editMetadata().addToLabels("a", "b").endMetadata())
        .extracting(b -> b.build().getMetadata().getLabels())
        .isEqualTo(Map.of("app.kubernetes.io/managed-by", "cellar-operator", "a", "b"));
  }

  @Test
  void aSecretKeepsItsData() {
    Secret secret =
        new SecretBuilder()
            .withMetadata(new ObjectMetaBuilder().withName("orders-credentials").build())
            .withData(Map.of("password", "c2VjcmV0"))
            .build();
    SharedEmptyCollections.share(secret);
    assertThat(secret.getData()).isEqualTo(Map.of("password", "c2VjcmV0"));
    // Not shared: each Secret's values are its own, and would only evict the maps that repeat.
    secret.getData().put("username", "b3JkZXJz");
    assertThat(secret.getStringData()).isSameAs(Collections.emptyMap());
  }

  @Test
  void customResourcesAreLeftAlone() {
    // JOSDK copies a primary resource (a Database) for each reconcile and adds its finalizer to the
    // copy; the cached one is not a fabric8 model class and keeps collections of its own.
    Shelf db = new Shelf();
    db.setMetadata(new ObjectMetaBuilder().withName("orders").build());
    SharedEmptyCollections.share(db);
    assertThat(db.getMetadata().getFinalizers()).isNotSameAs(Collections.emptyList());
    db.getMetadata().getFinalizers().add("cellar.dev/finalizer");
    assertThat(db.getMetadata().getFinalizers()).containsExactly("cellar.dev/finalizer");
  }

  @Test
  void thePruningStoreSharesThem() {
    StatefulSet cached = CachePruning.prune(statefulSet());
    assertThat(cached.getMetadata().getFinalizers()).isSameAs(Collections.emptyList());
  }
}
