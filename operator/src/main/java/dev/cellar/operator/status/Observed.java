package dev.cellar.operator.status;

import dev.cellar.api.v1.CredentialsStatus;
import dev.cellar.operator.engine.VersionDecision;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.storage.StorageResize;
import dev.cellar.operator.tls.TlsState;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the operator sees of a Database's children after the workflow ran: the input of {@link
 * StatusFactory}.
 *
 * @param pods the Database's database pods
 * @param lastBackupJob the newest backup Job that has ended
 * @param backupJobs every backup Job, with the results recorded on those that ended
 * @param storage what the storage resize is doing
 * @param error a failure to report in Degraded: the reconcile's error, if it failed, or what holds
 *     a restore's pods back (backup.RestoreSource)
 * @param credentials what is wrong with the credentials Secret the pods read, if anything
 * @param podCreation why the StatefulSet cannot create its pods (its FailedCreate Event), if it
 *     cannot
 * @param volumes why a volume claim stays Pending (its Warning Event), if one does
 * @param provisioning the data claims that name a storage class, by name, with that class: its
 *     provisioner makes their volumes
 * @param failover what the failover step says about the primary, if anything (see Failover)
 * @param credentialsApplied the passwords the servers hold now, when that changed (see
 *     PasswordRotation); empty keeps the status's
 * @param credentialsFailure why the credentials Secret's passwords are not in the servers, if not
 * @param tls the server certificate: status.tls and what is wrong with it, if anything
 * @param replicationLag each replica's lag in whole seconds, by pod, as last polled (see
 *     ReplicationLag); a replica that could not say is absent
 */
public record Observed(
    Optional<StatefulSet> statefulSet,
    List<Pod> pods,
    Optional<CronJob> backupCronJob,
    Optional<Job> lastBackupJob,
    List<Job> backupJobs,
    VersionDecision versionDecision,
    StorageResize.Outcome storage,
    Optional<Failure> error,
    Optional<String> credentials,
    Optional<String> podCreation,
    Optional<String> volumes,
    Map<String, String> provisioning,
    Optional<Failure> failover,
    Optional<CredentialsStatus> credentialsApplied,
    Optional<Failure> credentialsFailure,
    TlsState tls,
    Map<String, Long> replicationLag) {

  /** The pod named {@code name}, if it exists. */
  public Optional<Pod> pod(String name) {
    return pods.stream().filter(p -> p.getMetadata().getName().equals(name)).findFirst();
  }
}
