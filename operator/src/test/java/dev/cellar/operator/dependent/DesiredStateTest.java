package dev.cellar.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.DeletionPolicy;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.ObjectStoreSpec;
import dev.cellar.api.v1.ReplicationMode;
import dev.cellar.api.v1.ReplicationSpec;
import dev.cellar.operator.engine.EngineProfiles;
import dev.cellar.operator.engine.VersionDecision;
import dev.cellar.operator.podspec.PodScheduling;
import dev.cellar.operator.storage.Quantities;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodAntiAffinity;
import io.fabric8.kubernetes.api.model.PodAntiAffinityBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Each dependent's desired state, computed without a cluster. */
class DesiredStateTest {
  static Database db(Engine engine, String version) {
    Database db = new Database("shop", "orders-db", new DatabaseSpec(engine, version, "100Gi"));
    db.getMetadata().setUid("uid-1");
    return db;
  }

  static StatefulSet statefulSet(Database db, Optional<StatefulSet> existing) {
    VersionDecision decision = Topology.of(db).versionDecision(existing);
    return new StatefulSetDependent().desired(db, existing, decision);
  }

  @Test
  void namesFollowTheDatabase() {
    Database db = db(Engine.POSTGRESQL, "16");
    Topology t = Topology.of(db);
    assertThat(t.credentialsSecret()).isEqualTo("orders-db-credentials");
    assertThat(t.configMap()).isEqualTo("orders-db-config");
    assertThat(t.headlessService()).isEqualTo("orders-db-headless");
    assertThat(t.primaryService()).isEqualTo("orders-db");
    assertThat(t.readOnlyService()).isEqualTo("orders-db-ro");
    assertThat(t.statefulSet()).isEqualTo("orders-db");
    assertThat(t.podDisruptionBudget()).isEqualTo("orders-db");
    assertThat(t.backupClaim()).isEqualTo("orders-db-backups");
    assertThat(t.backupCronJob()).isEqualTo("orders-db-backup");
    assertThat(t.dataClaim(2)).isEqualTo("data-orders-db-2");
    // Each dependent names its child from the topology.
    assertThat(new StatefulSetDependent().childName(t)).isEqualTo(t.statefulSet());
    assertThat(new ReadOnlyServiceDependent().childName(t)).isEqualTo(t.readOnlyService());
    assertThat(new BackupPvcDependent().childName(t)).isEqualTo(t.backupClaim());
    assertThat(t.primaryHost()).isEqualTo("orders-db.shop.svc.cluster.local");
    // The primary is pod 0 until the status names another; other names are not its pods.
    assertThat(t.primaryPod()).isEqualTo("orders-db-0");
    assertThat(t.isPod("orders-db-4")).isTrue();
    assertThat(t.isPod("orders-db-5")).isFalse();
    assertThat(t.isPod("orders-db-01")).isFalse();
    assertThat(t.isPod("orders-db-x")).isFalse();
    assertThat(t.readOnlyEndpoint()).isEqualTo("orders-db-ro.shop.svc.cluster.local:5432");
  }

  @Test
  void credentialsHoldEveryKeyAndAStrongPassword() {
    Database db = db(Engine.POSTGRESQL, "16");
    Secret secret = new CredentialsSecretDependent().desired(db, null);
    assertThat(secret.getData())
        .containsKeys("username", "password", "root-password", "database", "host", "port", "uri");
    String password = decode(secret, "password");
    assertThat(password).hasSize(32).matches("[A-Za-z0-9]+");
    assertThat(decode(secret, "database")).isEqualTo("orders_db");
    assertThat(decode(secret, "uri"))
        .isEqualTo(
            "postgresql://app:"
                + password
                + "@orders-db.shop.svc.cluster.local:5432/orders_db?sslmode=verify-full");
    assertThat(new CredentialsSecretDependent().desired(db, null).getData().get("password"))
        .as("each Secret gets its own password")
        .isNotEqualTo(secret.getData().get("password"));
    assertThat(secret.getMetadata().getOwnerReferences()).as("Retain: not owned").isNullOrEmpty();
    db.getSpec().setDeletionPolicy(DeletionPolicy.Delete);
    assertThat(
            new CredentialsSecretDependent().desired(db, null).getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo("uid-1"));
  }

  @Test
  void aRestoredDatabaseKeepsItsSourcesDatabaseName() {
    Database db = db(Engine.POSTGRESQL, "16");
    dev.cellar.api.v1.FromBackupSpec from = new dev.cellar.api.v1.FromBackupSpec();
    from.setDatabase("shop-main");
    dev.cellar.api.v1.BootstrapSpec bootstrap = new dev.cellar.api.v1.BootstrapSpec();
    bootstrap.setFromBackup(from);
    db.getSpec().setBootstrap(bootstrap);
    // The dump holds the source's database under its name: the Secret names that one.
    Secret secret = new CredentialsSecretDependent().desired(db, null);
    assertThat(decode(secret, "database")).isEqualTo("shop_main");
    assertThat(decode(secret, "uri")).endsWith("/shop_main?sslmode=verify-full");
  }

  static String decode(Secret secret, String key) {
    return new String(
        Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }

  @Test
  void servicesSelectTheRightPods() {
    Database db = db(Engine.MYSQL, "8.4");
    Service headless = new HeadlessServiceDependent().desired(db, null);
    assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(headless.getSpec().getPublishNotReadyAddresses()).isTrue();
    Service primary = new PrimaryServiceDependent().desired(db, null);
    assertThat(primary.getSpec().getSelector())
        .containsEntry("cellar.dev/role", "primary")
        .containsEntry(Keys.INSTANCE, "orders-db");
    assertThat(primary.getSpec().getPorts().get(0).getPort()).isEqualTo(3306);
    assertThat(primary.getSpec().getPorts().get(0).getProtocol()).isEqualTo("TCP");
    Service ro = new ReadOnlyServiceDependent().desired(db, null);
    assertThat(ro.getSpec().getSelector()).containsEntry("cellar.dev/role", "replica");
  }

  @Test
  void statefulSetRunsTheProfilesPodAsNonRoot() {
    Database db = db(Engine.POSTGRESQL, "16.4");
    db.getSpec().setReplicas(3);
    StatefulSet sts = statefulSet(db, Optional.empty());
    assertThat(sts.getMetadata().getAnnotations()).containsEntry("cellar.dev/version", "16.4");
    assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
    assertThat(sts.getSpec().getServiceName()).isEqualTo("orders-db-headless");
    assertThat(sts.getSpec().getSelector().getMatchLabels())
        .isEqualTo(Keys.selector(db, Keys.Component.DATABASE));
    Container c = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getImage()).isEqualTo("postgres:16.4");
    assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(sts.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot())
        .isTrue();
    assertThat(
            sts.getSpec()
                .getTemplate()
                .getSpec()
                .getSecurityContext()
                .getSeccompProfile()
                .getType())
        .isEqualTo("RuntimeDefault");
    assertThat(c.getResources().getLimits().get("memory").toString()).isEqualTo("1Gi");
    assertThat(c.getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/var/lib/postgresql/data"));
    PersistentVolumeClaim template = sts.getSpec().getVolumeClaimTemplates().get(0);
    assertThat(template.getSpec().getResources().getRequests().get("storage").toString())
        .isEqualTo("100Gi");
    assertThat(template.getSpec().getVolumeMode()).isEqualTo("Filesystem");
    assertThat(sts.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenScaled())
        .isEqualTo("Retain");
    assertThat(c.getEnv())
        .filteredOn(e -> e.getName().startsWith("CELLAR_REPLICATION_"))
        .hasSize(2)
        .allSatisfy(e -> assertThat(e.getValueFrom().getSecretKeyRef().getOptional()).isTrue());
    assertThat(c.getEnv())
        .filteredOn(e -> e.getName().equals("POSTGRES_PASSWORD"))
        .singleElement()
        .satisfies(e -> assertThat(e.getValueFrom().getSecretKeyRef().getOptional()).isNull());
  }

  @Test
  void aRefusedVersionKeepsTheRunningImageAndTemplateSize() {
    // 18: a PostgreSQL major Cellar does not upgrade to (16 -> 17 is upgraded by dump and restore).
    Database db = db(Engine.POSTGRESQL, "16.4");
    StatefulSet running = statefulSet(db, Optional.empty());
    db.getSpec().setVersion("18");
    db.getSpec().setStorage("200Gi");
    StatefulSet next = statefulSet(db, Optional.of(running));
    assertThat(next.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("postgres:16.4");
    assertThat(next.getMetadata().getAnnotations()).containsEntry("cellar.dev/version", "16.4");
    assertThat(
            next.getSpec()
                .getVolumeClaimTemplates()
                .get(0)
                .getSpec()
                .getResources()
                .getRequests()
                .get("storage")
                .toString())
        .as("volumeClaimTemplates are immutable")
        .isEqualTo("100Gi");
  }

  static Volume jobVolume(CronJob cron, String name) {
    return cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void backupCronJobDumpsThePrimaryAndKeepsRetention() {
    Database db = db(Engine.MARIADB, "11.4");
    db.getSpec().getBackup().setRetention(5);
    CronJob cron = new BackupCronJobDependent().desired(db, "mariadb:11.4", false);
    assertThat(cron.getSpec().getSchedule()).isEqualTo("0 2 * * *");
    assertThat(cron.getSpec().getConcurrencyPolicy()).isEqualTo("Forbid");
    Container c =
        cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getImage()).isEqualTo("mariadb:11.4");
    // The script is the engine's scripts ConfigMap's, mounted, not inline in every CronJob.
    assertThat(c.getCommand()).containsExactly("bash", "/etc/cellar/backup-job.sh");
    assertThat(EngineProfiles.of(Engine.MARIADB).scripts().get("backup-job.sh"))
        .contains("$BACKUP_DIR/$BACKUP_NAME-")
        .contains("$(date -u +%Y%m%dT%H%M%SZ).sql.gz")
        .contains("RETENTION");
    assertThat(jobVolume(cron, "scripts").getConfigMap().getName())
        .isEqualTo(Topology.of(db).scriptsConfigMap())
        .matches("cellar-mariadb-scripts-[0-9a-f]{10}");
    assertThat(c.getEnv())
        .anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("RETENTION=5"))
        .anySatisfy(
            e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("BACKUP_DIR=/backups"))
        .anySatisfy(
            e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("BACKUP_NAME=orders-db"))
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("DUMP_COMMAND");
              assertThat(e.getValue()).contains("mariadb-dump");
            })
        .anySatisfy(e -> assertThat(e.getValue()).isEqualTo("orders-db.shop.svc.cluster.local"));
    assertThat(jobVolume(cron, "backups").getPersistentVolumeClaim().getClaimName())
        .isEqualTo("orders-db-backups");
    assertThat(c.getEnv())
        .anySatisfy(
            e ->
                assertThat(e.getName() + "=" + e.getValue())
                    .isEqualTo("VERIFY_SCRIPT=/etc/cellar/verify-dump.sh"));
  }

  @Test
  void backupJobsAreBoundedReadOnlyAndRestricted() {
    Database db = db(Engine.POSTGRESQL, "16");
    CronJob cron = new BackupCronJobDependent().desired(db, "postgres:16", false);
    assertThat(cron.getSpec().getStartingDeadlineSeconds()).isEqualTo(86400L);
    assertThat(cron.getSpec().getJobTemplate().getSpec().getActiveDeadlineSeconds())
        .isEqualTo(21600L);
    PodSpec pod = cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    Container c = pod.getContainers().get(0);
    assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    // The scripts write only into the scratch volume, /tmp (an emptyDir) and the backups volume.
    assertThat(c.getVolumeMounts())
        .extracting(m -> m.getMountPath())
        .containsExactlyInAnyOrder("/var/tmp/cellar", "/tmp", "/etc/cellar", "/backups");
    assertThat(c.getEnv())
        .anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("TMPDIR=/tmp"))
        .anySatisfy(
            e ->
                assertThat(e.getName() + "=" + e.getValue())
                    .isEqualTo("CELLAR_SCRATCH=/var/tmp/cellar"));
    assertThat(c.getResources().getRequests())
        .containsEntry("cpu", new io.fabric8.kubernetes.api.model.Quantity("100m"))
        .containsEntry("memory", new io.fabric8.kubernetes.api.model.Quantity("128Mi"))
        .containsEntry("ephemeral-storage", new io.fabric8.kubernetes.api.model.Quantity("256Mi"));
    // Verification restores up to the data's size (100Gi) in the scratch volume: 1Gi + 2 x 100Gi.
    assertThat(c.getResources().getLimits())
        .containsEntry("cpu", new io.fabric8.kubernetes.api.model.Quantity("1"))
        .containsEntry("memory", new io.fabric8.kubernetes.api.model.Quantity("1Gi"))
        .containsEntry("ephemeral-storage", new io.fabric8.kubernetes.api.model.Quantity("201Gi"));
  }

  @Test
  void backupResourcesAndDeadlinesFollowTheSpec() {
    Database db = db(Engine.MYSQL, "8.4");
    db.getSpec().getBackup().setStartingDeadlineSeconds(600);
    db.getSpec().getBackup().setActiveDeadlineSeconds(3600);
    db.getSpec()
        .getBackup()
        .setResources(
            new dev.cellar.api.v1.DatabaseResources(
                new dev.cellar.api.v1.ComputeResources(null, "2Gi", null),
                new dev.cellar.api.v1.ComputeResources("2", "64Mi", "10Gi")));
    CronJob cron = new BackupCronJobDependent().desired(db, "mysql:8.4", false);
    assertThat(cron.getSpec().getStartingDeadlineSeconds()).isEqualTo(600L);
    assertThat(cron.getSpec().getJobTemplate().getSpec().getActiveDeadlineSeconds())
        .isEqualTo(3600L);
    Container c =
        cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getResources().getLimits().get("cpu").toString()).isEqualTo("2");
    assertThat(c.getResources().getLimits().get("ephemeral-storage").toString()).isEqualTo("10Gi");
    assertThat(c.getResources().getRequests().get("cpu").toString()).isEqualTo("100m");
    // A request above a limit is never rendered: the user's memory request (2Gi) raises no
    // limit they set (64Mi) -- the API server refuses that spec -- but a default request above a
    // lowered limit follows it.
    db.getSpec()
        .getBackup()
        .setResources(
            new dev.cellar.api.v1.DatabaseResources(
                null, new dev.cellar.api.v1.ComputeResources(null, "64Mi", "100Mi")));
    c =
        new BackupCronJobDependent()
            .desired(db, "mysql:8.4", false)
            .getSpec()
            .getJobTemplate()
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    assertThat(c.getResources().getRequests().get("memory").toString()).isEqualTo("64Mi");
    assertThat(c.getResources().getRequests().get("ephemeral-storage").toString())
        .isEqualTo("100Mi");
    // A request above a default limit raises that limit.
    db.getSpec()
        .getBackup()
        .setResources(
            new dev.cellar.api.v1.DatabaseResources(
                new dev.cellar.api.v1.ComputeResources("3", null, null), null));
    c =
        new BackupCronJobDependent()
            .desired(db, "mysql:8.4", false)
            .getSpec()
            .getJobTemplate()
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    assertThat(c.getResources().getLimits().get("cpu").toString()).isEqualTo("3");
  }

  @Test
  void theDatabaseContainerHasEphemeralStorageRequestsAndLimits() {
    Database db = db(Engine.POSTGRESQL, "16");
    Container c =
        statefulSet(db, Optional.empty()).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getResources().getRequests().get("ephemeral-storage").toString())
        .isEqualTo("256Mi");
    assertThat(c.getResources().getLimits().get("ephemeral-storage").toString()).isEqualTo("2Gi");
    db.getSpec()
        .setResources(
            new dev.cellar.api.v1.DatabaseResources(
                new dev.cellar.api.v1.ComputeResources("1", "1Gi"),
                new dev.cellar.api.v1.ComputeResources("2", "2Gi", "128Mi")));
    c = statefulSet(db, Optional.empty()).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getResources().getLimits().get("ephemeral-storage").toString()).isEqualTo("128Mi");
    assertThat(c.getResources().getRequests().get("ephemeral-storage").toString())
        .as("the default request follows a lower limit")
        .isEqualTo("128Mi");
    assertThat(c.getResources().getRequests().get("cpu").toString()).isEqualTo("1");
  }

  @Test
  void backupsToABucketReadTheKeysFromTheSecretOnlyAndMountNoVolume() {
    Database db = db(Engine.POSTGRESQL, "16");
    db.getSpec()
        .getBackup()
        .setObjectStore(
            new ObjectStoreSpec("https://s3.example", "dumps", "prod", "eu-west-1", "s3-keys"));
    db.getSpec().getBackup().setVerify(false);
    CronJob cron = new BackupCronJobDependent().desired(db, "postgres:16", false);
    PodSpec pod = cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    assertThat(c.getEnv())
        .anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("S3_BUCKET=dumps"))
        .anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("S3_PREFIX=prod"))
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("AWS_SECRET_ACCESS_KEY");
              assertThat(e.getValue()).isNull();
              assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("s3-keys");
              assertThat(e.getValueFrom().getSecretKeyRef().getKey())
                  .isEqualTo("AWS_SECRET_ACCESS_KEY");
            })
        .noneSatisfy(e -> assertThat(e.getName()).isIn("VERIFY_SCRIPT", "BACKUP_DIR"));
    assertThat(pod.getVolumes())
        .extracting(v -> v.getName())
        .containsExactlyInAnyOrder("scratch", "tmp", "scripts");
    // Without verification the bucket's dump still passes through the scratch volume.
    assertThat(c.getResources().getLimits().get("ephemeral-storage").toString()).isEqualTo("201Gi");
    assertThat(c.getResources().getLimits().get("memory").toString()).isEqualTo("512Mi");
    assertThat(cron.getSpec().getJobTemplate().getMetadata().getLabels())
        .containsEntry("cellar.dev/backup-trigger", "scheduled");
  }

  @Test
  void servicesMatchWhatTheApiServerDefaultedAndNotWhatSomeoneChanged() {
    Database db = db(Engine.POSTGRESQL, "16");
    Service desired = new HeadlessServiceDependent().desired(db, null);
    Service served =
        new ServiceBuilder(desired)
            .editMetadata()
            .addToLabels("team", "payments")
            .endMetadata()
            .editSpec()
            .withClusterIPs("None")
            .withIpFamilies("IPv4")
            .withIpFamilyPolicy("SingleStack")
            .withSessionAffinity("None")
            .withInternalTrafficPolicy("Cluster")
            .endSpec()
            .build();
    assertThat(ServiceChild.matches(desired, served)).isTrue();
    assertThat(
            ServiceChild.matches(
                desired,
                new ServiceBuilder(served)
                    .editSpec()
                    .editFirstPort()
                    .withPort(1)
                    .endPort()
                    .endSpec()
                    .build()))
        .as("an edited port")
        .isFalse();
    assertThat(
            ServiceChild.matches(
                desired,
                new ServiceBuilder(served).editSpec().addToSelector("x", "y").endSpec().build()))
        .as("an edited selector")
        .isFalse();
    assertThat(
            ServiceChild.matches(
                desired,
                new ServiceBuilder(served)
                    .editSpec()
                    .withPublishNotReadyAddresses(false)
                    .endSpec()
                    .build()))
        .isFalse();
    Service primary = new PrimaryServiceDependent().desired(db, null);
    assertThat(
            ServiceChild.matches(
                primary,
                new ServiceBuilder(primary)
                    .editSpec()
                    .withClusterIP("10.96.0.7")
                    .endSpec()
                    .build()))
        .as("the cluster IP the API server assigned")
        .isTrue();
  }

  @Test
  void backupPvcIsOwnedOnlyUnderDelete() {
    Database db = db(Engine.POSTGRESQL, "16");
    PersistentVolumeClaim pvc =
        new BackupPvcDependent()
            .desired(db, Quantities.size(db.getSpec().getBackup().getStorage()));
    assertThat(pvc.getSpec().getResources().getRequests().get("storage").toString())
        .isEqualTo("10Gi");
    assertThat(pvc.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(pvc.getMetadata().getLabels()).containsEntry(Keys.COMPONENT, "backup");
    db.getSpec().setDeletionPolicy(DeletionPolicy.Delete);
    assertThat(
            new BackupPvcDependent()
                .desired(db, Quantities.size(db.getSpec().getBackup().getStorage()))
                .getMetadata()
                .getOwnerReferences())
        .hasSize(1);
  }

  @Test
  void hibernationStopsThePodsKeepsTheClaimsAndSuspendsBackups() {
    Database db = db(Engine.POSTGRESQL, "16");
    db.getSpec().setReplicas(2);
    assertThat(statefulSet(db, Optional.empty()).getSpec().getReplicas()).isEqualTo(2);
    db.getSpec().setHibernated(true);
    StatefulSet sts = statefulSet(db, Optional.empty());
    assertThat(sts.getSpec().getReplicas()).isZero();
    assertThat(sts.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenScaled())
        .as("scaling to zero keeps the data volumes")
        .isEqualTo("Retain");

    CronJob running =
        new BackupCronJobDependent()
            .desired(
                db, "postgres:16", BackupCronJobDependent.suspended(db, Optional.empty(), true));
    assertThat(running.getSpec().getSuspend()).isTrue();
    // Woken: the CronJob stays suspended until the primary is ready, then resumes.
    db.getSpec().setHibernated(false);
    assertThat(BackupCronJobDependent.suspended(db, Optional.of(running), false)).isTrue();
    assertThat(BackupCronJobDependent.suspended(db, Optional.of(running), true)).isFalse();
    assertThat(BackupCronJobDependent.suspended(db, Optional.empty(), false))
        .as("never hibernated: backups run")
        .isFalse();
  }

  /** The scripts learn sync mode from the environment, only where it applies (replicas > 1). */
  @Test
  void syncReplicationIsInTheDatabaseContainersEnvironment() {
    for (int replicas : new int[] {1, 3}) {
      for (ReplicationMode mode : ReplicationMode.values()) {
        Database db = db(Engine.MARIADB, "10.11");
        db.getSpec().setReplicas(replicas);
        db.getSpec().setReplication(new ReplicationSpec(mode));
        List<String> env =
            statefulSet(db, Optional.empty())
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getEnv()
                .stream()
                .filter(e -> e.getName().equals("CELLAR_REPLICATION_MODE"))
                .map(e -> e.getValue())
                .toList();
        assertThat(env)
            .as("%s with %d replicas", mode, replicas)
            .isEqualTo(mode == ReplicationMode.SYNC && replicas > 1 ? List.of("sync") : List.of());
      }
    }
  }

  @Test
  void replicasPreferDifferentNodesByDefault() {
    Database db = db(Engine.POSTGRESQL, "16");
    PodSpec pod = statefulSet(db, Optional.empty()).getSpec().getTemplate().getSpec();
    WeightedPodAffinityTerm spread =
        pod.getAffinity()
            .getPodAntiAffinity()
            .getPreferredDuringSchedulingIgnoredDuringExecution()
            .get(0);
    assertThat(spread.getWeight()).isEqualTo(100);
    assertThat(spread.getPodAffinityTerm().getTopologyKey()).isEqualTo("kubernetes.io/hostname");
    assertThat(spread.getPodAffinityTerm().getLabelSelector().getMatchLabels())
        .isEqualTo(Keys.selector(db, Keys.Component.DATABASE));
    assertThat(pod.getAffinity().getNodeAffinity()).isNull();
    assertThat(pod.getTolerations()).isNullOrEmpty();
    assertThat(pod.getNodeSelector()).isNullOrEmpty();
    assertThat(pod.getPriorityClassName()).isNull();
  }

  @Test
  void schedulingFieldsPassThroughAndTheUsersAntiAffinityWins() {
    Database db = db(Engine.MARIADB, "11.4");
    Affinity affinity =
        new AffinityBuilder()
            .withNewNodeAffinity()
            .withNewRequiredDuringSchedulingIgnoredDuringExecution()
            .addNewNodeSelectorTerm()
            .addNewMatchExpression()
            .withKey("disktype")
            .withOperator("In")
            .withValues("ssd")
            .endMatchExpression()
            .endNodeSelectorTerm()
            .endRequiredDuringSchedulingIgnoredDuringExecution()
            .endNodeAffinity()
            .build();
    db.getSpec().setAffinity(affinity);
    db.getSpec()
        .setTolerations(
            List.of(
                new TolerationBuilder()
                    .withKey("dedicated")
                    .withOperator("Equal")
                    .withValue("db")
                    .withEffect("NoSchedule")
                    .build()));
    db.getSpec().setNodeSelector(Map.of("disktype", "ssd"));
    db.getSpec()
        .setTopologySpreadConstraints(
            List.of(
                new TopologySpreadConstraintBuilder()
                    .withMaxSkew(1)
                    .withTopologyKey("topology.kubernetes.io/zone")
                    .withWhenUnsatisfiable("ScheduleAnyway")
                    .build()));
    db.getSpec().setPriorityClassName("databases");
    PodSpec pod = statefulSet(db, Optional.empty()).getSpec().getTemplate().getSpec();
    assertThat(pod.getAffinity().getNodeAffinity()).isEqualTo(affinity.getNodeAffinity());
    assertThat(pod.getAffinity().getPodAntiAffinity())
        .as("added to the user's affinity")
        .isEqualTo(PodScheduling.spreadReplicas(db));
    assertThat(db.getSpec().getAffinity().getPodAntiAffinity())
        .as("the spec is left as it is")
        .isNull();
    assertThat(pod.getTolerations()).isEqualTo(db.getSpec().getTolerations());
    assertThat(pod.getNodeSelector()).containsExactly(Map.entry("disktype", "ssd"));
    assertThat(pod.getTopologySpreadConstraints())
        .isEqualTo(db.getSpec().getTopologySpreadConstraints());
    assertThat(pod.getPriorityClassName()).isEqualTo("databases");

    // The backup Jobs run where the database pods may run, without the replicas' spreading.
    PodSpec job =
        new BackupCronJobDependent()
            .desired(db, "mariadb:11.4", false)
            .getSpec()
            .getJobTemplate()
            .getSpec()
            .getTemplate()
            .getSpec();
    assertThat(job.getAffinity().getNodeAffinity()).isEqualTo(affinity.getNodeAffinity());
    assertThat(job.getAffinity().getPodAntiAffinity()).isNull();
    assertThat(job.getTolerations()).isEqualTo(db.getSpec().getTolerations());
    assertThat(job.getNodeSelector()).containsExactly(Map.entry("disktype", "ssd"));
    assertThat(job.getTopologySpreadConstraints()).isNullOrEmpty();
    assertThat(job.getPriorityClassName()).isEqualTo("databases");

    PodAntiAffinity own =
        new PodAntiAffinityBuilder()
            .addNewRequiredDuringSchedulingIgnoredDuringExecution()
            .withTopologyKey("topology.kubernetes.io/zone")
            .endRequiredDuringSchedulingIgnoredDuringExecution()
            .build();
    db.getSpec().setAffinity(new AffinityBuilder().withPodAntiAffinity(own).build());
    assertThat(
            statefulSet(db, Optional.empty())
                .getSpec()
                .getTemplate()
                .getSpec()
                .getAffinity()
                .getPodAntiAffinity())
        .as("the user's anti-affinity replaces the default")
        .isEqualTo(own);
  }
}
