package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Labels;
import dev.cellar.operator.storage.VolumeExpansion;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.Updater;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Optional;

/**
 * The volume the dumps land on. Not a Deleter: turning backups off keeps it, and with it the dumps;
 * it goes with the Database only under deletionPolicy Delete (owner reference).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_SELECTOR))
public class BackupPvcDependent extends DatabaseChild<PersistentVolumeClaim>
    implements Creator<PersistentVolumeClaim, Database>, Updater<PersistentVolumeClaim, Database> {

  public BackupPvcDependent() {
    super(PersistentVolumeClaim.class);
  }

  public static String name(Database db) {
    return db.getMetadata().getName() + "-backups";
  }

  @Override
  protected String childName(Database db) {
    return name(db);
  }

  @Override
  protected PersistentVolumeClaim desired(Database db, Context<Database> context) {
    Quantity wanted = Quantities.size(db.getSpec().getBackup().getStorage());
    Optional<PersistentVolumeClaim> existing = getSecondaryResource(db, context);
    Optional<Quantity> current = existing.flatMap(VolumeExpansion::requested);
    // A class without volume expansion would refuse the larger request: keep the size, and let
    // the status say what to do (StorageResize).
    if (existing.isPresent()
        && VolumeExpansion.smaller(current, wanted)
        && !VolumeExpansion.allowsExpansion(
            VolumeExpansion.classOf(
                context.getClient(), existing, db.getSpec().getStorageClassName()))) {
      wanted = current.get();
    }
    return desired(db, wanted);
  }

  PersistentVolumeClaim desired(Database db, Quantity size) {
    return new PersistentVolumeClaimBuilder()
        .withMetadata(dataMetadata(db, Labels.Component.BACKUP))
        .withSpec(Claims.spec(db, size))
        .build();
  }
}
