package dev.cellar.operator.status;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.operator.Topology;
import dev.cellar.operator.storage.StorageResize;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import java.time.Instant;
import java.util.Comparator;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observes the children in the informer caches, computes the status and writes it only when it
 * changed; the Events follow from the transition.
 */
public final class StatusWriter {
  private static final Logger log = LoggerFactory.getLogger(StatusWriter.class);

  private StatusWriter() {}

  public static void write(
      Database db,
      Context<Database> context,
      StorageResize.Outcome storage,
      Optional<String> error) {
    DatabaseStatus status =
        StatusFactory.compute(db, observe(db, context, storage, error), Instant.now());
    if (status.equals(db.getStatus())) {
      return;
    }
    new EventRecorder(context.getClient())
        .emit(db, EventRecorder.notes(db, db.getStatus(), status));
    Database patch = new Database();
    patch.getMetadata().setName(db.getMetadata().getName());
    patch.getMetadata().setNamespace(db.getMetadata().getNamespace());
    patch.setStatus(status);
    try {
      PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(db, patch, context);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
      // Deleted meanwhile (e.g. with its namespace): there is no status left to write.
      log.debug("{} is gone; status not written", db.getMetadata().getName());
    }
  }

  private static Observed observe(
      Database db,
      Context<Database> context,
      StorageResize.Outcome storage,
      Optional<String> error) {
    Topology topology = Topology.of(db);
    Optional<StatefulSet> sts = context.getSecondaryResource(StatefulSet.class);
    return new Observed(
        sts,
        context.getSecondaryResources(Pod.class).stream()
            .filter(p -> p.getMetadata().getName().equals(topology.primaryPod()))
            .findFirst(),
        context.getSecondaryResource(CronJob.class),
        context.getSecondaryResources(Job.class).stream()
            .filter(j -> j.getMetadata().getCreationTimestamp() != null)
            .max(Comparator.comparing(j -> j.getMetadata().getCreationTimestamp())),
        topology.versionDecision(sts),
        storage,
        error);
  }
}
