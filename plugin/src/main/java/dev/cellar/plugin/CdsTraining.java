package dev.cellar.plugin;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.BackupRecord;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.InstanceStatus;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ConfigMapListBuilder;
import io.fabric8.kubernetes.api.model.EventListBuilder;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.SecretListBuilder;
import io.fabric8.kubernetes.api.model.ServiceListBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetListBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobListBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobListBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetListBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.List;

/**
 * Run once, when the launcher writes the class data sharing archive ({@code
 * -Dcellar.cds.train=true} with {@code -XX:ArchiveClassesAtExit}): after the user's command, it
 * reads and writes the kinds the commands handle, so that the archive holds their classes whatever
 * the first command was. Nothing is sent anywhere.
 */
final class CdsTraining {
  private CdsTraining() {}

  static void run() {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("db-0")
            .addToLabels(Keys.ROLE, Keys.ROLE_PRIMARY)
            .withCreationTimestamp("2026-01-01T00:00:00Z")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName(ChildNames.DATABASE_CONTAINER)
            .addNewEnv()
            .withName("PASSWORD")
            .withValue("x")
            .endEnv()
            .endContainer()
            .endSpec()
            .withNewStatus()
            .withPhase("Running")
            .addNewCondition()
            .withType("Ready") // not Cellar's: the pod's own condition
            .withStatus("True")
            .endCondition()
            .addNewContainerStatus()
            .withName(ChildNames.DATABASE_CONTAINER)
            .withRestartCount(0)
            .withNewState()
            .withNewRunning()
            .endRunning()
            .endState()
            .endContainerStatus()
            .endStatus()
            .build();
    List<KubernetesResource> lists =
        List.of(
            new PodListBuilder().addToItems(pod).build(),
            new EventListBuilder()
                .addNewItem()
                .withNewMetadata()
                .withName("e")
                .endMetadata()
                .withReason(Reason.CREATED.value())
                .withNewInvolvedObject()
                .withKind("Database")
                .withName("db")
                .endInvolvedObject()
                .withLastTimestamp("2026-01-01T00:00:00Z")
                .endItem()
                .build(),
            new SecretListBuilder()
                .addNewItem()
                .withNewMetadata()
                .withName("s")
                .endMetadata()
                .addToData(Keys.Credentials.PASSWORD, "eA==")
                .endItem()
                .build(),
            new StatefulSetListBuilder()
                .addNewItem()
                .withNewMetadata()
                .withName("db")
                .endMetadata()
                .withNewSpec()
                .withNewTemplate()
                .withSpec(pod.getSpec())
                .endTemplate()
                .endSpec()
                .endItem()
                .build(),
            new ServiceListBuilder()
                .addNewItem()
                .withNewMetadata()
                .withName("db")
                .endMetadata()
                .endItem()
                .build(),
            new ConfigMapListBuilder()
                .addNewItem()
                .withNewMetadata()
                .withName("c")
                .endMetadata()
                .endItem()
                .build(),
            new PersistentVolumeClaimListBuilder()
                .addNewItem()
                .withNewMetadata()
                .withName("data-db-0")
                .endMetadata()
                .endItem()
                .build(),
            new CronJobListBuilder()
                .addNewItem()
                .withNewMetadata()
                .withName("b")
                .endMetadata()
                .endItem()
                .build(),
            new JobListBuilder()
                .addNewItem()
                .withNewMetadata()
                .withName("j")
                .endMetadata()
                .endItem()
                .build(),
            new PodDisruptionBudgetListBuilder()
                .addNewItem()
                .withNewMetadata()
                .withName("db")
                .endMetadata()
                .endItem()
                .build());
    for (KubernetesResource list : lists) {
      Serialization.unmarshal(Serialization.asJson(list), list.getClass());
      Serialization.asYaml(list);
    }
    Database db = new Database("ns", "db", new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi"));
    DatabaseStatus status = new DatabaseStatus();
    status
        .getConditions()
        .add(new ConditionBuilder().withType(Type.READY.value()).withStatus("True").build());
    status.setInstances(List.of(new InstanceStatus("db-0", Keys.ROLE_PRIMARY, true)));
    status.setLastBackup(
        new BackupRecord("db-20260101T000000Z.sql.gz", null, null, null, 1L, null, null));
    db.setStatus(status);
    db = Serialization.unmarshal(Serialization.asJson(db), Database.class);
    var events = ((io.fabric8.kubernetes.api.model.EventList) lists.get(1)).getItems();
    StatusView view = new StatusView(db, List.of(pod), events, Instant.now(), true);
    view.render();
    Serialization.asJson(view.data());
    Serialization.asYaml(view.data());
    new Redactor().object(pod);
  }
}
