package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.storage.Claims;
import dev.cellar.operator.storage.StoragePlan;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.Updater;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.List;
import java.util.Objects;

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

  /**
   * This informer sees every claim of the Databases, the data claims too. An update that changes
   * nothing Cellar reads reconciles nothing: the volume binder writes each new claim three times (a
   * provisioner annotation; the volume's name with two more annotations; the status), and only the
   * status (Bound, the capacity) says something Cellar uses. At N = 500 those two writes were four
   * of the 13.5 events that reconciled each Database while it converged (docs/performance.md,
   * Updates Cellar does not read reconcile nothing).
   */
  @Override
  protected void configureInformer(
      InformerEventSourceConfiguration.Builder<PersistentVolumeClaim> config,
      EventSourceContext<Database> context) {
    config.withOnUpdateFilter(BackupPvcDependent::changesWhatCellarReads);
  }

  /** The annotations the volume binder and the provisioners write, which Cellar does not read. */
  private static final List<String> BINDER_ANNOTATIONS =
      List.of("pv.kubernetes.io/", "volume.kubernetes.io/", "volume.beta.kubernetes.io/");

  private static List<Object> metadataRead(ObjectMeta meta) {
    return DatabaseChild.metadataRead(
        meta, key -> BINDER_ANNOTATIONS.stream().noneMatch(key::startsWith));
  }

  /** Whether {@code now} differs from {@code before} in anything but the binder's writes. */
  static boolean changesWhatCellarReads(PersistentVolumeClaim now, PersistentVolumeClaim before) {
    return !Objects.equals(now.getStatus(), before.getStatus())
        || !Objects.equals(boundless(now.getSpec()), boundless(before.getSpec()))
        || !Objects.equals(metadataRead(now.getMetadata()), metadataRead(before.getMetadata()));
  }

  private static PersistentVolumeClaimSpec boundless(PersistentVolumeClaimSpec spec) {
    return spec == null
        ? null
        : new PersistentVolumeClaimSpecBuilder(spec).withVolumeName(null).build();
  }

  PersistentVolumeClaim desired(Database db, Quantity size) {
    return new PersistentVolumeClaimBuilder()
        .withMetadata(dataMetadata(db, Keys.Component.BACKUP))
        .withSpec(Claims.spec(db, size))
        .build();
  }
}
