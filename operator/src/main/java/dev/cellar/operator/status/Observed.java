package dev.cellar.operator.status;

import dev.cellar.operator.engine.VersionDecision;
import dev.cellar.operator.storage.StorageResize;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.Optional;

/**
 * What the operator sees of a Database's children after the workflow ran: the input of {@link
 * StatusFactory}.
 *
 * @param storage what the storage resize is doing
 * @param error a reconcile error to report, if the workflow failed
 */
public record Observed(
    Optional<StatefulSet> statefulSet,
    Optional<Pod> primaryPod,
    Optional<CronJob> backupCronJob,
    Optional<Job> lastBackupJob,
    VersionDecision versionDecision,
    StorageResize.Outcome storage,
    Optional<String> error) {}
