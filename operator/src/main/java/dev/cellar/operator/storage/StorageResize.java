package dev.cellar.operator.storage;

import static dev.cellar.operator.storage.StoragePlan.allowsExpansion;
import static dev.cellar.operator.storage.StoragePlan.capacity;
import static dev.cellar.operator.storage.StoragePlan.requested;
import static dev.cellar.operator.storage.StoragePlan.smaller;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.operator.guard.WriteBudget;
import dev.cellar.operator.runtime.PatchByName;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Grows the data volumes when spec.storage grows. volumeClaimTemplates are immutable, so each
 * {@code data-<name>-<i>} PVC is patched, then the StatefulSet is deleted with orphan propagation
 * and the workflow recreates it with the new template; the pods keep running. A storage class that
 * does not allow expansion gets nothing touched, and the user is told what to do. The backup claim
 * is grown by its dependent, which asks {@link StoragePlan#backupClaimSize()}.
 */
public final class StorageResize {
  private static final Logger log = LoggerFactory.getLogger(StorageResize.class);

  /**
   * Data PVCs do not map to their Database (they carry no owner), so a resize under way is polled.
   */
  public static final Duration POLL = Duration.ofSeconds(5);

  /** The outcome: nothing to do, a resize under way, or one that cannot be done. */
  public record Outcome(Optional<Reason> reason, String message, String pendingAction) {
    public static final Outcome NONE = new Outcome(Optional.empty(), "", null);

    public boolean resizing() {
      return reason.filter(Reason.RESIZING_STORAGE::equals).isPresent();
    }

    /** When to look again: a resize under way is polled ({@link #POLL}). */
    public Optional<Duration> recheck() {
      return resizing() ? Optional.of(POLL) : Optional.empty();
    }

    public boolean unsupported() {
      return reason.filter(Reason.RESIZE_UNSUPPORTED::equals).isPresent();
    }
  }

  private StorageResize() {}

  /**
   * Grows what the plan says must grow; the outcome goes into the status.
   *
   * @param pods the Database's pods as observed
   */
  public static Outcome apply(StoragePlan plan, List<Pod> pods, KubernetesClient client) {
    Outcome data = data(plan, pods, client);
    return data.reason().isPresent() ? data : backups(plan);
  }

  private static Outcome data(StoragePlan plan, List<Pod> pods, KubernetesClient client) {
    Quantity wanted = plan.wantedData();
    Optional<Quantity> template = StoragePlan.templateSize(plan.statefulSet());
    if (plan.statefulSet().isPresent() && smaller(template, wanted)) {
      if (!allowsExpansion(plan.dataClass())) {
        return unsupported("data volumes", plan.dataClass(), template, wanted, plan);
      }
      for (PersistentVolumeClaim claim : plan.dataClaims()) {
        if (smaller(requested(claim), wanted)) {
          log.info("growing {} to {}", claim.getMetadata().getName(), wanted);
          PatchByName.send(
              client,
              claim,
              PatchType.JSON_MERGE,
              "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"" + wanted + "\"}}}}");
        }
      }
      Outcome growing = resizing("growing the data volumes to " + wanted);
      // A reconcile right after the one that deleted the StatefulSet can still see it in the
      // informer's cache: only the StatefulSet observed is deleted, and only once. Deleting its
      // successor as well once cost a pod (DayTwoIT, under load).
      var statefulSets =
          client
              .apps()
              .statefulSets()
              .inNamespace(plan.topology().namespace())
              .withName(plan.topology().statefulSet());
      StatefulSet live = statefulSets.get();
      if (live == null
          || live.getMetadata().getDeletionTimestamp() != null
          || !live.getMetadata().getUid().equals(plan.statefulSet().get().getMetadata().getUid())) {
        return growing;
      }
      WriteBudget.spend(plan.topology().db(), "StatefulSet " + plan.topology().statefulSet());
      log.info(
          "recreating StatefulSet {} with {} volumes; its pods keep running",
          plan.topology().statefulSet(),
          wanted);
      statefulSets.withPropagationPolicy(DeletionPropagation.ORPHAN).delete();
      release(live.getMetadata().getUid(), pods, plan.dataClaims(), client);
      return growing;
    }
    // A claim without a capacity is still being provisioned: that is not a resize.
    List<String> pending =
        plan.dataClaims().stream()
            .filter(c -> !smaller(requested(c), wanted))
            .filter(c -> capacity(c).isPresent())
            .filter(c -> smaller(capacity(c), wanted))
            .map(c -> c.getMetadata().getName())
            .toList();
    if (!pending.isEmpty()) {
      return resizing("waiting for " + String.join(", ", pending) + " to reach " + wanted);
    }
    return Outcome.NONE;
  }

  /**
   * Takes the deleted StatefulSet's owner reference off its pods and claims at once. The garbage
   * collector does the same for an orphan deletion, but only for the dependents its graph has
   * recorded: a pod made a moment before, which a busy collector has not read yet, keeps the
   * reference, and once read it names an owner that is gone, so the collector deletes the pod (and,
   * under deletionPolicy Delete, the claim holding the data). A StatefulSet being deleted adopts
   * nothing back. A reference the collector took off already makes this patch change nothing.
   */
  static void release(
      String statefulSetUid,
      List<Pod> pods,
      List<PersistentVolumeClaim> claims,
      KubernetesClient client) {
    for (HasMetadata dependent : ownedBy(statefulSetUid, pods, claims)) {
      log.info(
          "releasing {} {} from the deleted StatefulSet",
          dependent.getKind(),
          dependent.getMetadata().getName());
      try {
        PatchByName.send(
            client, dependent, PatchType.STRATEGIC_MERGE, releasePatch(dependent, statefulSetUid));
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404 && !otherObject(e)) {
          throw e;
        }
      }
    }
  }

  /**
   * Whether the patch met another object of that name (the uid it names differs): the API server
   * refuses it as a change of the immutable metadata.uid. Like a 404, nothing to release.
   */
  static boolean otherObject(KubernetesClientException e) {
    return e.getCode() == 422
        && e.getStatus() != null
        && e.getStatus().getDetails() != null
        && e.getStatus().getDetails().getCauses().stream()
            .anyMatch(c -> "metadata.uid".equals(c.getField()));
  }

  /** The pods and claims with an owner reference to {@code uid}. */
  static List<HasMetadata> ownedBy(String uid, List<Pod> pods, List<PersistentVolumeClaim> claims) {
    return Stream.concat(pods.stream(), claims.stream())
        .filter(
            o ->
                Optional.ofNullable(o.getMetadata().getOwnerReferences()).orElse(List.of()).stream()
                    .anyMatch(r -> uid.equals(r.getUid())))
        .map(o -> (HasMetadata) o)
        .toList();
  }

  /**
   * A strategic merge patch that deletes the owner reference by its uid, on the object of this uid
   * only (as the garbage collector's own).
   */
  static String releasePatch(HasMetadata dependent, String ownerUid) {
    return "{\"metadata\":{\"uid\":\""
        + dependent.getMetadata().getUid()
        + "\",\"ownerReferences\":[{\"$patch\":\"delete\",\"uid\":\""
        + ownerUid
        + "\"}]}}";
  }

  private static Outcome backups(StoragePlan plan) {
    Quantity wanted = plan.wantedBackup();
    Optional<PersistentVolumeClaim> backup = plan.backupClaim();
    if (backup.isEmpty()
        || capacity(backup.get()).isEmpty()
        || !smaller(capacity(backup.get()), wanted)) {
      return Outcome.NONE;
    }
    if (smaller(requested(backup.get()), wanted) && !allowsExpansion(plan.backupClass())) {
      return unsupported(
          "backup volume", plan.backupClass(), requested(backup.get()), wanted, plan);
    }
    return resizing("growing the backup volume to " + wanted);
  }

  private static Outcome resizing(String message) {
    return new Outcome(Optional.of(Reason.RESIZING_STORAGE), message, null);
  }

  private static Outcome unsupported(
      String what,
      Optional<StorageClass> storageClass,
      Optional<Quantity> current,
      Quantity wanted,
      StoragePlan plan) {
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
            + plan.topology().backupClaim()
            + " into it.";
    return new Outcome(Optional.of(Reason.RESIZE_UNSUPPORTED), message, action);
  }
}
