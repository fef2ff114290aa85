package dev.cellar.operator.storage;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.operator.dependent.BackupPvcDependent;
import dev.cellar.operator.dependent.Quantities;
import dev.cellar.operator.dependent.StatefulSetDependent;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Grows the data volumes when spec.storage grows. volumeClaimTemplates are immutable, so each
 * {@code data-<name>-<i>} PVC is patched, then the StatefulSet is deleted with orphan propagation
 * and the workflow recreates it with the new template; the pods keep running. A storage class that
 * does not allow expansion gets nothing touched, and the user is told what to do.
 */
public final class StorageResize {
  private static final Logger log = LoggerFactory.getLogger(StorageResize.class);

  public static final String RESIZING = "ResizingStorage";
  public static final String UNSUPPORTED = "ResizeUnsupported";

  /** The outcome: nothing to do, a resize under way, or one that cannot be done. */
  public record Outcome(Optional<String> reason, String message, String pendingAction) {
    public static final Outcome NONE = new Outcome(Optional.empty(), "", null);

    public boolean resizing() {
      return reason.filter(RESIZING::equals).isPresent();
    }

    public boolean unsupported() {
      return reason.filter(UNSUPPORTED::equals).isPresent();
    }
  }

  private StorageResize() {}

  public static Outcome reconcile(Database db, Context<Database> context) {
    List<PersistentVolumeClaim> claims = claims(db, context);
    Outcome data = data(db, context, claims);
    return data.reason().isPresent() ? data : backups(db, context, claims);
  }

  private static Outcome data(
      Database db, Context<Database> context, List<PersistentVolumeClaim> claims) {
    Quantity wanted = Quantities.size(db.getSpec().getStorage());
    List<PersistentVolumeClaim> data =
        claims.stream()
            .filter(
                c -> c.getMetadata().getName().startsWith(StatefulSetDependent.DATA_VOLUME + "-"))
            .toList();
    Optional<StatefulSet> sts = context.getSecondaryResource(StatefulSet.class);
    Optional<Quantity> template =
        sts.flatMap(s -> s.getSpec().getVolumeClaimTemplates().stream().findFirst())
            .flatMap(VolumeExpansion::requested);
    if (sts.isPresent() && VolumeExpansion.smaller(template, wanted)) {
      Optional<StorageClass> storageClass =
          VolumeExpansion.classOf(
              context.getClient(), data.stream().findFirst(), db.getSpec().getStorageClassName());
      if (!VolumeExpansion.allowsExpansion(storageClass)) {
        return unsupported("data volumes", storageClass, template, wanted, db);
      }
      for (PersistentVolumeClaim claim : data) {
        if (VolumeExpansion.smaller(VolumeExpansion.requested(claim), wanted)) {
          log.info("growing {} to {}", claim.getMetadata().getName(), wanted);
          context
              .getClient()
              .persistentVolumeClaims()
              .inNamespace(claim.getMetadata().getNamespace())
              .withName(claim.getMetadata().getName())
              .patch(
                  PatchContext.of(PatchType.JSON_MERGE),
                  "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"" + wanted + "\"}}}}");
        }
      }
      log.info(
          "recreating StatefulSet {} with {} volumes; its pods keep running",
          sts.get().getMetadata().getName(),
          wanted);
      context
          .getClient()
          .apps()
          .statefulSets()
          .inNamespace(db.getMetadata().getNamespace())
          .withName(StatefulSetDependent.name(db))
          .withPropagationPolicy(DeletionPropagation.ORPHAN)
          .delete();
      return new Outcome(Optional.of(RESIZING), "growing the data volumes to " + wanted, null);
    }
    // A claim without a capacity is still being provisioned: that is not a resize.
    List<String> pending =
        data.stream()
            .filter(c -> !VolumeExpansion.smaller(VolumeExpansion.requested(c), wanted))
            .filter(c -> VolumeExpansion.capacity(c).isPresent())
            .filter(c -> VolumeExpansion.smaller(VolumeExpansion.capacity(c), wanted))
            .map(c -> c.getMetadata().getName())
            .toList();
    if (!pending.isEmpty()) {
      return new Outcome(
          Optional.of(RESIZING),
          "waiting for " + String.join(", ", pending) + " to reach " + wanted,
          null);
    }
    return Outcome.NONE;
  }

  private static Outcome backups(
      Database db, Context<Database> context, List<PersistentVolumeClaim> claims) {
    Quantity wanted = Quantities.size(db.getSpec().getBackup().getStorage());
    Optional<PersistentVolumeClaim> backup =
        claims.stream()
            .filter(c -> c.getMetadata().getName().equals(BackupPvcDependent.name(db)))
            .findFirst();
    if (backup.isEmpty()
        || VolumeExpansion.capacity(backup.get()).isEmpty()
        || !VolumeExpansion.smaller(VolumeExpansion.capacity(backup.get()), wanted)) {
      return Outcome.NONE;
    }
    if (VolumeExpansion.smaller(VolumeExpansion.requested(backup.get()), wanted)) {
      // BackupPvcDependent keeps the old size on such a class; see BackupPvcDependent.
      Optional<StorageClass> storageClass =
          VolumeExpansion.classOf(context.getClient(), backup, db.getSpec().getStorageClassName());
      if (!VolumeExpansion.allowsExpansion(storageClass)) {
        return unsupported(
            "backup volume", storageClass, VolumeExpansion.requested(backup.get()), wanted, db);
      }
    }
    return new Outcome(Optional.of(RESIZING), "growing the backup volume to " + wanted, null);
  }

  private static Outcome unsupported(
      String what,
      Optional<StorageClass> storageClass,
      Optional<Quantity> current,
      Quantity wanted,
      Database db) {
    String className = storageClass.map(c -> c.getMetadata().getName()).orElse("(none)");
    String now = current.map(Quantity::toString).orElse("their current size");
    String message =
        "storage class "
            + className
            + " does not allow volume expansion: the "
            + what
            + " stay at "
            + now
            + " and nothing was changed";
    String action =
        "To get "
            + wanted
            + ": set allowVolumeExpansion: true on storage class "
            + className
            + " (Cellar then grows the volumes), or create a new Database with the larger size and restore"
            + " the latest dump from PVC "
            + BackupPvcDependent.name(db)
            + " into it.";
    return new Outcome(Optional.of(UNSUPPORTED), message, action);
  }

  /**
   * The Database's PVCs, from the informer cache, looked up by name: every data claim an ordinal
   * can have and the backups claim. Filtering the cache by label cost every reconcile a pass over
   * all the cluster's claims.
   */
  @SuppressWarnings("unchecked")
  private static List<PersistentVolumeClaim> claims(Database db, Context<Database> context) {
    var source =
        (InformerEventSource<PersistentVolumeClaim, Database>)
            context.eventSourceRetriever().getEventSourceFor(PersistentVolumeClaim.class);
    String namespace = db.getMetadata().getNamespace();
    return Stream.concat(
            IntStream.range(0, DatabaseSpec.MAX_REPLICAS)
                .mapToObj(i -> StatefulSetDependent.dataClaimName(db, i)),
            Stream.of(BackupPvcDependent.name(db)))
        .map(name -> source.get(new ResourceID(name, namespace)))
        .flatMap(Optional::stream)
        .toList();
  }
}
