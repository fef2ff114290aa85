package dev.cellar.operator.storage;

import dev.cellar.api.v1.Database;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;

/** The spec of every volume claim Cellar makes, data and backups alike. */
public final class Claims {
  private Claims() {}

  /** Server defaults (volumeMode) are written out, so the applied spec reads back equal. */
  public static PersistentVolumeClaimSpec spec(Database db, Quantity size) {
    return new PersistentVolumeClaimSpecBuilder()
        .withAccessModes("ReadWriteOnce")
        .withStorageClassName(db.getSpec().getStorageClassName())
        .withVolumeMode("Filesystem")
        .withNewResources()
        .addToRequests("storage", size)
        .endResources()
        .build();
  }
}
