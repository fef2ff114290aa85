package dev.cellar.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class BackupPvcDependentTest {

  /** A claim as the StatefulSet controller creates it, not yet seen by the binder. */
  private static PersistentVolumeClaim created() {
    return new PersistentVolumeClaimBuilder()
        .withNewMetadata()
        .withName("data-db-0-0")
        .withResourceVersion("1")
        .addToLabels("cellar.dev/instance", "db-0")
        .endMetadata()
        .withNewSpec()
        .withAccessModes("ReadWriteOnce")
        .withNewResources()
        .addToRequests("storage", new Quantity("1Gi"))
        .endResources()
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }

  @Test
  void theBindersAnnotationsAndTheVolumesNameReconcileNothing() {
    PersistentVolumeClaim before = created();
    PersistentVolumeClaim annotated =
        new PersistentVolumeClaimBuilder(before)
            .editMetadata()
            .withResourceVersion("2")
            .addToAnnotations("volume.kubernetes.io/storage-provisioner", "rancher.io/local-path")
            .addToAnnotations("volume.beta.kubernetes.io/storage-provisioner", "rancher.io/local")
            .endMetadata()
            .build();
    PersistentVolumeClaim bound =
        new PersistentVolumeClaimBuilder(annotated)
            .editMetadata()
            .withResourceVersion("3")
            .addToAnnotations("pv.kubernetes.io/bind-completed", "yes")
            .addToAnnotations("pv.kubernetes.io/bound-by-controller", "yes")
            .endMetadata()
            .editSpec()
            .withVolumeName("pvc-1234")
            .endSpec()
            .build();
    assertThat(BackupPvcDependent.changesWhatCellarReads(annotated, before)).isFalse();
    assertThat(BackupPvcDependent.changesWhatCellarReads(bound, annotated)).isFalse();
  }

  @Test
  void theStatusTheSizeTheLabelsAndCellarsAnnotationsReconcile() {
    assertReconciles(c -> c.editStatus().withPhase("Bound").endStatus());
    assertReconciles(
        c ->
            c.editSpec()
                .editResources()
                .addToRequests("storage", new Quantity("2Gi"))
                .endResources()
                .endSpec());
    assertReconciles(c -> c.editMetadata().addToLabels("cellar.dev/component", "x").endMetadata());
    assertReconciles(
        c -> c.editMetadata().addToAnnotations("cellar.dev/anything", "x").endMetadata());
    assertReconciles(
        c -> c.editMetadata().withDeletionTimestamp("2026-11-27T08:00:00Z").endMetadata());
  }

  /** Asserts that the claim {@code edit} makes of a new one is an update Cellar reconciles. */
  private static void assertReconciles(UnaryOperator<PersistentVolumeClaimBuilder> edit) {
    PersistentVolumeClaim before = created();
    PersistentVolumeClaim after = edit.apply(new PersistentVolumeClaimBuilder(before)).build();
    assertThat(BackupPvcDependent.changesWhatCellarReads(after, before)).isTrue();
  }
}
