package dev.cellar.operator.status;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.operator.backup.BackupResults;
import dev.cellar.operator.credentials.CredentialsCheck;
import dev.cellar.operator.credentials.CredentialsSecret;
import dev.cellar.operator.credentials.PasswordRotation;
import dev.cellar.operator.events.EventRecorder;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.facts.PodTrouble;
import dev.cellar.operator.replication.ReplicationLag;
import dev.cellar.operator.runtime.ErrorMessages;
import dev.cellar.operator.storage.StoragePlan;
import dev.cellar.operator.storage.StorageResize;
import dev.cellar.operator.tls.TlsState;
import dev.cellar.operator.topology.Children;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.controller.ControllerEventSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observes the children in the informer caches, computes the status and writes it only when it
 * changed; the Events follow from the transition.
 */
public final class StatusWriter {
  private static final Logger log = LoggerFactory.getLogger(StatusWriter.class);

  static final Duration CREDENTIALS_RECHECK = Duration.ofSeconds(30);

  private StatusWriter() {}

  /**
   * Writes the status if it changed.
   *
   * @return when to look again: a pod trouble that has not lasted its grace yet is reported only
   *     once it has, and a user's Secret is not watched; nothing else would trigger a reconcile
   */
  public static Optional<Duration> write(
      Database db,
      Context<Database> context,
      StorageResize.Outcome storage,
      Optional<Failure> error) {
    return write(db, context, storage, error, Optional.empty());
  }

  /**
   * As {@link #write(Database, Context, StorageResize.Outcome, Optional)}, with the failover's
   * note.
   */
  public static Optional<Duration> write(
      Database db,
      Context<Database> context,
      StorageResize.Outcome storage,
      Optional<Failure> error,
      Optional<Failure> failover) {
    return write(db, context, storage, error, failover, PasswordRotation.Outcome.NONE);
  }

  /** As above, with what the password rotation step found. */
  public static Optional<Duration> write(
      Database db,
      Context<Database> context,
      StorageResize.Outcome storage,
      Optional<Failure> error,
      Optional<Failure> failover,
      PasswordRotation.Outcome rotation) {
    Instant now = Instant.now();
    Observed observed = observe(db, context, storage, error, failover, rotation);
    DatabaseStatus status = StatusFactory.compute(db, observed, now);
    Optional<Duration> recheck =
        PodTrouble.of(observed.pods(), observed.provisioning()).flatMap(t -> t.countsIn(now));
    if (observed.credentials().isPresent()) {
      // A Secret the user brought is not watched (only Cellar's are cached): look again for the
      // missing keys, a read every half minute while they are missing.
      recheck = Optional.of(CREDENTIALS_RECHECK);
    }
    // The server certificate's renewal time, or when it comes near its expiry: no event marks it.
    Optional<Duration> tls = observed.tls().recheckAfter(now);
    if (tls.isPresent() && recheck.map(r -> tls.get().compareTo(r) < 0).orElse(true)) {
      recheck = tls;
    }
    if (status.equals(db.getStatus())) {
      return recheck;
    }
    new EventRecorder(context.getClient()).emit(db, StatusEvents.notes(db, db.getStatus(), status));
    Database patch = new Database();
    patch.getMetadata().setName(db.getMetadata().getName());
    patch.getMetadata().setNamespace(db.getMetadata().getNamespace());
    patch.setStatus(status);
    try {
      patchStatus(db, patch, context);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
      // Deleted meanwhile (e.g. with its namespace): there is no status left to write.
      log.debug("{} is gone; status not written", db.getMetadata().getName());
    }
    return recheck;
  }

  /**
   * Writes {@code patch}'s status by server-side apply and leaves the written Database where the
   * next reconcile reads it.
   */
  private static void patchStatus(Database db, Database patch, Context<Database> context) {
    Database written =
        context
            .getClient()
            .resource(patch)
            .subresource("status")
            .patch(
                new PatchContext.Builder()
                    .withForce(true)
                    .withFieldManager(context.getControllerConfiguration().fieldManager())
                    .withPatchType(PatchType.SERVER_SIDE_APPLY)
                    .build());
    // The next reconcile must read this status, not the one before it (or it writes again and
    // repeats the Events): JOSDK's read-after-write cache holds the written Database until the
    // informer delivers it. JOSDK's own helper also puts it there when the informer delivered it
    // first, and then it stays until the Database next changes: a whole Database, for about half
    // of the Databases that converged (docs/performance.md, Write responses not kept).
    ControllerEventSource<Database> source =
        context.eventSourceRetriever().getControllerEventSource();
    ResourceID id = ResourceID.fromResource(written);
    if (informerBehind(source.get(id), written)) {
      source.handleRecentResourceUpdate(id, written, db);
    }
  }

  /**
   * Whether the cache has not yet seen {@code written}: it holds nothing for it, or an older
   * version. (Without a resourceVersion precondition the status patch never conflicts; JOSDK's
   * helper retried a conflict with the same status, which is the same write.)
   */
  static boolean informerBehind(Optional<Database> cached, Database written) {
    return cached
        .map(c -> PrimaryUpdateAndCacheUtils.compareResourceVersions(c, written) < 0)
        .orElse(true);
  }

  private static Observed observe(
      Database db,
      Context<Database> context,
      StorageResize.Outcome storage,
      Optional<Failure> error,
      Optional<Failure> failover,
      PasswordRotation.Outcome rotation) {
    Topology topology = Topology.of(db);
    Optional<StatefulSet> sts = Children.statefulSet(db, context);
    List<Pod> pods = List.copyOf(context.getSecondaryResources(Pod.class));
    List<Job> jobs = BackupResults.observedJobs(context);
    return new Observed(
        sts,
        pods,
        Children.backupCronJob(db, context),
        // The newest finished backup Job: a run in progress changes nothing in the status, so a
        // backup costs one status write (when it ends), not one when it starts and one when it
        // ends.
        jobs.stream()
            .filter(j -> j.getMetadata().getCreationTimestamp() != null)
            .filter(StatusFactory::finished)
            .max(Comparator.comparing(j -> j.getMetadata().getCreationTimestamp())),
        jobs,
        topology.versionDecision(sts),
        storage,
        error,
        credentials(topology, context),
        podCreation(topology, context, sts, pods),
        volumes(topology, context),
        provisioning(context),
        failover,
        rotation.applied(),
        rotation.failure(),
        TlsState.observe(db, context, Instant.now()),
        ReplicationLag.observed(db, context));
  }

  /**
   * Why a claim stays Pending: a missing storage class, a provisioner that fails. Only its Warning
   * Events say so ({@link WarningEvents}).
   */
  private static Optional<String> volumes(Topology topology, Context<Database> context) {
    return plan(context).stream()
        .flatMap(p -> Stream.concat(p.dataClaims().stream(), p.backupClaim().stream()))
        .filter(c -> c.getStatus() == null || "Pending".equals(c.getStatus().getPhase()))
        .flatMap(
            claim ->
                WarningEvents.aboutClaim(context, topology, claim.getMetadata().getName())
                    .map(
                        e ->
                            "PVC "
                                + claim.getMetadata().getName()
                                + " is Pending: "
                                + e.getReason()
                                + ": "
                                + ErrorMessages.oneLine(new IllegalStateException(e.getMessage()))
                                + ". Check spec.storageClassName and the cluster's provisioner")
                    .stream())
        .findFirst();
  }

  /** The data claims that name a storage class, with that class (see PodTrouble). */
  private static Map<String, String> provisioning(Context<Database> context) {
    return plan(context).stream()
        .flatMap(p -> p.dataClaims().stream())
        .filter(c -> c.getSpec() != null && c.getSpec().getStorageClassName() != null)
        .filter(c -> !c.getSpec().getStorageClassName().isEmpty())
        .collect(
            Collectors.toMap(
                c -> c.getMetadata().getName(), c -> c.getSpec().getStorageClassName()));
  }

  /** The reconcile's storage plan: none if it failed before the plan was read. */
  private static Optional<StoragePlan> plan(Context<Database> context) {
    return context
        .managedWorkflowAndDependentResourceContext()
        .get(StoragePlan.CONTEXT_KEY, StoragePlan.class);
  }

  /** What is wrong with the credentials Secret the pods read, if anything. */
  private static Optional<String> credentials(Topology topology, Context<Database> context) {
    return CredentialsSecret.read(topology, context)
        .flatMap(s -> CredentialsCheck.problem(topology, s));
  }

  /**
   * Why the StatefulSet cannot create its pods (a quota, an admission policy): the controller says
   * so only in a FailedCreate Event ({@link WarningEvents}), looked for while pods are missing and
   * every existing one is ready (a rollout in progress is not a refusal).
   */
  private static Optional<String> podCreation(
      Topology topology, Context<Database> context, Optional<StatefulSet> sts, List<Pod> pods) {
    if (sts.isEmpty()
        || pods.size() >= Optional.ofNullable(sts.get().getSpec().getReplicas()).orElse(0)
        || !pods.stream().allMatch(PodFacts::ready)) {
      return Optional.empty();
    }
    // The controller retries with back-off and renews its Event each time: an old one is a
    // trouble that has passed.
    return WarningEvents.aboutStatefulSet(context, topology, topology.statefulSet())
        .filter(e -> "FailedCreate".equals(e.getReason()))
        .map(
            e ->
                "StatefulSet "
                    + topology.statefulSet()
                    + " cannot create its pods: "
                    + ErrorMessages.oneLine(new IllegalStateException(e.getMessage())));
  }
}
