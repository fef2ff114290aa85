package dev.cellar.operator;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.operator.dependent.BackupCronJobDependent;
import dev.cellar.operator.dependent.BackupPvcDependent;
import dev.cellar.operator.dependent.Conditions;
import dev.cellar.operator.dependent.ConfigMapDependent;
import dev.cellar.operator.dependent.CredentialsSecretDependent;
import dev.cellar.operator.dependent.HeadlessServiceDependent;
import dev.cellar.operator.dependent.PodDisruptionBudgetDependent;
import dev.cellar.operator.dependent.PrimaryServiceDependent;
import dev.cellar.operator.dependent.ReadOnlyServiceDependent;
import dev.cellar.operator.dependent.SecretOwnership;
import dev.cellar.operator.dependent.StatefulSetDependent;
import dev.cellar.operator.status.EventRecorder;
import dev.cellar.operator.status.Observed;
import dev.cellar.operator.status.StatusFactory;
import dev.cellar.operator.storage.StorageResize;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a Database: the workflow applies every child, then the status is computed from what
 * the children report and written only when it changed.
 */
@Workflow(
    dependents = {
      @Dependent(name = "credentials", type = CredentialsSecretDependent.class),
      @Dependent(name = "config", type = ConfigMapDependent.class),
      @Dependent(name = "headless", type = HeadlessServiceDependent.class),
      @Dependent(
          name = "primary",
          type = PrimaryServiceDependent.class,
          useEventSourceWithName = "headless"),
      @Dependent(
          name = "readonly",
          type = ReadOnlyServiceDependent.class,
          useEventSourceWithName = "headless",
          reconcilePrecondition = Conditions.Replicated.class),
      @Dependent(
          name = "statefulset",
          type = StatefulSetDependent.class,
          dependsOn = {"credentials", "config", "headless"},
          reconcilePrecondition = Conditions.Runnable.class),
      @Dependent(
          name = "pdb",
          type = PodDisruptionBudgetDependent.class,
          reconcilePrecondition = Conditions.Replicated.class),
      @Dependent(
          name = "backups-pvc",
          type = BackupPvcDependent.class,
          reconcilePrecondition = Conditions.BackupEnabled.class),
      @Dependent(
          name = "backup-cronjob",
          type = BackupCronJobDependent.class,
          dependsOn = {"backups-pvc", "credentials"},
          reconcilePrecondition = Conditions.BackupEnabled.class),
    })
@ControllerConfiguration(
    maxReconciliationInterval =
        @MaxReconciliationInterval(interval = 5, timeUnit = TimeUnit.MINUTES))
public class DatabaseReconciler implements Reconciler<Database> {
  private static final Logger log = LoggerFactory.getLogger(DatabaseReconciler.class);
  static final java.time.Duration RESIZE_POLL = java.time.Duration.ofSeconds(5);

  @Override
  public List<EventSource<?, Database>> prepareEventSources(EventSourceContext<Database> context) {
    return List.of(
        byInstanceLabel(context, Pod.class, Labels.Component.DATABASE),
        byInstanceLabel(context, Job.class, Labels.Component.BACKUP));
  }

  /** An informer on the Database's pods or backup Jobs, mapped to it by the instance label. */
  private static <R extends HasMetadata> InformerEventSource<R, Database> byInstanceLabel(
      EventSourceContext<Database> context, Class<R> type, Labels.Component component) {
    return new InformerEventSource<>(
        InformerEventSourceConfiguration.from(type, Database.class)
            .withLabelSelector(
                Labels.MANAGED_SELECTOR + "," + Labels.COMPONENT + "=" + component.value())
            .withSecondaryToPrimaryMapper(
                r ->
                    Optional.ofNullable(r.getMetadata().getLabels())
                        .map(l -> l.get(Labels.INSTANCE))
                        .map(name -> Set.of(new ResourceID(name, r.getMetadata().getNamespace())))
                        .orElse(Set.of()))
            .build(),
        context);
  }

  @Override
  public UpdateControl<Database> reconcile(Database db, Context<Database> context) {
    PodRoles.label(db, context);
    SecretOwnership.sync(db, context);
    StorageResize.Outcome storage = StorageResize.reconcile(db, context);
    writeStatus(db, context, storage, Optional.empty());
    // Data PVCs do not map to their Database (they carry no owner), so a resize is polled.
    return storage.resizing()
        ? UpdateControl.<Database>noUpdate().rescheduleAfter(RESIZE_POLL)
        : UpdateControl.noUpdate();
  }

  @Override
  public ErrorStatusUpdateControl<Database> updateErrorStatus(
      Database db, Context<Database> context, Exception e) {
    String message = rootMessage(e);
    log.warn(
        "reconcile of {}/{} failed: {}",
        db.getMetadata().getNamespace(),
        db.getMetadata().getName(),
        message);
    try {
      writeStatus(db, context, StorageResize.Outcome.NONE, Optional.of(message));
    } catch (RuntimeException statusError) {
      log.warn("could not report the error in the status: {}", statusError.toString());
    }
    // Keep JOSDK's retry with backoff.
    return ErrorStatusUpdateControl.noStatusUpdate();
  }

  private void writeStatus(
      Database db,
      Context<Database> context,
      StorageResize.Outcome storage,
      Optional<String> error) {
    Observed observed =
        new Observed(
            context.getSecondaryResource(StatefulSet.class),
            context.getSecondaryResources(Pod.class).stream()
                .filter(p -> p.getMetadata().getName().equals(StatefulSetDependent.podName(db, 0)))
                .findFirst(),
            context.getSecondaryResource(CronJob.class),
            context.getSecondaryResources(Job.class).stream()
                .filter(j -> j.getMetadata().getCreationTimestamp() != null)
                .max(Comparator.comparing(j -> j.getMetadata().getCreationTimestamp())),
            StatefulSetDependent.versionDecision(db, context),
            storage,
            error);
    DatabaseStatus status = StatusFactory.compute(db, observed, Instant.now());
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

  /**
   * One line per cause, for the log and the Degraded message: JOSDK's aggregated workflow exception
   * would otherwise carry every dependent's whole stack trace.
   */
  public static String rootMessage(Throwable e) {
    if (e instanceof AggregatedOperatorException aggregated) {
      return aggregated.getAggregatedExceptions().entrySet().stream()
          .map(entry -> entry.getKey() + ": " + rootMessage(entry.getValue()))
          .collect(java.util.stream.Collectors.joining("; "));
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = Optional.ofNullable(root.getMessage()).orElse(root.getClass().getSimpleName());
    // The API server's message, without the Status dump fabric8 appends.
    int status = message.indexOf(". Received status:");
    return (status > 0 ? message.substring(0, status) : message)
        .lines()
        .findFirst()
        .orElse(message);
  }

  /** Labels each pod primary or replica, which the read-only Service selects on. */
  static final class PodRoles {
    private PodRoles() {}

    static void label(Database db, Context<Database> context) {
      String primary = StatefulSetDependent.podName(db, 0);
      for (Pod pod : context.getSecondaryResources(Pod.class)) {
        String role =
            pod.getMetadata().getName().equals(primary)
                ? ReadOnlyServiceDependent.PRIMARY
                : ReadOnlyServiceDependent.REPLICA;
        Map<String, String> labels = pod.getMetadata().getLabels();
        if (!role.equals(labels.get(ReadOnlyServiceDependent.ROLE_LABEL))) {
          // A merge patch without resourceVersion: kwok and the kubelet update pods all the time.
          try {
            context
                .getClient()
                .pods()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName())
                .patch(
                    PatchContext.of(PatchType.JSON_MERGE),
                    "{\"metadata\":{\"labels\":{\""
                        + ReadOnlyServiceDependent.ROLE_LABEL
                        + "\":\""
                        + role
                        + "\"}}}");
          } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
              throw e;
            }
          }
        }
      }
    }
  }
}
