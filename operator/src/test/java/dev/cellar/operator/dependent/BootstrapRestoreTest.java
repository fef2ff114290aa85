package dev.cellar.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.v1.BootstrapSpec;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.FromBackupSpec;
import dev.cellar.api.v1.ObjectStoreSpec;
import dev.cellar.operator.facts.PodTrouble;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** spec.bootstrap.fromBackup in the pod template, and a failed restore in the status. */
class BootstrapRestoreTest {
  static PodSpec pod(Database db) {
    return DesiredStateTest.statefulSet(db, Optional.empty()).getSpec().getTemplate().getSpec();
  }

  static String env(Container c, String name) {
    return c.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .map(EnvVar::getValue)
        .findFirst()
        .orElse(null);
  }

  @Test
  void noBootstrapNoInitContainer() {
    assertThat(pod(DesiredStateTest.db(Engine.POSTGRESQL, "16")).getInitContainers()).isEmpty();
  }

  @Test
  void fromABucketTheInitContainerReadsTheKeysFromTheSecretAndHandsTheDumpToTheImage() {
    Database db = DesiredStateTest.db(Engine.POSTGRESQL, "16");
    db.getSpec()
        .setBootstrap(
            new BootstrapSpec(
                new FromBackupSpec(
                    "orders",
                    FromBackupSpec.BackupSource.OBJECT_STORE,
                    "latest",
                    new ObjectStoreSpec("https://s3.example", "dumps", "prod", null, "s3-keys"))));
    PodSpec pod = pod(db);
    Container init = pod.getInitContainers().get(0);
    assertThat(init.getName()).isEqualTo(ChildNames.RESTORE_CONTAINER);
    assertThat(init.getImage()).isEqualTo("postgres:16");
    assertThat(env(init, "BACKUP_NAME")).isEqualTo("orders");
    assertThat(env(init, "S3_BUCKET")).isEqualTo("dumps");
    assertThat(env(init, "INITIALISED_PATH"))
        .isEqualTo("/var/lib/postgresql/data/pgdata/PG_VERSION");
    assertThat(env(init, "RESTORE_SCRIPT")).isEqualTo("/etc/cellar/restore-dump.sh");
    assertThat(init.getCommand()).containsExactly("bash", "/etc/cellar/restore-fetch.sh");
    assertThat(init.getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/cellar"));
    assertThat(init.getEnv())
        .filteredOn(e -> e.getName().startsWith("AWS_"))
        .hasSize(2)
        .allSatisfy(
            e -> assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("s3-keys"));
    Container database = pod.getContainers().get(0);
    assertThat(database.getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getMountPath()).isEqualTo("/docker-entrypoint-initdb.d");
              assertThat(m.getName()).isEqualTo(BootstrapRestore.RESTORE_VOLUME);
            });
    assertThat(env(database, "CELLAR_RESTORE_PENDING"))
        .isEqualTo("/var/lib/postgresql/data/.cellar-restore-pending");

    // Hardened: read-only root, writes only into its volumes, bounded resources.
    assertThat(init.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(init.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(init.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(env(init, "TMPDIR")).isEqualTo("/tmp");
    assertThat(init.getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getMountPath()).isEqualTo("/tmp");
              assertThat(m.getName()).isEqualTo(BootstrapRestore.TMP_VOLUME);
            });
    assertThat(pod.getVolumes())
        .anySatisfy(
            v -> {
              assertThat(v.getName()).isEqualTo(BootstrapRestore.TMP_VOLUME);
              assertThat(v.getEmptyDir()).isNotNull();
            });
    assertThat(init.getResources().getRequests())
        .containsKeys("cpu", "memory", "ephemeral-storage");
    assertThat(init.getResources().getLimits()).containsKeys("cpu", "memory");
    // The dump stays in the pod's restore volume, of any size: no default ephemeral-storage limit,
    // and nothing in the pod template follows spec.storage (a resize must not restart the pods).
    assertThat(init.getResources().getLimits()).doesNotContainKey("ephemeral-storage");
    assertThat(database.getResources().getLimits()).doesNotContainKey("ephemeral-storage");
    assertThat(database.getResources().getRequests()).containsKey("ephemeral-storage");
    String template = pod.toString();
    db.getSpec().setStorage("200Gi");
    assertThat(pod(db).toString())
        .as("the pod template does not follow storage")
        .isEqualTo(template);
  }

  @Test
  void fromAVolumeTheSourcesBackupsClaimIsMountedReadOnly() {
    Database db = DesiredStateTest.db(Engine.MARIADB, "11.4");
    db.getSpec()
        .setBootstrap(
            new BootstrapSpec(
                new FromBackupSpec("orders", FromBackupSpec.BackupSource.VOLUME, "latest", null)));
    PodSpec pod = pod(db);
    assertThat(pod.getVolumes())
        .filteredOn(v -> v.getPersistentVolumeClaim() != null)
        .anySatisfy(
            v -> {
              assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("orders-backups");
              assertThat(v.getPersistentVolumeClaim().getReadOnly()).isTrue();
            });
    assertThat(env(pod.getInitContainers().get(0), "INITIALISED_PATH"))
        .isEqualTo("/var/lib/mysql/mysql");
  }

  @Test
  void aFailingRestoreIsRestoreFailedWithItsTerminationMessage() {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("copy-0")
            .withCreationTimestamp("2026-01-01T00:00:00Z")
            .endMetadata()
            .withNewStatus()
            .addNewInitContainerStatus()
            .withName(ChildNames.RESTORE_CONTAINER)
            .withNewState()
            .withNewWaiting()
            .withReason("CrashLoopBackOff")
            .endWaiting()
            .endState()
            .withNewLastState()
            .withNewTerminated()
            .withExitCode(1)
            .withMessage("no backup of orders in s3://dumps/prod/ (dumps are named ...)")
            .endTerminated()
            .endLastState()
            .endInitContainerStatus()
            .endStatus()
            .build();
    PodTrouble trouble = PodTrouble.of(List.of(pod)).orElseThrow();
    assertThat(trouble.reason()).isEqualTo(Reason.RESTORE_FAILED);
    assertThat(trouble.message())
        .contains("restoring spec.bootstrap.fromBackup into copy-0 failed")
        .contains("no backup of orders in s3://dumps/prod/");

    // Retried by the kubelet: while it runs again the restore is still the one that failed, in
    // the same words (no flap to Provisioning at each retry); once it ends well, nothing is left.
    Pod retrying = new PodBuilder(pod).build();
    retrying.getStatus().getInitContainerStatuses().get(0).getState().setWaiting(null);
    retrying
        .getStatus()
        .getInitContainerStatuses()
        .get(0)
        .getState()
        .setRunning(new io.fabric8.kubernetes.api.model.ContainerStateRunning());
    assertThat(PodTrouble.of(List.of(retrying)).orElseThrow()).isEqualTo(trouble);
    Pod restored = new PodBuilder(retrying).build();
    restored.getStatus().getInitContainerStatuses().get(0).getState().setRunning(null);
    restored
        .getStatus()
        .getInitContainerStatuses()
        .get(0)
        .getState()
        .setTerminated(
            new io.fabric8.kubernetes.api.model.ContainerStateTerminatedBuilder()
                .withExitCode(0)
                .build());
    assertThat(PodTrouble.of(List.of(restored))).isEmpty();
  }
}
