package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.BackupSpec;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.backup.BackupJobs;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.topology.Children;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Scheduled dumps: the engine's dump of the primary, gzipped as {@code <name>-<UTC
 * timestamp>.sql.gz} to the backups volume or a bucket, then only the newest {@code retention}
 * dumps are kept and the new one is verified (see {@link BackupJobs}).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class BackupCronJobDependent extends OwnedChild<CronJob> {
  public BackupCronJobDependent() {
    super(CronJob.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.backupCronJob();
  }

  /** The dumps run with the client tools of the image that runs the database. */
  @Override
  protected CronJob desired(Database db, Context<Database> context) {
    return desired(db, image(db, context), suspended(db, context));
  }

  /** The Database, the image and whether backups pause: all that {@link #desired} reads. */
  @Override
  protected Optional<List<Object>> inputs(Database db, Context<Database> context) {
    List<Object> inputs = new ArrayList<>(databaseInputs(db));
    inputs.add(image(db, context));
    inputs.add(suspended(db, context));
    return Optional.of(inputs);
  }

  private static String image(Database db, Context<Database> context) {
    Topology topology = Topology.of(db);
    Optional<StatefulSet> sts = Children.statefulSet(db, context);
    return topology.image(topology.versionDecision(sts), sts);
  }

  private boolean suspended(Database db, Context<Database> context) {
    Topology topology = Topology.of(db);
    boolean primaryReady =
        context.getSecondaryResources(Pod.class).stream()
            .anyMatch(
                p -> p.getMetadata().getName().equals(topology.primaryPod()) && PodFacts.ready(p));
    return suspended(db, getSecondaryResource(db, context), primaryReady);
  }

  /**
   * Backups pause while the Database hibernates, and stay paused after it wakes until the primary
   * is ready: a CronJob that is resumed runs the schedule it missed at once, and that dump must
   * find a primary to read.
   */
  static boolean suspended(Database db, Optional<CronJob> existing, boolean primaryReady) {
    if (Boolean.TRUE.equals(db.getSpec().getHibernated())) {
      return true;
    }
    boolean wasSuspended =
        existing
            .map(CronJob::getSpec)
            .map(spec -> Boolean.TRUE.equals(spec.getSuspend()))
            .orElse(false);
    return wasSuspended && !primaryReady;
  }

  /**
   * The CronJob for {@code db}, dumping with the client tools of {@code image}; {@code suspend}
   * pauses it.
   */
  CronJob desired(Database db, String image, boolean suspend) {
    return new CronJobBuilder()
        .withMetadata(metadata(db, Keys.Component.BACKUP))
        .withNewSpec()
        .withSchedule(db.getSpec().getBackup().getSchedule())
        .withSuspend(suspend)
        .withConcurrencyPolicy("Forbid")
        .withStartingDeadlineSeconds(
            Optional.ofNullable(db.getSpec().getBackup().getStartingDeadlineSeconds())
                .orElse(BackupSpec.DEFAULT_STARTING_DEADLINE_SECONDS)
                .longValue())
        .withSuccessfulJobsHistoryLimit(3)
        .withFailedJobsHistoryLimit(3)
        .withNewJobTemplate()
        .withNewMetadata()
        .withLabels(BackupJobs.labels(db, Keys.TRIGGER_SCHEDULED))
        .endMetadata()
        .withSpec(BackupJobs.jobSpec(db, image, Keys.TRIGGER_SCHEDULED))
        .endJobTemplate()
        .endSpec()
        .build();
  }
}
