package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A rolling update on kwok, in Cellar's order: a resources change replaces the replicas first, then
 * one switchover moves the primary to an updated replica, then the former primary is replaced last.
 * The database side is a fake agent that records what it is asked.
 */
class RollingUpdateIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  /** Everything in order: "delete x", "demote x", "promote x", "restart x". */
  static final List<String> log = new CopyOnWriteArrayList<>();

  static final InstanceAgent FAKE =
      new InstanceAgent() {
        @Override
        public OptionalLong position(String namespace, String pod) {
          return OptionalLong.of(100);
        }

        @Override
        public Optional<String> promote(String namespace, String pod) {
          log.add("promote " + pod);
          return Optional.empty();
        }

        @Override
        public OptionalLong demote(String namespace, String pod) {
          log.add("demote " + pod);
          return OptionalLong.of(50);
        }

        @Override
        public void restart(String namespace, String pod) {
          log.add("restart " + pod);
        }

        @Override
        public Optional<String> applyCredentials(String namespace, String pod, String input) {
          return Optional.of("not expected here");
        }
      };

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client, FAKE);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  @Test
  void replicasFirstThenOneSwitchoverThenTheFormerPrimary() {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.setReplicas(3);
    spec.setBackupEnabled(false);
    operator.create(new Database(null, "roll", spec));
    Database db = awaitPhase("roll", Phase.Ready);
    assertThat(db.getStatus().getCurrentPrimary()).isEqualTo("roll-0");

    Watch watch =
        client
            .pods()
            .inNamespace(operator.getNamespace())
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Pod pod) {
                    if (action == Action.DELETED) {
                      log.add("delete " + pod.getMetadata().getName());
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
    try {
      // A resources change: a new pod template for every pod.
      client
          .resources(Database.class)
          .inNamespace(operator.getNamespace())
          .withName("roll")
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"spec\":{\"resources\":{\"requests\":{\"cpu\":\"150m\"}}}}");
      await("the rolling update names what it does")
          .atMost(CONVERGE)
          .untilAsserted(
              () ->
                  assertThat(condition(get("roll"), Type.PROGRESSING).getReason())
                      .isEqualTo("RollingUpdate"));
      await("every pod replaced, the primary moved once")
          .atMost(CONVERGE.multipliedBy(2))
          .untilAsserted(
              () -> {
                assertThat(log).contains("delete roll-0");
                assertThat(condition(get("roll"), Type.PROGRESSING).getReason())
                    .isEqualTo("Reconciled");
              });
    } finally {
      watch.close();
    }
    Database after = awaitPhase("roll", Phase.Ready);
    assertThat(after.getStatus().getCurrentPrimary()).isEqualTo("roll-1");
    List<String> deletes = log.stream().filter(l -> l.startsWith("delete ")).toList();
    // Replicas first (highest ordinal first), then the former primary, each once.
    assertThat(deletes).containsExactly("delete roll-2", "delete roll-1", "delete roll-0");
    // One switchover, after both replicas were replaced and before the former primary was.
    assertThat(log.stream().filter(l -> l.startsWith("promote ")).toList())
        .containsExactly("promote roll-1");
    assertThat(log.indexOf("demote roll-0")).isGreaterThan(log.indexOf("delete roll-1"));
    assertThat(log.indexOf("promote roll-1")).isLessThan(log.indexOf("delete roll-0"));
    assertThat(hasEvent("roll", "SwitchedOver")).isTrue();
  }
}
