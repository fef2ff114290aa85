package dev.cellar.operator.status;

import dev.cellar.operator.engine.VersionDecision;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.Optional;

/**
 * What the operator sees of a Database's children after the workflow ran: the input of {@link
 * StatusFactory}.
 *
 * @param error a reconcile error to report, if the workflow failed
 */
public record Observed(
    Optional<StatefulSet> statefulSet,
    Optional<Pod> primaryPod,
    Optional<CronJob> backupCronJob,
    Optional<Job> lastBackupJob,
    VersionDecision versionDecision,
    Optional<String> error) {}
