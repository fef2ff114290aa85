package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** spec.hibernated on the local cluster. */
class HibernationIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  Map<String, String> claimUids(String name) {
    return Map.of(
        name + "-0",
            child(PersistentVolumeClaim.class, "data-" + name + "-0").getMetadata().getUid(),
        name + "-1",
            child(PersistentVolumeClaim.class, "data-" + name + "-1").getMetadata().getUid());
  }

  @Test
  void hibernationStopsEveryPodKeepsTheVolumesAndWakingBringsThemBack() {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.setReplicas(2);
    operator.create(new Database(null, "sleepy", spec));
    awaitPhase("sleepy", Phase.Ready);
    Map<String, String> claims = claimUids("sleepy");
    String secretUid = child(Secret.class, "sleepy-credentials").getMetadata().getUid();

    edit("sleepy", s -> s.setHibernated(true));
    await("no pod, phase Hibernated, backups paused")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(pods("sleepy")).isEmpty();
              Database db = get("sleepy");
              assertThat(db.getStatus().getPhase()).isEqualTo(Phase.Hibernated);
              assertThat(condition(db, Type.PROGRESSING).getReason())
                  .isEqualTo(Reason.HIBERNATED.value());
              assertThat(child(CronJob.class, "sleepy-backup").getSpec().getSuspend()).isTrue();
            });
    Database hibernated = get("sleepy");
    assertThat(condition(hibernated, Type.READY).getReason()).isEqualTo("Hibernated");
    assertThat(condition(hibernated, Type.AVAILABLE).getStatus()).isEqualTo("False");
    assertThat(condition(hibernated, Type.DEGRADED).getStatus()).isEqualTo("False");
    assertThat(condition(hibernated, Type.BACKUP_READY).getReason())
        .isEqualTo(Reason.BACKUPS_PAUSED.value());
    assertThat(child(StatefulSet.class, "sleepy").getSpec().getReplicas()).isZero();
    assertThat(claimUids("sleepy")).as("the volumes stay").isEqualTo(claims);
    assertThat(child(Secret.class, "sleepy-credentials").getMetadata().getUid())
        .isEqualTo(secretUid);
    assertThat(child(Service.class, "sleepy")).isNotNull();
    assertThat(child(Service.class, "sleepy-ro")).isNotNull();
    assertThat(child(ConfigMap.class, "sleepy-config")).isNotNull();
    await("Hibernating and Hibernated events")
        .atMost(CONVERGE)
        .until(() -> hasEvent("sleepy", "Hibernating") && hasEvent("sleepy", "Hibernated"));
    idleWhileHibernated("sleepy");

    edit("sleepy", s -> s.setHibernated(false));
    Database awake = awaitPhase("sleepy", Phase.Ready);
    assertThat(awake.getStatus().getReadyReplicas()).isEqualTo(2);
    assertThat(claimUids("sleepy")).as("the same volumes").isEqualTo(claims);
    for (Pod pod : pods("sleepy")) {
      assertThat(pod.getSpec().getVolumes())
          .anySatisfy(
              v ->
                  assertThat(v.getPersistentVolumeClaim().getClaimName())
                      .isEqualTo("data-" + pod.getMetadata().getName()));
    }
    await("backups resume")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(child(CronJob.class, "sleepy-backup").getSpec().getSuspend()).isFalse();
              assertThat(condition(get("sleepy"), Type.BACKUP_READY).getStatus()).isEqualTo("True");
            });
    await("Waking event")
        .atMost(CONVERGE)
        .until(() -> hasEvent("sleepy", "Waking") && hasEvent("sleepy", "Ready"));
  }

  /**
   * Nothing is written while hibernated, though reconciles keep coming: each poll touches the
   * StatefulSet (an event that makes the operator reconcile), so its resourceVersion moves but its
   * generation must not.
   */
  void idleWhileHibernated(String name) {
    Supplier<List<String>> versions =
        () ->
            List.of(
                get(name).getMetadata().getResourceVersion(),
                String.valueOf(child(StatefulSet.class, name).getMetadata().getGeneration()),
                child(Service.class, name).getMetadata().getResourceVersion(),
                child(Service.class, name + "-headless").getMetadata().getResourceVersion(),
                child(Secret.class, name + "-credentials").getMetadata().getResourceVersion(),
                child(ConfigMap.class, name + "-config").getMetadata().getResourceVersion(),
                child(CronJob.class, name + "-backup").getMetadata().getResourceVersion());
    awaitNoWrites(
        "40 idle seconds while hibernated, with a reconcile every 10 s",
        versions,
        Duration.ofSeconds(40),
        Duration.ofMinutes(2),
        StatefulSet.class,
        name);
  }
}
