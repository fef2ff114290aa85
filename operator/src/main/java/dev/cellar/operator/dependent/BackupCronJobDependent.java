package dev.cellar.operator.dependent;

import static dev.cellar.operator.engine.EngineProfile.value;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Keys;
import dev.cellar.operator.Topology;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.status.StatusFactory;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
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
 * Scheduled dumps: the engine's dump of the primary, gzipped to {@code /backups/<name>-<UTC
 * timestamp>.sql.gz}, then only the newest {@code retention} dumps are kept.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class BackupCronJobDependent extends OwnedChild<CronJob> {
  static final String BACKUP_DIR = "/backups";

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
    Topology topology = Topology.of(db);
    Optional<StatefulSet> sts = context.getSecondaryResource(StatefulSet.class);
    boolean primaryReady =
        context.getSecondaryResources(Pod.class).stream()
            .anyMatch(
                p ->
                    p.getMetadata().getName().equals(topology.primaryPod())
                        && StatusFactory.podReady(p));
    return desired(
        db,
        topology.image(topology.versionDecision(sts), sts),
        suspended(db, getSecondaryResource(db, context), primaryReady));
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
    Topology topology = Topology.of(db);
    EngineProfile profile = topology.profile();
    List<EnvVar> env = new ArrayList<>();
    env.add(value("DB_HOST", topology.primaryHost()));
    env.add(value("RETENTION", String.valueOf(db.getSpec().getBackup().getRetention())));
    env.add(value("DUMP_COMMAND", profile.dumpCommand()));
    env.add(value("BACKUP_DIR", BACKUP_DIR));
    env.add(value("BACKUP_NAME", db.getMetadata().getName()));
    env.addAll(profile.dumpEnv(topology.credentialsSecret()));
    return new CronJobBuilder()
        .withMetadata(metadata(db, Keys.Component.BACKUP))
        .withNewSpec()
        .withSchedule(db.getSpec().getBackup().getSchedule())
        .withSuspend(suspend)
        .withConcurrencyPolicy("Forbid")
        .withSuccessfulJobsHistoryLimit(3)
        .withFailedJobsHistoryLimit(3)
        .withNewJobTemplate()
        .withNewMetadata()
        .withLabels(Keys.labels(db, Keys.Component.BACKUP))
        .endMetadata()
        .withNewSpec()
        .withBackoffLimit(2)
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Keys.labels(db, Keys.Component.BACKUP))
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .withSecurityContext(PodSecurity.pod())
        .withEnableServiceLinks(false)
        .addNewContainer()
        .withName(Topology.BACKUP_CONTAINER)
        .withImage(image)
        .withCommand("bash", "-c", EngineProfile.resource("backup.sh"))
        .withEnv(env)
        .withNewResources()
        .addToRequests("cpu", new Quantity("100m"))
        .addToRequests("memory", new Quantity("128Mi"))
        .addToLimits("memory", new Quantity("512Mi"))
        .endResources()
        .withSecurityContext(PodSecurity.container())
        .addNewVolumeMount()
        .withName("backups")
        .withMountPath(BACKUP_DIR)
        .endVolumeMount()
        .endContainer()
        .addNewVolume()
        .withName("backups")
        .withNewPersistentVolumeClaim()
        .withClaimName(topology.backupClaim())
        .endPersistentVolumeClaim()
        .endVolume()
        .endSpec()
        .endTemplate()
        .endSpec()
        .endJobTemplate()
        .endSpec()
        .build();
  }
}
