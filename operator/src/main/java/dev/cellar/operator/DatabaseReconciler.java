package dev.cellar.operator;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.backup.BackupResults;
import dev.cellar.operator.backup.ImperativeAnnotations;
import dev.cellar.operator.backup.RestoreSource;
import dev.cellar.operator.credentials.PasswordRotation;
import dev.cellar.operator.deletion.DataRetention;
import dev.cellar.operator.dependent.BackupCronJobDependent;
import dev.cellar.operator.dependent.BackupPvcDependent;
import dev.cellar.operator.dependent.CertificateDependent;
import dev.cellar.operator.dependent.ConfigMapDependent;
import dev.cellar.operator.dependent.CredentialsSecretDependent;
import dev.cellar.operator.dependent.HeadlessServiceDependent;
import dev.cellar.operator.dependent.MonitoringSecretDependent;
import dev.cellar.operator.dependent.NetworkPolicyDependent;
import dev.cellar.operator.dependent.PodDisruptionBudgetDependent;
import dev.cellar.operator.dependent.PodMonitorDependent;
import dev.cellar.operator.dependent.Preconditions;
import dev.cellar.operator.dependent.PrimaryServiceDependent;
import dev.cellar.operator.dependent.ReadOnlyServiceDependent;
import dev.cellar.operator.dependent.ScriptsConfigMapDependent;
import dev.cellar.operator.dependent.StatefulSetDependent;
import dev.cellar.operator.dependent.TlsCaSecretDependent;
import dev.cellar.operator.dependent.TlsClientSecretDependent;
import dev.cellar.operator.dependent.TlsServerSecretDependent;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.failover.Failover;
import dev.cellar.operator.informers.Informers;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.operator.primary.PodRoles;
import dev.cellar.operator.replication.ReplicationLag;
import dev.cellar.operator.rollout.RollingUpdate;
import dev.cellar.operator.rollout.StuckPods;
import dev.cellar.operator.runtime.ErrorMessages;
import dev.cellar.operator.status.StatusWriter;
import dev.cellar.operator.status.WarningEvents;
import dev.cellar.operator.storage.StoragePlan;
import dev.cellar.operator.storage.StorageResize;
import dev.cellar.operator.tls.TlsCredentials;
import dev.cellar.operator.tls.TlsReload;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a Database: the workflow applies every child, then the status is computed from what
 * the children report and written only when it changed.
 */
@Workflow(
    explicitInvocation = true,
    dependents = {
      @Dependent(name = "credentials", type = CredentialsSecretDependent.class),
      @Dependent(
          name = "ca",
          type = TlsCaSecretDependent.class,
          useEventSourceWithName = "credentials",
          reconcilePrecondition = Preconditions.IssuesCertificate.class),
      @Dependent(
          name = "tls",
          type = TlsServerSecretDependent.class,
          useEventSourceWithName = "credentials",
          dependsOn = {"ca"},
          reconcilePrecondition = Preconditions.IssuesCertificate.class),
      @Dependent(
          name = "client-tls",
          type = TlsClientSecretDependent.class,
          useEventSourceWithName = "credentials",
          dependsOn = {"ca"},
          reconcilePrecondition = Preconditions.IssuesClientCertificate.class),
      @Dependent(
          name = "monitoring",
          type = MonitoringSecretDependent.class,
          useEventSourceWithName = "credentials"),
      @Dependent(name = "config", type = ConfigMapDependent.class),
      @Dependent(name = "scripts", type = ScriptsConfigMapDependent.class),
      @Dependent(name = "headless", type = HeadlessServiceDependent.class),
      @Dependent(
          name = "primary",
          type = PrimaryServiceDependent.class,
          useEventSourceWithName = "headless"),
      @Dependent(
          name = "readonly",
          type = ReadOnlyServiceDependent.class,
          useEventSourceWithName = "headless",
          reconcilePrecondition = Preconditions.Replicated.class),
      @Dependent(
          name = "statefulset",
          type = StatefulSetDependent.class,
          dependsOn = {"credentials", "monitoring", "config", "scripts", "headless"},
          reconcilePrecondition = Preconditions.PodsMayStart.class),
      @Dependent(
          name = "pdb",
          type = PodDisruptionBudgetDependent.class,
          reconcilePrecondition = Preconditions.Replicated.class),
      @Dependent(
          name = "networkpolicy",
          type = NetworkPolicyDependent.class,
          reconcilePrecondition = Preconditions.NetworkPolicyEnabled.class),
      @Dependent(
          name = "podmonitor",
          type = PodMonitorDependent.class,
          activationCondition = PodMonitorDependent.PrometheusOperatorPresent.class,
          reconcilePrecondition = Preconditions.MonitoringEnabled.class),
      @Dependent(
          name = "certificate",
          type = CertificateDependent.class,
          activationCondition = CertificateDependent.CertManagerPresent.class,
          reconcilePrecondition = Preconditions.IssuedByCertManager.class),
      @Dependent(
          name = "backups-pvc",
          type = BackupPvcDependent.class,
          reconcilePrecondition = Preconditions.BackupsOnVolume.class),
      @Dependent(
          name = "backup-cronjob",
          type = BackupCronJobDependent.class,
          // Not on backups-pvc: with an object store there is none. A Job's pod waits for its
          // claim.
          dependsOn = {"credentials", "scripts"},
          reconcilePrecondition = Preconditions.BackupEnabled.class),
    })
// Updates that reconcile: a new generation (spec), a deletion, or a changed request annotation
// (cellar.dev/switchover-to, cellar.dev/backup-now: annotations do not bump the generation).
// Status-only updates, Cellar's own, do not (ImperativeAnnotations).
@ControllerConfiguration(
    generationAwareEventProcessing = false,
    informer = @Informer(onUpdateFilter = ImperativeAnnotations.class),
    maxReconciliationInterval =
        @MaxReconciliationInterval(interval = 5, timeUnit = TimeUnit.MINUTES))
// Errors are retried for as long as they last, at most once a minute: a cause the user removes
// (a quota, a missing key) is noticed within a minute, not at the next 5-minute resync.
@GradualRetry(maxAttempts = -1, initialInterval = 2000, intervalMultiplier = 2, maxInterval = 60000)
public class DatabaseReconciler implements Reconciler<Database> {
  private static final Logger log = LoggerFactory.getLogger(DatabaseReconciler.class);

  /** How the failover step talks to database servers: pods/exec, or a fake in tests. */
  private final Function<KubernetesClient, InstanceAgent> agents;

  public DatabaseReconciler() {
    this(InstanceAgent::exec);
  }

  /** A reconciler whose failover step asks {@code agents} (tests on kwok, where nothing runs). */
  public DatabaseReconciler(Function<KubernetesClient, InstanceAgent> agents) {
    this.agents = agents;
  }

  @Override
  public List<EventSource<?, Database>> prepareEventSources(EventSourceContext<Database> context) {
    InformerEventSource<Pod, Database> pods =
        byInstanceLabel(context, Pod.class, Keys.Component.DATABASE);
    List<EventSource<?, Database>> sources = new ArrayList<>();
    sources.add(pods);
    sources.add(byInstanceLabel(context, Job.class, Keys.Component.BACKUP));
    sources.add(
        ReplicationLag.eventSource(
            context, pods::getSecondaryResources, agents.apply(context.getClient())));
    sources.addAll(WarningEvents.eventSources(context));
    return sources;
  }

  /**
   * An informer on the Database's pods or backup Jobs, mapped to it by the instance label, one of
   * the operator's informers of children ({@link Informers#children}): the pods' role patches go
   * through it.
   */
  private static <R extends HasMetadata> InformerEventSource<R, Database> byInstanceLabel(
      EventSourceContext<Database> context, Class<R> type, Keys.Component component) {
    var config =
        InformerEventSourceConfiguration.from(type, Database.class)
            .withLabelSelector(
                Keys.MANAGED_SELECTOR + "," + Keys.COMPONENT + "=" + component.value())
            .withSecondaryToPrimaryMapper(
                r ->
                    Optional.ofNullable(r.getMetadata().getLabels())
                        .map(l -> l.get(Keys.INSTANCE))
                        .map(name -> Set.of(new ResourceID(name, r.getMetadata().getNamespace())))
                        .orElse(Set.of()));
    return Informers.bound().children(config, context, false);
  }

  /**
   * A reconcile: its phases in order, each in the package of its concern. The workflow runs as a
   * phase (explicit invocation) so that what the dependents decide from is observed first. A phase
   * that must look again before an event would come says when; the reconcile is rescheduled at the
   * soonest of those times.
   */
  @Override
  public UpdateControl<Database> reconcile(Database db, Context<Database> context) {
    // A stopping operator lets the running reconciles finish and starts nothing new
    // (CellarOperator.RECONCILE_GRACE).
    if (CellarOperator.stopping()) {
      return UpdateControl.noUpdate();
    }
    StoragePlan storage = observeVolumes(db, context);
    RestoreSource.Outcome restore = lookForTheRestoreSource(db, context, storage);
    applyChildren(context);
    InstanceAgent agent = agents.apply(context.getClient());
    Failover.Outcome failover = failOverFromALostPrimary(db, context, agent);
    labelRoles(db, context);
    rollOut(db, context);
    keepSecretOwnership(db, context);
    Optional<Duration> credentials = followTlsInCredentials(db, context);
    TlsReload.Outcome reload = reloadRenewedCertificate(db, context, agent);
    StorageResize.Outcome resize = growVolumes(storage, context);
    recordBackups(db, context);
    PasswordRotation.Outcome rotation = applyChangedPasswords(db, context, agent);
    Optional<Duration> status = writeStatus(db, context, resize, restore, failover, rotation);
    endBackupRequests(db, context);
    endBootstrapOnceAvailable(db, context);
    return rescheduleAtSoonest(
        List.of(
            status,
            resize.recheck(),
            failover.recheck(),
            rotation.recheck(),
            reload.recheck(),
            credentials,
            restore.recheck()));
  }

  /** What the volumes have and what the spec asks, read once for the dependents and the resize. */
  private static StoragePlan observeVolumes(Database db, Context<Database> context) {
    return StoragePlan.observe(db, context);
  }

  /**
   * A restore's source (bootstrap.fromBackup) looked for before any pod is made: one that is not
   * there holds the StatefulSet back (the workflow's precondition) and is the status's Degraded
   * reason.
   */
  private static RestoreSource.Outcome lookForTheRestoreSource(
      Database db, Context<Database> context, StoragePlan storage) {
    return RestoreSource.check(db, context, storage);
  }

  /** Every child to its desired state (the workflow of dependents). */
  private static void applyChildren(Context<Database> context) {
    context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
  }

  /**
   * The primary watched; once it has been unavailable for spec.failover.delaySeconds, the most
   * advanced ready replica promoted (status.currentPrimary written at once, and the status with it
   * when a pod was promoted).
   */
  private static Failover.Outcome failOverFromALostPrimary(
      Database db, Context<Database> context, InstanceAgent agent) {
    Failover.Outcome failover = Failover.run(db, context, agent);
    if (failover
        .note()
        .map(n -> n.reason() == Reason.FAILED_OVER || n.reason() == Reason.SWITCHED_OVER)
        .orElse(false)) {
      StatusWriter.write(
          db, context, StorageResize.Outcome.NONE, Optional.empty(), failover.note());
    }
    return failover;
  }

  /** Pods labelled with their role, which the Services select on and the pods start from. */
  private static void labelRoles(Database db, Context<Database> context) {
    PodRoles.label(db, context);
  }

  /**
   * Pods that cannot run and hold an outdated template replaced, so a fixed spec rolls out; then a
   * new template rolled out in Cellar's order: replicas, one switchover, the old primary.
   */
  private static void rollOut(Database db, Context<Database> context) {
    StuckPods.replace(db, context);
    RollingUpdate.run(db, context);
  }

  /** The credentials Secret's ownership follows deletionPolicy. */
  private static void keepSecretOwnership(Database db, Context<Database> context) {
    DataRetention.syncSecretOwnership(db, context);
  }

  /** The credentials Secret's ca.crt and uri follow spec.tls (only those two keys). */
  private static Optional<Duration> followTlsInCredentials(Database db, Context<Database> context) {
    return TlsCredentials.sync(db, context);
  }

  /**
   * A renewed server certificate reloaded by the running servers, once the kubelet has replaced
   * their files (no restart).
   */
  private static TlsReload.Outcome reloadRenewedCertificate(
      Database db, Context<Database> context, InstanceAgent agent) {
    return TlsReload.run(db, context, agent);
  }

  /** Data volumes grown when spec.storage grew (the StatefulSet recreated, its pods kept). */
  private static StorageResize.Outcome growVolumes(StoragePlan storage, Context<Database> context) {
    return StorageResize.apply(
        storage, List.copyOf(context.getSecondaryResources(Pod.class)), context.getClient());
  }

  /** Backup Jobs: results recorded when they end; an on-demand backup if one is asked for. */
  private static void recordBackups(Database db, Context<Database> context) {
    BackupResults.reconcile(db, context);
  }

  /** Passwords changed in the credentials Secret applied in the running servers. */
  private static PasswordRotation.Outcome applyChangedPasswords(
      Database db, Context<Database> context, InstanceAgent agent) {
    return PasswordRotation.run(db, context, agent);
  }

  /** The status from what the children report, written only when it changed. */
  private static Optional<Duration> writeStatus(
      Database db,
      Context<Database> context,
      StorageResize.Outcome resize,
      RestoreSource.Outcome restore,
      Failover.Outcome failover,
      PasswordRotation.Outcome rotation) {
    return StatusWriter.write(db, context, resize, restore.holdsBack(), failover.note(), rotation);
  }

  /**
   * Backup and verification requests whose Jobs ended removed, now that the status names their
   * results (BackupResults.endRequests).
   */
  private static void endBackupRequests(Database db, Context<Database> context) {
    BackupResults.endRequests(db, context);
  }

  /**
   * The status just written may be the first with the primary available (firstAvailableTime): the
   * primary loses its bootstrap annotation now, not with whichever event comes next (maybe none; an
   * idle Database gets no more events).
   */
  private static void endBootstrapOnceAvailable(Database db, Context<Database> context) {
    if (PodRoles.mayBootstrap(db)) {
      context
          .getPrimaryCache()
          .get(ResourceID.fromResource(db))
          .filter(written -> !PodRoles.mayBootstrap(written))
          .ifPresent(written -> PodRoles.label(written, context));
    }
  }

  /**
   * The one way the phases' times to look again combine: the soonest of them, or none (the next
   * event, or the maximum reconciliation interval).
   */
  private static UpdateControl<Database> rescheduleAtSoonest(List<Optional<Duration>> rechecks) {
    return rechecks.stream()
        .flatMap(Optional::stream)
        .min(Duration::compareTo)
        .map(after -> UpdateControl.<Database>noUpdate().rescheduleAfter(after))
        .orElseGet(UpdateControl::noUpdate);
  }

  @Override
  public ErrorStatusUpdateControl<Database> updateErrorStatus(
      Database db, Context<Database> context, Exception e) {
    if (ErrorMessages.namespaceTerminating(e)) {
      // The namespace is being deleted, the Database with it: recreating what the garbage
      // collector removes would only be refused again, once per child and retry.
      log.debug("{} goes with its namespace; not retried", db.getMetadata().getName());
      return ErrorStatusUpdateControl.<Database>noStatusUpdate().withNoRetry();
    }
    Failure failure = ErrorMessages.failure(e);
    log.warn(
        "reconcile of {}/{} failed: {}",
        db.getMetadata().getNamespace(),
        db.getMetadata().getName(),
        failure.message());
    try {
      StatusWriter.write(db, context, StorageResize.Outcome.NONE, Optional.of(failure));
    } catch (RuntimeException statusError) {
      log.warn("could not report the error in the status: {}", statusError.toString());
    }
    // Keep JOSDK's retry with backoff.
    return ErrorStatusUpdateControl.noStatusUpdate();
  }
}
