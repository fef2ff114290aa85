package dev.cellar.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cellar.api.v1.BackupRecord;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.InstanceStatus;
import dev.cellar.api.v1.Phase;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusViewTest {
  static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

  static Database database() {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.setReplicas(2);
    Database db = new Database("shop", "orders", spec);
    db.getMetadata().setGeneration(3L);
    DatabaseStatus status = new DatabaseStatus();
    status.setPhase(Phase.Ready);
    status.setObservedGeneration(3L);
    status.setVersion("16");
    status.setReplicas(2);
    status.setReadyReplicas(2);
    status.setCurrentPrimary("orders-1");
    status.setEndpoint("orders.shop.svc.cluster.local:5432");
    status.setReadOnlyEndpoint("orders-ro.shop.svc.cluster.local:5432");
    status.setCredentialsSecret("orders-credentials");
    status.setInstances(
        List.of(
            new InstanceStatus("orders-0", "replica", true, 3L),
            new InstanceStatus("orders-1", "primary", true)));
    status
        .getConditions()
        .add(
            new ConditionBuilder()
                .withType("Ready")
                .withStatus("True")
                .withReason("Reconciled")
                .withMessage("every replica is ready")
                .withLastTransitionTime("2026-11-23T11:55:00Z")
                .build());
    status
        .getConditions()
        .add(
            new ConditionBuilder()
                .withType("Degraded")
                .withStatus("False")
                .withReason("Reconciled")
                .withMessage("nothing needs attention")
                .withLastTransitionTime("2026-11-23T09:00:00Z")
                .build());
    BackupRecord last =
        new BackupRecord(
            "orders-20261123T020000Z.sql.gz",
            "pvc://orders-backups/orders-20261123T020000Z.sql.gz",
            "2026-11-23T02:00:00Z",
            "2026-11-23T02:00:07Z",
            3_456_789L,
            "scheduled",
            "orders-backup-1");
    status.setLastBackup(last);
    status.setLastVerifiedBackup(last);
    db.setStatus(status);
    return db;
  }

  static Pod pod(String name, String role, boolean ready) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("shop")
        .addToLabels("cellar.dev/role", role)
        .withCreationTimestamp("2026-11-23T10:00:00Z")
        .endMetadata()
        .withNewSpec()
        .withNodeName("node-a")
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .addNewContainerStatus()
        .withName("database")
        .withRestartCount(1)
        .endContainerStatus()
        .endStatus()
        .build();
  }

  static List<Event> events() {
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      events.add(
          new EventBuilder()
              .withNewMetadata()
              .withName("e" + i)
              .endMetadata()
              .withType(i == 11 ? "Warning" : "Normal")
              .withReason("Reason" + i)
              .withMessage("message " + i + "\nsecond line")
              .withLastTimestamp(String.format("2026-11-23T11:%02d:00Z", 10 + i))
              .withNewInvolvedObject()
              .withKind("Database")
              .withName("orders")
              .endInvolvedObject()
              .build());
    }
    return events;
  }

  @Test
  void theScreenShowsPhaseConditionsPodsEndpointsBackupsAndTheNewestEvents() {
    String text =
        new StatusView(
                database(),
                List.of(pod("orders-1", "primary", true), pod("orders-0", "replica", false)),
                events(),
                NOW,
                false)
            .render();
    assertThat(text)
        .contains("Database orders  (namespace shop)")
        .contains("Engine         postgresql 16")
        .contains("Phase          Ready")
        .contains("Instances      2/2 ready")
        .contains("Primary        orders-1")
        .contains("Read-write     orders.shop.svc.cluster.local:5432")
        .contains("Read-only      orders-ro.shop.svc.cluster.local:5432")
        .contains("Credentials    orders-credentials (Secret)");
    assertThat(text).containsPattern("Ready +True +Reconciled +5m +every replica is ready");
    Database rotated = database();
    rotated
        .getStatus()
        .setCredentials(
            new dev.cellar.api.v1.CredentialsStatus("0123456789abcdef", "2026-11-23T11:00:00Z"));
    assertThat(new StatusView(rotated, List.of(), List.of(), NOW, false).render())
        .contains("Credentials    orders-credentials (Secret), passwords last rotated 60m ago");
    assertThat(text).containsPattern("Degraded +False +Reconciled +3h");
    // Pods by name, with the operator's role label, their own readiness and a replica's lag.
    assertThat(text).containsPattern("orders-0 +replica +false +3s +Running +1 +node-a +2h");
    assertThat(text).containsPattern("orders-1 +primary +true +- +Running");
    assertThat(text.indexOf("orders-0  ")).isLessThan(text.indexOf("orders-1  "));
    assertThat(text)
        .contains("Last           orders-20261123T020000Z.sql.gz, 9h ago, scheduled, 3.3 MiB")
        .contains("Last verified  yes, the last backup restored");
    assertThat(text)
        .contains("Schedule       0 2 * * *, keep 7, to volume orders-backups, verified");
    // The ten newest Events, one line each.
    assertThat(text).doesNotContain("Reason0 ", "Reason1 ").contains("Reason2", "Reason11");
    assertThat(text).contains("database/orders  message 11 second line");
    assertThat(text).doesNotContain("\u001B[");
  }

  @Test
  void coloursOnlyWhenAskedAndTheyDoNotBreakTheColumns() {
    String text =
        new StatusView(database(), List.of(pod("orders-1", "primary", true)), List.of(), NOW, true)
            .render();
    assertThat(text).contains("\u001B[32mReady\u001B[0m", "\u001B[32mTrue\u001B[0m");
    assertThat(StatusView.Style.visible(text))
        .containsPattern("Ready +True +Reconciled")
        .contains("Events\n  none recent");
  }

  @Test
  void aStaleOrEmptyStatusIsSaidSo() {
    Database db = database();
    db.getMetadata().setGeneration(4L);
    assertThat(new StatusView(db, List.of(), List.of(), NOW, false).render())
        .contains("Ready  (status describes generation 3 of 4)");
    Database fresh = new Database("shop", "new", new DatabaseSpec(Engine.MYSQL, "8.4", "1Gi"));
    String text = new StatusView(fresh, List.of(), List.of(), NOW, false).render();
    assertThat(text)
        .contains("Phase          Unknown")
        .contains("mysql 8.4 (not running yet)")
        .contains("none yet (the operator has not reconciled this Database)")
        .contains("Last           none");
    fresh.getSpec().setHibernated(true);
    assertThat(new StatusView(fresh, List.of(), List.of(), NOW, false).render())
        .contains("none: hibernated (kubectl cellar wake new)");
  }

  @Test
  void aPodTheStatusNamesButThatIsGoneIsListedAsMissing() {
    List<?> instances =
        new StatusView(database(), List.of(pod("orders-1", "primary", true)), List.of(), NOW, false)
            .instances();
    assertThat(instances).hasSize(2);
    assertThat(instances.get(1).toString()).contains("orders-0", "Missing");
  }

  @Test
  void theDataFormIsJsonWithTheWholeDatabase() throws Exception {
    StatusView view =
        new StatusView(database(), List.of(pod("orders-1", "primary", true)), events(), NOW, false);
    JsonNode json = new ObjectMapper().readTree(Serialization.asJson(view.data()));
    assertThat(json.at("/database/metadata/name").asText()).isEqualTo("orders");
    assertThat(json.at("/database/status/phase").asText()).isEqualTo("Ready");
    assertThat(json.at("/database/spec/engine").asText()).isEqualTo("postgresql");
    assertThat(json.at("/instances/0/name").asText()).isEqualTo("orders-1");
    assertThat(json.at("/instances/0/role").asText()).isEqualTo("primary");
    assertThat(json.at("/instances/0/ready").asBoolean()).isTrue();
    assertThat(json.get("events")).hasSize(10);
    assertThat(Serialization.asYaml(view.data())).contains("currentPrimary: \"orders-1\"");
  }

  @Test
  void sizesAndAges() {
    assertThat(StatusView.size(512)).isEqualTo("512 B");
    assertThat(StatusView.size(2048)).isEqualTo("2.0 KiB");
    assertThat(StatusView.shortDuration(java.time.Duration.ofSeconds(119))).isEqualTo("119s");
    assertThat(StatusView.shortDuration(java.time.Duration.ofHours(47))).isEqualTo("47h");
    assertThat(StatusView.shortDuration(java.time.Duration.ofDays(3))).isEqualTo("3d");
  }
}
