package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Keys;
import dev.cellar.operator.Topology;
import dev.cellar.operator.storage.Claims;
import dev.cellar.operator.storage.StoragePlan;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.Updater;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/**
 * The volume the dumps land on. Not a Deleter: turning backups off keeps it, and with it the dumps;
 * it goes with the Database only under deletionPolicy Delete (owner reference).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class BackupPvcDependent extends DatabaseChild<PersistentVolumeClaim>
    implements Creator<PersistentVolumeClaim, Database>, Updater<PersistentVolumeClaim, Database> {

  public BackupPvcDependent() {
    super(PersistentVolumeClaim.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.backupClaim();
  }

  /** The size follows the storage plan: see {@link StoragePlan#backupClaimSize()}. */
  @Override
  protected PersistentVolumeClaim desired(Database db, Context<Database> context) {
    return desired(db, StoragePlan.of(context).backupClaimSize());
  }

  PersistentVolumeClaim desired(Database db, Quantity size) {
    return new PersistentVolumeClaimBuilder()
        .withMetadata(dataMetadata(db, Keys.Component.BACKUP))
        .withSpec(Claims.spec(db, size))
        .build();
  }
}
