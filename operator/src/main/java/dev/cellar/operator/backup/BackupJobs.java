package dev.cellar.operator.backup;

import static dev.cellar.operator.engine.EngineProfile.value;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.BackupSpec;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.ObjectStoreSpec;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.podspec.ClientTlsVolume;
import dev.cellar.operator.podspec.ContainerResources;
import dev.cellar.operator.podspec.PodScheduling;
import dev.cellar.operator.podspec.PodSecurity;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpecBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The backup Jobs' spec, shared by the CronJob (scheduled) and on-demand Jobs: backup.sh (from the
 * engine's scripts ConfigMap, not inline: docs/performance.md, Scripts in one ConfigMap per engine)
 * with the engine's dump command, the target (the backups volume, or a bucket whose keys come from
 * a Secret reference) and, unless spec.backup.verify is false, the engine's verify script. The
 * container writes its result to its termination message.
 */
public final class BackupJobs {
  static final String BACKUP_DIR = "/backups";

  /** Scratch space for the verification's throwaway server: as large as the database. */
  static final String SCRATCH_DIR = "/var/tmp/cellar";

  /**
   * The root filesystem is read-only: /tmp is an emptyDir of its own, where TMPDIR points, for what
   * the tools write there (mktemp, curl, the throwaway server's temporary files).
   */
  public static final String TMP_DIR = "/tmp";

  /** The engine's scripts ConfigMap, mounted at {@link EngineProfile#CELLAR_DIR}. */
  static final String SCRIPTS_VOLUME = "scripts";

  private BackupJobs() {}

  /** The path of one of the engine's scripts where the Jobs and database pods mount them. */
  public static String script(String file) {
    return EngineProfile.CELLAR_DIR + "/" + file;
  }

  /** The labels of a backup Job and its pod. */
  public static Map<String, String> labels(Database db, String trigger) {
    Map<String, String> labels = new LinkedHashMap<>(Keys.labels(db, Keys.Component.BACKUP));
    labels.put(Keys.BACKUP_TRIGGER_LABEL, trigger);
    return labels;
  }

  /** The Job spec of {@code db}'s backups, run with the client tools of {@code image}. */
  public static JobSpec jobSpec(Database db, String image, String trigger) {
    Topology topology = Topology.of(db);
    EngineProfile profile = topology.profile();
    BackupSpec backup = db.getSpec().getBackup();
    Optional<ObjectStoreSpec> store = Optional.ofNullable(backup.getObjectStore());
    boolean verify = !Boolean.FALSE.equals(backup.getVerify());
    List<EnvVar> env = new ArrayList<>();
    env.add(value("DB_HOST", topology.primaryHost()));
    env.add(value("RETENTION", String.valueOf(backup.getRetention())));
    env.add(value("DUMP_COMMAND", profile.dumpCommand(db)));
    env.add(value("BACKUP_NAME", db.getMetadata().getName()));
    if (store.isPresent()) {
      env.addAll(objectStoreEnv(store.get()));
    } else {
      env.add(value("BACKUP_DIR", BACKUP_DIR));
      env.add(value("BACKUP_CLAIM", topology.backupClaim()));
    }
    env.add(value("CELLAR_SCRATCH", SCRATCH_DIR));
    env.add(value("TMPDIR", TMP_DIR));
    if (verify) {
      env.add(value("VERIFY_SCRIPT", script(EngineProfile.VERIFY_SCRIPT)));
    }
    env.addAll(profile.dumpEnv(topology.credentialsSecret()));

    PodSpecBuilder pod =
        new PodSpecBuilder()
            .withRestartPolicy("Never")
            .withSecurityContext(PodSecurity.pod())
            .withEnableServiceLinks(false)
            .addNewContainer()
            .withName(ChildNames.BACKUP_CONTAINER)
            .withImage(image)
            .withCommand("bash", script(EngineProfile.BACKUP_JOB_SCRIPT))
            .withEnv(env)
            .withResources(ContainerResources.backup(db, verify, store.isPresent()))
            .withSecurityContext(PodSecurity.readOnlyContainer())
            .addNewVolumeMount()
            .withName("scratch")
            .withMountPath(SCRATCH_DIR)
            .endVolumeMount()
            .addNewVolumeMount()
            .withName("tmp")
            .withMountPath(TMP_DIR)
            .endVolumeMount()
            .addNewVolumeMount()
            .withName(SCRIPTS_VOLUME)
            .withMountPath(EngineProfile.CELLAR_DIR)
            .withReadOnly(true)
            .endVolumeMount()
            .endContainer()
            .addNewVolume()
            .withName(SCRIPTS_VOLUME)
            .withNewConfigMap()
            .withName(topology.scriptsConfigMap())
            .endConfigMap()
            .endVolume()
            .addNewVolume()
            .withName("scratch")
            .withNewEmptyDir()
            .endEmptyDir()
            .endVolume()
            .addNewVolume()
            .withName("tmp")
            .withNewEmptyDir()
            .endEmptyDir()
            .endVolume();
    PodScheduling.applyToJob(db, pod);
    List<EnvVar> clientCertificate = profile.dumpClientCertificateEnv();
    if (topology.requiresClientCertificates() && !clientCertificate.isEmpty()) {
      pod.editFirstContainer()
          .addAllToEnv(clientCertificate)
          .addNewVolumeMount()
          .withName(ClientTlsVolume.NAME)
          .withMountPath(EngineProfile.CLIENT_TLS_DIR)
          .withReadOnly(true)
          .endVolumeMount()
          .endContainer()
          .addNewVolume()
          .withName(ClientTlsVolume.NAME)
          .withNewSecret()
          .withSecretName(topology.clientTlsSecret())
          .withDefaultMode(PodSecurity.TLS_FILE_MODE)
          .endSecret()
          .endVolume();
    }
    if (store.isEmpty()) {
      pod.editFirstContainer()
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
          .endVolume();
    }
    return new JobSpecBuilder()
        .withBackoffLimit(2)
        .withActiveDeadlineSeconds(
            Optional.ofNullable(backup.getActiveDeadlineSeconds())
                .orElse(BackupSpec.DEFAULT_ACTIVE_DEADLINE_SECONDS)
                .longValue())
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(labels(db, trigger))
        .endMetadata()
        .withSpec(pod.build())
        .endTemplate()
        .build();
  }

  /**
   * Turns a copy of the backup Jobs' spec into one that verifies the newest stored dump again
   * (backup.sh's verify mode), even when spec.backup.verify is false: the user asked for it.
   */
  public static void verifyOnly(Database db, JobSpec spec) {
    var container = spec.getTemplate().getSpec().getContainers().get(0);
    List<EnvVar> env = new ArrayList<>(container.getEnv());
    env.removeIf(e -> e.getName().equals("VERIFY_SCRIPT"));
    env.add(value("VERIFY_SCRIPT", script(EngineProfile.VERIFY_SCRIPT)));
    env.add(value("BACKUP_MODE", "verify"));
    env.add(value("VERIFY_BACKUP", "latest"));
    container.setEnv(env);
  }

  /**
   * Where the scripts find a bucket (s3.sh): endpoint, bucket, prefix, region, and the keys as
   * references to the user's Secret, never their values. Backup Jobs and the restore step share it.
   */
  public static List<EnvVar> objectStoreEnv(ObjectStoreSpec s) {
    return List.of(
        value("S3_ENDPOINT", s.getEndpoint()),
        value("S3_BUCKET", s.getBucket()),
        value("S3_PREFIX", Optional.ofNullable(s.getPrefix()).orElse("")),
        value("S3_REGION", Optional.ofNullable(s.getRegion()).orElse("us-east-1")),
        EngineProfile.fromSecret(
            ObjectStoreSpec.ACCESS_KEY_ID,
            s.getCredentialsSecret(),
            ObjectStoreSpec.ACCESS_KEY_ID,
            false),
        EngineProfile.fromSecret(
            ObjectStoreSpec.SECRET_ACCESS_KEY,
            s.getCredentialsSecret(),
            ObjectStoreSpec.SECRET_ACCESS_KEY,
            false));
  }
}
