package dev.cellar.operator.dependent;

import static dev.cellar.operator.engine.EngineProfile.value;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.FromBackupSpec;
import dev.cellar.operator.backup.BackupJobs;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.engine.EngineVersion;
import dev.cellar.operator.podspec.ContainerResources;
import dev.cellar.operator.podspec.PodSecurity;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * spec.bootstrap.fromBackup in the database pods: an init container {@value
 * ChildNames#RESTORE_CONTAINER} that, on pod 0 of a Database whose data is not initialised, fetches
 * the dump (from a bucket, or from the source Database's backups volume mounted read-only) and puts
 * it with the engine's restore script where the database container sees
 * /docker-entrypoint-initdb.d. The image's first initialisation restores it before the server
 * accepts clients, so the pod is ready only after the restore. The operator checks first that the
 * source is there, as far as it can tell without a pod (backup.RestoreSource), and makes no pod
 * until it is; what only the pod meets (a dump it cannot read, a store only the pods reach) fails
 * the init container with one line in its termination message (PodTrouble reports it), and the
 * kubelet retries it.
 */
public final class BootstrapRestore {
  static final String RESTORE_VOLUME = "cellar-restore";
  static final String RESTORE_DIR = "/cellar-restore";
  static final String INITDB_DIR = "/docker-entrypoint-initdb.d";
  static final String SOURCE_VOLUME = "cellar-restore-source";
  static final String SOURCE_DIR = "/cellar-restore-source";
  static final String PENDING = ".cellar-restore-pending";

  /** /tmp of the restore step, whose root filesystem is read-only. */
  static final String TMP_VOLUME = "cellar-restore-tmp";

  private BootstrapRestore() {}

  /** Adds the restore to {@code pod} (whose first container is the database) when asked for. */
  static void apply(
      Database db, EngineProfile profile, EngineVersion version, String image, PodSpecBuilder pod) {
    Optional<FromBackupSpec> from =
        Optional.ofNullable(db.getSpec().getBootstrap()).map(b -> b.getFromBackup());
    if (from.isEmpty()) {
      return;
    }
    FromBackupSpec f = from.get();
    Topology topology = Topology.of(db);
    String dataDir = profile.dataMountPath(version);
    List<EnvVar> env = new ArrayList<>(profile.env(topology.credentialsSecret(), version));
    env.add(
        new EnvVarBuilder()
            .withName("POD_NAME")
            .withNewValueFrom()
            .withNewFieldRef()
            .withApiVersion("v1")
            .withFieldPath("metadata.name")
            .endFieldRef()
            .endValueFrom()
            .build());
    env.add(value("BACKUP_NAME", f.getDatabase()));
    env.add(value("RESTORE_BACKUP", Optional.ofNullable(f.getBackup()).orElse("latest")));
    env.add(value("DATA_DIR", dataDir));
    env.add(value("INITIALISED_PATH", profile.initialisedPath(version)));
    env.add(value("RESTORE_DIR", RESTORE_DIR));
    env.add(value("RESTORE_SCRIPT", BackupJobs.script(EngineProfile.RESTORE_SCRIPT)));
    env.add(value("TMPDIR", BackupJobs.TMP_DIR));
    ContainerBuilder init =
        new ContainerBuilder()
            .withName(ChildNames.RESTORE_CONTAINER)
            .withImage(image)
            .withCommand("bash", BackupJobs.script(EngineProfile.RESTORE_FETCH_SCRIPT))
            .withSecurityContext(PodSecurity.readOnlyContainer())
            .withResources(ContainerResources.restore(db))
            .addNewVolumeMount()
            .withName(TMP_VOLUME)
            .withMountPath(BackupJobs.TMP_DIR)
            .endVolumeMount()
            .addNewVolumeMount()
            .withName(ChildNames.DATA_VOLUME)
            .withMountPath(dataDir)
            .endVolumeMount()
            .addNewVolumeMount()
            .withName(RESTORE_VOLUME)
            .withMountPath(RESTORE_DIR)
            .endVolumeMount()
            .addNewVolumeMount()
            .withName(StatefulSetDependent.CONFIG_VOLUME)
            .withMountPath(EngineProfile.CELLAR_DIR)
            .withReadOnly(true)
            .endVolumeMount();
    boolean fromStore = f.getSource() != FromBackupSpec.BackupSource.VOLUME;
    if (fromStore && f.getObjectStore() != null) {
      env.addAll(BackupJobs.objectStoreEnv(f.getObjectStore()));
    } else {
      String claim = sourceClaim(f);
      env.add(value("SOURCE_DIR", SOURCE_DIR));
      env.add(value("SOURCE_CLAIM", claim));
      init.addNewVolumeMount()
          .withName(SOURCE_VOLUME)
          .withMountPath(SOURCE_DIR)
          .withReadOnly(true)
          .endVolumeMount();
      pod.addNewVolume()
          .withName(SOURCE_VOLUME)
          .withNewPersistentVolumeClaim()
          .withClaimName(claim)
          .withReadOnly(true)
          .endPersistentVolumeClaim()
          .endVolume();
    }
    pod.addToInitContainers(init.withEnv(env).build());
    pod.addNewVolume().withName(RESTORE_VOLUME).withNewEmptyDir().endEmptyDir().endVolume();
    pod.addNewVolume().withName(TMP_VOLUME).withNewEmptyDir().endEmptyDir().endVolume();
    pod.editFirstContainer()
        .addToVolumeMounts(
            new VolumeMountBuilder()
                .withName(RESTORE_VOLUME)
                .withMountPath(INITDB_DIR)
                .withReadOnly(true)
                .build())
        .addToEnv(value("CELLAR_RESTORE_PENDING", dataDir + "/" + PENDING))
        .endContainer();
  }

  /** The source's backups volume claim, which source volume mounts (same namespace). */
  static String sourceClaim(FromBackupSpec f) {
    return ChildNames.of(f.getDatabase()).backupClaim();
  }
}
