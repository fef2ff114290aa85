package dev.cellar.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import org.junit.jupiter.api.Test;

/** Which updates of a StatefulSet reconcile its Database. */
class StatefulSetUpdatesTest {

  /** A StatefulSet whose one pod the controller has created, not yet ready. */
  private static StatefulSet created() {
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName("db-0")
        .withGeneration(1L)
        .withResourceVersion("1")
        .addToAnnotations("cellar.dev/version", "16")
        .endMetadata()
        .withNewSpec()
        .withReplicas(1)
        .endSpec()
        .withNewStatus()
        .withObservedGeneration(1L)
        .withReplicas(1)
        .withCurrentReplicas(1)
        .withUpdatedReplicas(1)
        .withReadyReplicas(0)
        .withCurrentRevision("db-0-abc")
        .withUpdateRevision("db-0-abc")
        .endStatus()
        .build();
  }

  @Test
  void theControllersCountOfReadyPodsReconcilesNothing() {
    StatefulSet before = created();
    StatefulSet counted =
        new StatefulSetBuilder(before)
            .editMetadata()
            .withResourceVersion("2")
            .endMetadata()
            .editStatus()
            .withReadyReplicas(1)
            .withAvailableReplicas(1)
            .endStatus()
            .build();
    assertThat(StatefulSetDependent.changesWhatCellarReads(counted, before)).isFalse();
  }

  @Test
  void theRollTheSpecAndTheMetadataReconcile() {
    StatefulSet before = created();
    StatefulSet rolling =
        new StatefulSetBuilder(before)
            .editStatus()
            .withUpdateRevision("db-0-def")
            .withUpdatedReplicas(0)
            .endStatus()
            .build();
    StatefulSet scaled =
        new StatefulSetBuilder(before)
            .editMetadata()
            .withGeneration(2L)
            .endMetadata()
            .editSpec()
            .withReplicas(2)
            .endSpec()
            .build();
    StatefulSet annotated =
        new StatefulSetBuilder(before)
            .editMetadata()
            .addToAnnotations("cellar.dev/version", "17")
            .endMetadata()
            .build();
    StatefulSet observed =
        new StatefulSetBuilder(before).editStatus().withObservedGeneration(2L).endStatus().build();
    assertThat(StatefulSetDependent.changesWhatCellarReads(rolling, before)).isTrue();
    assertThat(StatefulSetDependent.changesWhatCellarReads(scaled, before)).isTrue();
    assertThat(StatefulSetDependent.changesWhatCellarReads(annotated, before)).isTrue();
    assertThat(StatefulSetDependent.changesWhatCellarReads(observed, before)).isTrue();
  }
}
