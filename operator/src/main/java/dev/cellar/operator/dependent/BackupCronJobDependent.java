package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Labels;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.engine.EngineProfiles;
import dev.cellar.operator.engine.EngineVersion;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.ArrayList;
import java.util.List;

/**
 * Scheduled dumps: the engine's dump of the primary, gzipped to {@code /backups/<name>-<UTC
 * timestamp>.sql.gz}, then only the newest {@code retention} dumps are kept.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_SELECTOR))
public class BackupCronJobDependent extends OwnedChild<CronJob> {
  public static final String CONTAINER = "backup";
  static final String BACKUP_DIR = "/backups";

  public BackupCronJobDependent() {
    super(CronJob.class);
  }

  public static String name(Database db) {
    return db.getMetadata().getName() + "-backup";
  }

  @Override
  protected String childName(Database db) {
    return name(db);
  }

  /**
   * The dump goes to a temporary file renamed only on success, so a failed run never counts as a
   * backup nor pushes a good one out of the retention window.
   */
  static String script(Database db, EngineProfile profile) {
    String prefix = BACKUP_DIR + "/" + db.getMetadata().getName() + "-";
    return String.join(
        "\n",
        "set -euo pipefail",
        "out=\"" + prefix + "$(date -u +%Y%m%dT%H%M%SZ).sql.gz\"",
        profile.dumpCommand() + " | gzip > \"$out.partial\"",
        "mv \"$out.partial\" \"$out\"",
        "ls -1 " + prefix + "*.sql.gz | sort -r | tail -n +$((RETENTION + 1)) | xargs -r rm -f --",
        "echo \"backup written: $out\"");
  }

  @Override
  protected CronJob desired(Database db, Context<Database> context) {
    return desired(db, backupImage(db, EngineProfiles.of(db), context));
  }

  /** The CronJob for {@code db}, dumping with the client tools of {@code image}. */
  CronJob desired(Database db, String image) {
    EngineProfile profile = EngineProfiles.of(db);
    List<EnvVar> env = new ArrayList<>();
    env.add(
        new EnvVarBuilder()
            .withName("DB_HOST")
            .withValue(PrimaryServiceDependent.host(db))
            .build());
    env.add(
        new EnvVarBuilder()
            .withName("RETENTION")
            .withValue(String.valueOf(db.getSpec().getBackup().getRetention()))
            .build());
    env.addAll(profile.dumpEnv(CredentialsSecretDependent.name(db)));
    return new CronJobBuilder()
        .withMetadata(metadata(db, Labels.Component.BACKUP))
        .withNewSpec()
        .withSchedule(db.getSpec().getBackup().getSchedule())
        .withConcurrencyPolicy("Forbid")
        .withSuccessfulJobsHistoryLimit(3)
        .withFailedJobsHistoryLimit(3)
        .withNewJobTemplate()
        .withNewMetadata()
        .withLabels(Labels.of(db, Labels.Component.BACKUP))
        .endMetadata()
        .withNewSpec()
        .withBackoffLimit(2)
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Labels.of(db, Labels.Component.BACKUP))
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .withSecurityContext(PodSecurity.pod())
        .withEnableServiceLinks(false)
        .addNewContainer()
        .withName(CONTAINER)
        .withImage(image)
        .withCommand("bash", "-c", script(db, profile))
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
        .withClaimName(BackupPvcDependent.name(db))
        .endPersistentVolumeClaim()
        .endVolume()
        .endSpec()
        .endTemplate()
        .endSpec()
        .endJobTemplate()
        .endSpec()
        .build();
  }

  /** The image that runs the database, whose client tools match the server. */
  private static String backupImage(Database db, EngineProfile profile, Context<Database> ctx) {
    return ctx.getSecondaryResource(StatefulSet.class)
        .map(sts -> sts.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .orElseGet(() -> profile.image(db, EngineVersion.parse(db.getSpec().getVersion())));
  }
}
