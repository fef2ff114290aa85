package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.DeletionPolicy;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.topology.Topology;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The reconciler in this JVM against the local cluster: children, status, drift, deletion. */
class DatabaseReconcilerIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  static Database database(String name, Engine engine, String version) {
    Database db = new Database(null, name, new DatabaseSpec(engine, version, "1Gi"));
    return db;
  }

  Database create(Database db) {
    return operator.create(db);
  }

  static String secretValue(Secret secret, String key) {
    return new String(
        Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }

  void restrictNamespace() {
    client
        .namespaces()
        .withName(operator.getNamespace())
        .edit(
            ns -> {
              ns.getMetadata().getLabels().put("pod-security.kubernetes.io/enforce", "restricted");
              return ns;
            });
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void eachEngineBecomesReadyWithEveryChild(Engine engine) {
    restrictNamespace();
    String version =
        Map.of(Engine.POSTGRESQL, "16", Engine.MYSQL, "8.4", Engine.MARIADB, "11.4").get(engine);
    String name = "shop-" + engine.value();
    create(database(name, engine, version));
    Database db = awaitPhase(name, Phase.Ready);

    assertThat(condition(db, Type.READY).getStatus()).isEqualTo("True");
    assertThat(condition(db, Type.AVAILABLE).getStatus()).isEqualTo("True");
    assertThat(condition(db, Type.PROGRESSING).getReason()).isEqualTo("Reconciled");
    assertThat(condition(db, Type.DEGRADED).getStatus()).isEqualTo("False");
    assertThat(condition(db, Type.BACKUP_READY).getStatus()).isEqualTo("True");
    int port = engine == Engine.POSTGRESQL ? 5432 : 3306;
    assertThat(db.getStatus().getEndpoint())
        .isEqualTo(name + "." + operator.getNamespace() + ".svc.cluster.local:" + port);
    assertThat(db.getStatus().getVersion()).isEqualTo(version);
    assertThat(db.getStatus().getEngine()).isEqualTo(engine.value());
    assertThat(db.getStatus().getReadyReplicas()).isEqualTo(1);
    assertThat(db.getStatus().getCredentialsSecret()).isEqualTo(name + "-credentials");
    assertThat(db.getStatus().getCurrentPrimary()).isEqualTo(name + "-0");
    assertThat(db.getStatus().getInstances())
        .singleElement()
        .satisfies(i -> assertThat(i.getRole() + " " + i.getReady()).isEqualTo("primary true"));

    Map<String, String> labels =
        Map.of(
            Keys.NAME,
            engine.value(),
            Keys.INSTANCE,
            name,
            Keys.MANAGED_BY,
            "cellar-operator",
            Keys.PART_OF,
            "cellar");
    List<HasMetadata> owned =
        List.of(
            child(Service.class, name),
            child(Service.class, name + "-headless"),
            child(StatefulSet.class, name),
            child(io.fabric8.kubernetes.api.model.ConfigMap.class, name + "-config"),
            child(CronJob.class, name + "-backup"));
    for (HasMetadata child : owned) {
      assertThat(child.getMetadata().getLabels()).as(child.getKind()).containsAllEntriesOf(labels);
      assertThat(child.getMetadata().getOwnerReferences())
          .as(child.getKind() + " owned by the Database")
          .singleElement()
          .satisfies(o -> assertThat(o.getUid()).isEqualTo(db.getMetadata().getUid()));
    }
    // Retain (default): the data-holding children carry no owner reference.
    Secret secret = child(Secret.class, name + "-credentials");
    var backupPvc =
        child(io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class, name + "-backups");
    for (HasMetadata kept : List.of(secret, backupPvc)) {
      assertThat(kept.getMetadata().getLabels()).containsAllEntriesOf(labels);
      assertThat(kept.getMetadata().getOwnerReferences()).isNullOrEmpty();
    }
    assertThat(child(Service.class, name + "-ro")).isNull();
    assertThat(child(PodDisruptionBudget.class, name)).isNull();

    assertThat(secret.getData())
        .containsKeys("username", "password", "database", "host", "port", "uri");
    assertThat(secretValue(secret, "password")).hasSizeGreaterThanOrEqualTo(24);
    assertThat(secretValue(secret, "host"))
        .isEqualTo(name + "." + operator.getNamespace() + ".svc.cluster.local");
    assertThat(secretValue(secret, "port")).isEqualTo(String.valueOf(port));
    assertThat(secretValue(secret, "uri"))
        .contains(secretValue(secret, "password"))
        .contains(":" + port + "/");

    Service primary = child(Service.class, name);
    assertThat(primary.getSpec().getSelector()).containsEntry("cellar.dev/role", "primary");
    assertThat(child(Service.class, name + "-headless").getSpec().getClusterIP()).isEqualTo("None");

    StatefulSet sts = child(StatefulSet.class, name);
    assertThat(sts.getMetadata().getAnnotations()).containsEntry(Keys.VERSION_ANNOTATION, version);
    Container container = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    String image =
        Map.of(Engine.POSTGRESQL, "postgres", Engine.MYSQL, "mysql", Engine.MARIADB, "mariadb")
            .get(engine);
    assertThat(container.getImage()).isEqualTo(image + ":" + version);
    assertThat(container.getPorts().get(0).getContainerPort()).isEqualTo(port);
    assertThat(container.getReadinessProbe().getExec().getCommand()).isNotEmpty();
    assertThat(container.getLivenessProbe()).isNotNull();
    assertThat(container.getEnv())
        .filteredOn(e -> e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null)
        .extracting(e -> e.getValueFrom().getSecretKeyRef().getName())
        .isNotEmpty()
        // The credentials, and the exporter's account for primary-setup.sh to create.
        .containsOnly(name + "-credentials", name + "-monitoring");
    assertThat(container.getEnv())
        .extracting(EnvVar::getValue)
        .doesNotContain(secretValue(secret, "password"));
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(sts.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsUser())
        .isEqualTo(999L);
    assertThat(sts.getSpec().getVolumeClaimTemplates().get(0).getMetadata().getName())
        .isEqualTo("data");
    assertThat(sts.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted())
        .isEqualTo("Retain");

    // The pod exists (admitted under the restricted level) and its data PVC is bound.
    Pod pod = child(Pod.class, name + "-0");
    assertThat(pod).isNotNull();
    assertThat(
            child(
                    io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class,
                    "data-" + name + "-0")
                .getStatus()
                .getPhase())
        .isEqualTo("Bound");
  }

  @Test
  void unsupportedVersionFailsWithoutAStatefulSetAndLeavesOthersAlone() {
    create(database("legacy", Engine.POSTGRESQL, "9"));
    create(database("modern", Engine.POSTGRESQL, "17"));
    Database legacy = awaitPhase("legacy", Phase.Failed);
    Condition degraded = condition(legacy, Type.DEGRADED);
    assertThat(degraded.getReason()).isEqualTo("UnsupportedVersion");
    assertThat(degraded.getMessage()).contains("13, 14, 15, 16, 17, 18");
    assertThat(child(StatefulSet.class, "legacy")).isNull();
    awaitPhase("modern", Phase.Ready);
    await("an UnsupportedVersion event")
        .atMost(CONVERGE)
        .until(
            () ->
                client.v1().events().inNamespace(operator.getNamespace()).list().getItems().stream()
                    .anyMatch(
                        e ->
                            "UnsupportedVersion".equals(e.getReason())
                                && "legacy".equals(e.getInvolvedObject().getName())));
    assertThat(child(StatefulSet.class, "legacy")).isNull();
  }

  /**
   * Databases named clash and clash-ro both want a Service clash-ro: the one's read-only Service,
   * the other's primary. Children are found by name (ChildEventSource): the second Database must
   * not take the first's Service for its own and rewrite its selector.
   */
  @Test
  void aChildOfItsNameThatAnotherDatabaseOwnsIsLeftToIt() {
    create(database("clash-ro", Engine.POSTGRESQL, "16"));
    String owner = awaitPhase("clash-ro", Phase.Ready).getMetadata().getUid();
    Database second = database("clash", Engine.POSTGRESQL, "16");
    second.getSpec().setReplicas(2);
    create(second);

    await("clash names the Service it cannot have")
        .atMost(CONVERGE)
        .until(
            () -> get("clash").getStatus() != null && describe(get("clash")).contains("clash-ro"));
    await("the Service stays clash-ro's")
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () -> {
              Service taken = child(Service.class, "clash-ro");
              assertThat(taken.getMetadata().getOwnerReferences())
                  .singleElement()
                  .satisfies(o -> assertThat(o.getUid()).isEqualTo(owner));
              assertThat(taken.getSpec().getSelector()).containsEntry(Keys.INSTANCE, "clash-ro");
            });
  }

  @Test
  void deletedAndEditedChildrenAreRepaired() {
    create(database("drift", Engine.MARIADB, "11.4"));
    awaitPhase("drift", Phase.Ready);
    for (Class<? extends HasMetadata> type :
        List.of(
            Service.class,
            StatefulSet.class,
            io.fabric8.kubernetes.api.model.ConfigMap.class,
            CronJob.class)) {
      String name =
          type == io.fabric8.kubernetes.api.model.ConfigMap.class
              ? "drift-config"
              : type == CronJob.class ? "drift-backup" : "drift";
      String uid = child(type, name).getMetadata().getUid();
      client.resources(type).inNamespace(operator.getNamespace()).withName(name).delete();
      await(type.getSimpleName() + " recreated")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  child(type, name) != null
                      && !child(type, name).getMetadata().getUid().equals(uid));
    }
    client
        .services()
        .inNamespace(operator.getNamespace())
        .withName("drift")
        .edit(
            s -> {
              s.getSpec().getPorts().get(0).setPort(9999);
              return s;
            });
    await("Service port restored")
        .atMost(Duration.ofSeconds(30))
        .until(() -> child(Service.class, "drift").getSpec().getPorts().get(0).getPort() == 3306);
    client
        .apps()
        .statefulSets()
        .inNamespace(operator.getNamespace())
        .withName("drift")
        .edit(
            s -> {
              s.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("mariadb:10.6");
              return s;
            });
    await("StatefulSet image restored")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                child(StatefulSet.class, "drift")
                    .getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .get(0)
                    .getImage()
                    .equals("mariadb:11.4"));
    // The operator caches the ConfigMap without its files, only their hash: an edited file is
    // still seen and restored.
    String original =
        child(io.fabric8.kubernetes.api.model.ConfigMap.class, "drift-config")
            .getData()
            .get("cellar.cnf");
    client
        .configMaps()
        .inNamespace(operator.getNamespace())
        .withName("drift-config")
        .edit(
            c -> {
              c.getData().put("cellar.cnf", "[mysqld]\nskip-grant-tables\n");
              return c;
            });
    await("ConfigMap file restored")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                original.equals(
                    child(io.fabric8.kubernetes.api.model.ConfigMap.class, "drift-config")
                        .getData()
                        .get("cellar.cnf")));
    awaitPhase("drift", Phase.Ready);
  }

  @Test
  void anEnginesScriptsAreOneImmutableConfigMapThatNoDatabaseOwns() {
    create(database("scripts-a", Engine.MARIADB, "11.4"));
    create(database("scripts-b", Engine.MARIADB, "11.4"));
    awaitPhase("scripts-a", Phase.Ready);
    awaitPhase("scripts-b", Phase.Ready);
    String name = Topology.of(get("scripts-a")).scriptsConfigMap();
    for (String db : List.of("scripts-a", "scripts-b")) {
      assertThat(child(StatefulSet.class, db).getSpec().getTemplate().getSpec().getVolumes())
          .filteredOn(v -> v.getProjected() != null)
          .singleElement()
          .satisfies(
              v ->
                  assertThat(v.getProjected().getSources())
                      .extracting(source -> source.getConfigMap().getName())
                      .containsExactly(db + "-config", name));
      assertThat(child(ConfigMap.class, db + "-config").getData()).containsOnlyKeys("cellar.cnf");
    }
    ConfigMap scripts = child(ConfigMap.class, name);
    assertThat(scripts.getImmutable()).isTrue();
    assertThat(scripts.getData()).containsKeys("entrypoint.sh", "role.sh", "backup-job.sh");
    assertThat(scripts.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(Optional.ofNullable(scripts.getMetadata().getAnnotations()).orElse(Map.of()))
        .as("no annotation names one Database as its primary")
        .allSatisfy((key, value) -> assertThat(value).doesNotContain("scripts-"));
    assertThatThrownBy(
            () ->
                client
                    .configMaps()
                    .inNamespace(operator.getNamespace())
                    .withName(name)
                    .edit(
                        c -> {
                          c.getData().put("entrypoint.sh", "exit 1\n");
                          return c;
                        }))
        .as("the API server refuses to edit the scripts")
        .isInstanceOf(KubernetesClientException.class);

    String uid = scripts.getMetadata().getUid();
    client.configMaps().inNamespace(operator.getNamespace()).withName(name).delete();
    await("the scripts ConfigMap recreated")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                child(ConfigMap.class, name) != null
                    && !child(ConfigMap.class, name).getMetadata().getUid().equals(uid));

    // Deleting one Database collects its own ConfigMap, not the scripts the other one mounts.
    operator.delete(get("scripts-a"));
    await("scripts-a's ConfigMap collected")
        .atMost(CONVERGE)
        .until(
            () -> get("scripts-a") == null && child(ConfigMap.class, "scripts-a-config") == null);
    assertThat(child(ConfigMap.class, name)).isNotNull();
    awaitPhase("scripts-b", Phase.Ready);
  }

  @Test
  void anIdleDatabaseSeesNoWrites() {
    create(database("idle", Engine.POSTGRESQL, "16"));
    awaitPhase("idle", Phase.Ready);
    Supplier<List<String>> versions =
        () ->
            List.of(
                get("idle").getMetadata().getResourceVersion(),
                child(StatefulSet.class, "idle").getMetadata().getResourceVersion(),
                child(Service.class, "idle").getMetadata().getResourceVersion(),
                child(Service.class, "idle-headless").getMetadata().getResourceVersion(),
                child(Secret.class, "idle-credentials").getMetadata().getResourceVersion(),
                child(io.fabric8.kubernetes.api.model.ConfigMap.class, "idle-config")
                    .getMetadata()
                    .getResourceVersion(),
                child(CronJob.class, "idle-backup").getMetadata().getResourceVersion());
    // Settled: two samples five seconds apart agree (the first status writes are done).
    List<List<String>> last = new java.util.ArrayList<>(List.of(versions.get()));
    await("settled")
        .atMost(CONVERGE)
        .pollInterval(Duration.ofSeconds(5))
        .until(() -> last.set(0, versions.get()).equals(last.get(0)));
    // Each poll also touches the pod, an event that makes the operator reconcile: a reconcile with
    // nothing to do must write nothing (the headless Service was once updated on every one).
    awaitNoWrites(
        "90 idle seconds with a reconcile every 10 s",
        versions,
        Duration.ofSeconds(90),
        Duration.ofMinutes(3),
        Pod.class,
        "idle-0");
  }

  @Test
  void backupsTurnOffAndOnAndReportFailures() {
    Database db = create(database("dumps", Engine.POSTGRESQL, "16"));
    awaitPhase("dumps", Phase.Ready);

    db = get("dumps");
    db.getSpec().setBackupEnabled(false);
    operator.replace(db);
    await("CronJob deleted, PVC kept")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(child(CronJob.class, "dumps-backup")).isNull();
              assertThat(
                      child(
                          io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class,
                          "dumps-backups"))
                  .isNotNull();
              assertThat(condition(get("dumps"), Type.BACKUP_READY).getReason())
                  .isEqualTo("BackupDisabled");
            });

    db = get("dumps");
    db.getSpec().setBackupEnabled(true);
    operator.replace(db);
    await("CronJob back")
        .atMost(CONVERGE)
        .until(() -> child(CronJob.class, "dumps-backup") != null);

    CronJob cronJob = child(CronJob.class, "dumps-backup");
    runBackupJob(cronJob, "dumps-backup-good", false);
    await("lastBackupTime set to the Job's completion")
        .atMost(CONVERGE)
        .untilAsserted(
            () ->
                assertThat(get("dumps").getStatus().getLastBackupTime())
                    .isNotBlank()
                    .isEqualTo(
                        child(Job.class, "dumps-backup-good").getStatus().getCompletionTime()));

    runBackupJob(cronJob, "dumps-backup-bad", true);
    await("BackupFailed")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Condition backup = condition(get("dumps"), Type.BACKUP_READY);
              assertThat(backup.getStatus()).isEqualTo("False");
              assertThat(backup.getReason()).isEqualTo(Reason.BACKUP_FAILED.value());
              assertThat(backup.getMessage()).contains("dumps-backup-bad");
            });
    await("a BackupFailed event")
        .atMost(CONVERGE)
        .until(
            () ->
                client.v1().events().inNamespace(operator.getNamespace()).list().getItems().stream()
                    .anyMatch(e -> Reason.BACKUP_FAILED.value().equals(e.getReason())));
  }

  /**
   * Starts a Job from the CronJob's template as the CronJob controller would. kwok completes it, or
   * fails it when the pod carries the fail annotation of the local cluster's stages.
   */
  void runBackupJob(CronJob cronJob, String name, boolean fail) {
    var template = cronJob.getSpec().getJobTemplate();
    Job job =
        new JobBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(operator.getNamespace())
            .withLabels(template.getMetadata().getLabels())
            .addNewOwnerReference()
            .withApiVersion("batch/v1")
            .withKind("CronJob")
            .withName(cronJob.getMetadata().getName())
            .withUid(cronJob.getMetadata().getUid())
            .withController(true)
            .endOwnerReference()
            .endMetadata()
            .withSpec(template.getSpec())
            .editSpec()
            .withBackoffLimit(0)
            .editTemplate()
            .editOrNewMetadata()
            .addToAnnotations(fail ? Map.of(KWOK_FAIL_ANNOTATION, "true") : Map.of())
            .endMetadata()
            .endTemplate()
            .endSpec()
            .build();
    client.batch().v1().jobs().inNamespace(operator.getNamespace()).resource(job).create();
  }

  static final String KWOK_FAIL_ANNOTATION = "cellar.dev/kwok-fail";

  @Test
  void retainKeepsDataAndPasswordForTheNextDatabaseOfThatName() {
    create(database("keep", Engine.MYSQL, "8.4"));
    awaitPhase("keep", Phase.Ready);
    String password = secretValue(child(Secret.class, "keep-credentials"), "password");
    operator.delete(get("keep"));
    await("Database gone").atMost(CONVERGE).until(() -> get("keep") == null);
    await("owned children collected")
        .atMost(CONVERGE)
        .until(() -> child(StatefulSet.class, "keep") == null);
    assertThat(child(Secret.class, "keep-credentials")).isNotNull();
    assertThat(child(io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class, "keep-backups"))
        .isNotNull();
    assertThat(child(io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class, "data-keep-0"))
        .isNotNull();

    create(database("keep", Engine.MYSQL, "8.4"));
    awaitPhase("keep", Phase.Ready);
    assertThat(secretValue(child(Secret.class, "keep-credentials"), "password"))
        .isEqualTo(password);
  }

  @Test
  void switchingToRetainBeforeDeletingKeepsPasswordAndData() {
    Database db = database("switch", Engine.POSTGRESQL, "16");
    db.getSpec().setDeletionPolicy(DeletionPolicy.Delete);
    create(db);
    awaitPhase("switch", Phase.Ready);
    assertThat(child(Secret.class, "switch-credentials").getMetadata().getOwnerReferences())
        .hasSize(1);

    Database retain = get("switch");
    retain.getSpec().setDeletionPolicy(DeletionPolicy.Retain);
    operator.replace(retain);
    await("owner references dropped from the data-holding children")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(
                      child(Secret.class, "switch-credentials").getMetadata().getOwnerReferences())
                  .isNullOrEmpty();
              assertThat(
                      child(
                              io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class,
                              "switch-backups")
                          .getMetadata()
                          .getOwnerReferences())
                  .isNullOrEmpty();
              assertThat(
                      child(StatefulSet.class, "switch")
                          .getSpec()
                          .getPersistentVolumeClaimRetentionPolicy()
                          .getWhenDeleted())
                  .isEqualTo("Retain");
            });
    operator.delete(get("switch"));
    await("Database and its StatefulSet gone")
        .atMost(CONVERGE)
        .until(() -> get("switch") == null && child(StatefulSet.class, "switch") == null);
    assertThat(child(Secret.class, "switch-credentials")).isNotNull();
    assertThat(child(io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class, "switch-backups"))
        .isNotNull();
    assertThat(child(io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class, "data-switch-0"))
        .isNotNull();
  }

  @Test
  void deletePolicyLeavesNothing() {
    Database db = database("gone", Engine.POSTGRESQL, "16");
    db.getSpec().setDeletionPolicy(DeletionPolicy.Delete);
    create(db);
    awaitPhase("gone", Phase.Ready);
    operator.delete(get("gone"));
    await("everything collected")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(get("gone")).isNull();
              assertThat(child(Secret.class, Topology.of(db).credentialsSecret())).isNull();
              assertThat(
                      child(
                          io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class,
                          Topology.of(db).backupClaim()))
                  .isNull();
              assertThat(
                      child(
                          io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class,
                          "data-gone-0"))
                  .isNull();
              assertThat(child(StatefulSet.class, Topology.of(db).statefulSet())).isNull();
              assertThat(
                      child(
                          io.fabric8.kubernetes.api.model.ConfigMap.class,
                          Topology.of(db).configMap()))
                  .isNull();
              assertThat(child(Service.class, Topology.of(db).headlessService())).isNull();
              assertThat(child(CronJob.class, Topology.of(db).backupCronJob())).isNull();
            });
  }
}
