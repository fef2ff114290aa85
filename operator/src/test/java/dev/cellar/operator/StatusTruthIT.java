package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Failures a user can act on are named in Degraded with the API server's own words, against a real
 * API server: a child it refuses, pods the StatefulSet cannot create, a Secret without the keys the
 * pods read. Each recovers once the cause is gone. A claim that only waits for its provisioner is
 * not called a failure within the minute an unscheduled pod gets.
 */
class StatusTruthIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  Condition awaitDegraded(String name, String reason) {
    await(name + " Degraded " + reason)
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Database db = get(name);
              assertThat(db.getStatus()).isNotNull();
              assertThat(condition(db, Type.DEGRADED).getReason())
                  .as(describe(db))
                  .isEqualTo(reason);
            });
    return condition(get(name), Type.DEGRADED);
  }

  ResourceQuota quota(String name, String resource) {
    return operator.create(
        new ResourceQuotaBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .addToHard(resource, new io.fabric8.kubernetes.api.model.Quantity("0"))
            .endSpec()
            .build());
  }

  @Test
  void aChildTheApiServerRefusesIsNamedWithItsMessageAndRecovers() {
    ResourceQuota none = quota("no-statefulsets", "count/statefulsets.apps");
    operator.create(
        new Database(null, "refused", new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi")));
    Condition degraded = awaitDegraded("refused", "ReconcileError");
    assertThat(degraded.getMessage())
        .startsWith("statefulset: ")
        .contains("statefulsets.apps \"refused\" is forbidden", "exceeded quota")
        .doesNotContain("Exception(s) during workflow execution")
        .doesNotContain("\n");
    assertThat(get("refused").getStatus().getPhase()).isEqualTo(Phase.Failed);
    assertThat(hasEvent("refused", "ReconcileError")).isTrue();
    operator.delete(none);
    awaitPhase("refused", Phase.Ready);
  }

  @Test
  void podsTheStatefulSetCannotCreateAreNamed() {
    ResourceQuota none = quota("no-pods", "pods");
    operator.create(new Database(null, "nopods", new DatabaseSpec(Engine.MARIADB, "11.4", "1Gi")));
    Condition degraded = awaitDegraded("nopods", "PodCreationFailed");
    assertThat(degraded.getMessage())
        .contains("StatefulSet nopods cannot create its pods", "exceeded quota");
    operator.delete(none);
    awaitPhase("nopods", Phase.Ready);
  }

  @Test
  void aUserSecretWithoutTheKeysThePodsReadIsNamed() {
    operator.create(
        new SecretBuilder()
            .withNewMetadata()
            .withName("mine-credentials")
            .endMetadata()
            .addToStringData("username", "app")
            .addToStringData("database", "mine")
            .build());
    operator.create(new Database(null, "mine", new DatabaseSpec(Engine.MARIADB, "11.4", "1Gi")));
    Condition degraded = awaitDegraded("mine", "CredentialsIncomplete");
    assertThat(degraded.getMessage())
        .contains("Secret mine-credentials lacks the key(s) password, root-password");
    Secret secret = operator.get(Secret.class, "mine-credentials");
    secret.setStringData(
        java.util.Map.of("password", "s3cret-app", "root-password", "s3cret-root"));
    operator.replace(secret);
    awaitPhase("mine", Phase.Ready);
  }

  @Test
  void aStorageClassThatDoesNotExistIsNamed() {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.setStorageClassName("no-such-class");
    operator.create(new Database(null, "noclass", spec));
    awaitDegraded("noclass", "VolumePending");
    // Both claims wait on the class; the backups claim's Event may come first, and the data
    // claim, named first whenever its Event is there, takes over the message once it comes.
    await("the data claim named")
        .atMost(CONVERGE)
        .untilAsserted(
            () ->
                assertThat(condition(get("noclass"), Type.DEGRADED).getMessage())
                    .contains(
                        "PVC data-noclass-0 is Pending", "no-such-class", "spec.storageClassName"));
    assertThat(get("noclass").getStatus().getPhase()).isEqualTo(Phase.Failed);
  }

  @Test
  void aClaimWaitingForItsClassesProvisionerIsNotCalledUnschedulableWithinAMinute() {
    // A class whose provisioner does not run: its claims stay Pending with only Normal Events,
    // as when a busy provisioner has not got to them yet.
    StorageClass silent =
        client
            .resource(
                new StorageClassBuilder()
                    .withNewMetadata()
                    .withName("silent-" + operator.getNamespace())
                    .endMetadata()
                    .withProvisioner("cellar.dev/no-such-provisioner")
                    .withVolumeBindingMode("Immediate")
                    .build())
            .create();
    try {
      DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
      spec.setStorageClassName(silent.getMetadata().getName());
      operator.create(new Database(null, "waiting", spec));
      await("the pod unschedulable for its unbound claim")
          .atMost(CONVERGE)
          .until(
              () ->
                  Optional.ofNullable(operator.get(Pod.class, "waiting-0"))
                      .map(Pod::getStatus)
                      .map(PodStatus::getConditions)
                      .orElse(List.of())
                      .stream()
                      .anyMatch(
                          c ->
                              "PodScheduled".equals(c.getType())
                                  && "Unschedulable".equals(c.getReason())
                                  && String.valueOf(c.getMessage()).contains("unbound immediate")));
      // The pod can be turned away before the operator writes the first status.
      awaitPhase("waiting", Phase.Provisioning);
      // Past the minute an unscheduled pod gets, it still only waits for the provisioner.
      await("still provisioning after 70 s")
          .during(Duration.ofSeconds(70))
          .atMost(Duration.ofSeconds(100))
          .untilAsserted(
              () -> {
                Database db = get("waiting");
                assertThat(db.getStatus().getPhase())
                    .as(describe(db))
                    .isEqualTo(Phase.Provisioning);
                assertThat(condition(db, Type.DEGRADED).getStatus()).isEqualTo("False");
              });
      assertThat(hasEvent("waiting", "Unschedulable")).isFalse();
    } finally {
      client.resource(silent).delete();
    }
  }
}
