package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import org.junit.jupiter.api.Test;

class KnownMatchesTest {
  static StatefulSet sts(long generation, String resourceVersion) {
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName("orders")
        .withNamespace("shop")
        .withUid("uid-1")
        .withGeneration(generation)
        .withResourceVersion(resourceVersion)
        .addToLabels("app.kubernetes.io/name", "postgresql")
        .endMetadata()
        .withNewSpec()
        .withReplicas(2)
        .endSpec()
        .build();
  }

  @Test
  void labelsAreHashedAsMapHashCodeDoes() {
    java.util.Map<String, String> labels = new java.util.LinkedHashMap<>();
    assertThat(KnownMatches.hash(labels)).isEqualTo(labels.hashCode());
    labels.put("app.kubernetes.io/name", "postgresql");
    labels.put("cellar.dev/role", null);
    labels.put("app.kubernetes.io/instance", "orders");
    assertThat(KnownMatches.hash(labels)).isEqualTo(labels.hashCode());
    assertThat(KnownMatches.hash(null)).isZero();
  }

  @Test
  void aChildMatchesAgainWhileNeitherItNorTheDesiredStateChanged() {
    KnownMatches known = new KnownMatches();
    assertThat(known.matched(sts(3, "100"), 42)).as("never compared").isFalse();
    known.remember(sts(3, "100"), 42);
    // Its status moved on (a new resourceVersion, the same generation): still known.
    assertThat(known.matched(sts(3, "117"), 42)).isTrue();
    // Another desired state, a changed spec (the generation), a label, a new object of that name.
    assertThat(known.matched(sts(3, "117"), 43)).isFalse();
    assertThat(known.matched(sts(4, "118"), 42)).isFalse();
    StatefulSet relabelled = sts(3, "119");
    relabelled.getMetadata().getLabels().put("app.kubernetes.io/name", "mysql");
    assertThat(known.matched(relabelled, 42)).isFalse();
    StatefulSet annotated = sts(3, "119");
    annotated.getMetadata().setAnnotations(java.util.Map.of("user", "edit"));
    assertThat(known.matched(annotated, 42)).isFalse();
    StatefulSet deleting = sts(3, "120");
    deleting.getMetadata().setDeletionTimestamp("2026-11-27T04:00:00Z");
    assertThat(known.matched(deleting, 42)).isFalse();
    StatefulSet recreated = sts(3, "121");
    recreated.getMetadata().setUid("uid-2");
    assertThat(known.matched(recreated, 42)).isFalse();
  }

  @Test
  void aKindWithoutGenerationsIsComparedAgainAfterAnyWrite() {
    KnownMatches known = new KnownMatches();
    Secret secret =
        new SecretBuilder()
            .withNewMetadata()
            .withName("orders-tls")
            .withNamespace("shop")
            .withUid("uid-3")
            .withResourceVersion("7")
            .endMetadata()
            .build();
    known.remember(secret, 1);
    assertThat(known.matched(secret, 1)).isTrue();
    secret.getMetadata().setResourceVersion("8");
    assertThat(known.matched(secret, 1)).isFalse();
  }
}
