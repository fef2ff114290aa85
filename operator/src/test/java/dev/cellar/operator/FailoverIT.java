package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.FailoverSpec;
import dev.cellar.api.v1.Phase;
import dev.cellar.api.v1.ReplicationMode;
import dev.cellar.api.v1.ReplicationSpec;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.operator.replication.ReplicationLag;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The failover state machine on kwok, where no server runs: the database side is a fake agent
 * (positions by pod, promotions recorded). The primary's pod is deleted and kept from coming back
 * (a ResourceQuota refuses the StatefulSet's new pod): after spec.failover.delaySeconds the most
 * advanced ready replica is promoted, status.currentPrimary and the role labels follow, and the
 * {@code <name>} Service reaches the new primary; once the quota goes, the old primary's pod
 * returns labelled replica.
 */
class FailoverIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();
  static final List<String> promoted = new CopyOnWriteArrayList<>();
  static final List<String> demoted = new CopyOnWriteArrayList<>();
  static final List<String> restarted = new CopyOnWriteArrayList<>();
  static final Map<String, Long> positions =
      new ConcurrentHashMap<>(Map.of("ha-1", 10L, "ha-2", 20L, "sy-1", 30L));
  static final Map<String, Long> lags = new ConcurrentHashMap<>();

  /** Pods whose promotion fails, with what the agent says. */
  static final Map<String, String> promoteFails = new ConcurrentHashMap<>();

  static final InstanceAgent FAKE =
      new InstanceAgent() {
        @Override
        public OptionalLong position(String namespace, String pod) {
          return positions.containsKey(pod)
              ? OptionalLong.of(positions.get(pod))
              : OptionalLong.empty();
        }

        @Override
        public OptionalLong lag(String namespace, String pod) {
          Long lag = lags.get(pod);
          return lag == null ? OptionalLong.empty() : OptionalLong.of(lag);
        }

        @Override
        public Optional<String> promote(String namespace, String pod) {
          promoted.add(pod);
          return Optional.ofNullable(promoteFails.get(pod));
        }

        @Override
        public OptionalLong demote(String namespace, String pod) {
          demoted.add(pod);
          return OptionalLong.of(5);
        }

        @Override
        public void restart(String namespace, String pod) {
          restarted.add(pod);
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

  Pod pod(String name) {
    return operator.get(Pod.class, name);
  }

  List<String> endpoints(String service) {
    return client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(operator.getNamespace())
        .withLabel("kubernetes.io/service-name", service)
        .list()
        .getItems()
        .stream()
        .flatMap(
            s ->
                s.getEndpoints() == null
                    ? java.util.stream.Stream.empty()
                    : s.getEndpoints().stream())
        .filter(
            e -> e.getConditions() == null || !Boolean.FALSE.equals(e.getConditions().getReady()))
        .map(e -> e.getTargetRef().getName())
        .sorted()
        .toList();
  }

  /** The fake's calls for the pods of Database {@code name} (the tests share the fake). */
  static List<String> ofDatabase(List<String> calls, String name) {
    return calls.stream().filter(pod -> pod.startsWith(name + "-")).toList();
  }

  /**
   * Keeps the StatefulSet from creating another pod (a lost node, say), then deletes one; {@link
   * #allowPods} lifts it. The namespace is the test class's: each test lifts it before it ends.
   */
  void losePod(String pod) {
    client
        .resource(
            new ResourceQuotaBuilder()
                .withNewMetadata()
                .withName("no-more-pods")
                .withNamespace(operator.getNamespace())
                .endMetadata()
                .withNewSpec()
                .addToHard("pods", new Quantity("0"))
                .endSpec()
                .build())
        .create();
    client.pods().inNamespace(operator.getNamespace()).withName(pod).withGracePeriod(0).delete();
  }

  void allowPods() {
    client.resourceQuotas().inNamespace(operator.getNamespace()).withName("no-more-pods").delete();
  }

  void switchoverTo(String pod) {
    client
        .resources(Database.class)
        .inNamespace(operator.getNamespace())
        .withName("ha")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\""
                + Keys.SWITCHOVER_ANNOTATION
                + "\":\""
                + pod
                + "\"}}}");
  }

  /**
   * Each replica's lag, as its server says, is polled into status.instances; a change is written
   * once, and a steady lag costs no write at all.
   */
  @Test
  void eachReplicasLagIsPolledIntoTheStatusWithoutIdleWrites() {
    lags.put("lag-1", 0L);
    lags.put("lag-2", 0L);
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.setReplicas(3);
    spec.setBackupEnabled(false);
    operator.create(new Database(null, "lag", spec));
    awaitPhase("lag", Phase.Ready);
    Duration poll = ReplicationLag.period().plusSeconds(15);
    await("both replicas' lag in the status")
        .atMost(poll)
        .untilAsserted(() -> assertThat(lagsOf("lag")).containsExactly("lag-1=0", "lag-2=0"));

    // A new lag is written; a replica that cannot say loses its value (not a stale one).
    lags.put("lag-2", 42L);
    lags.remove("lag-1");
    await("the new lag of lag-2, none for lag-1")
        .atMost(poll)
        .untilAsserted(() -> assertThat(lagsOf("lag")).containsExactly("lag-1=null", "lag-2=42"));

    // Nothing changes now: a whole poll period and more without a write.
    String version = get("lag").getMetadata().getResourceVersion();
    await("no write while the lag stays")
        .during(ReplicationLag.period().plusSeconds(5))
        .atMost(ReplicationLag.period().plusSeconds(15))
        .until(() -> get("lag").getMetadata().getResourceVersion().equals(version));
  }

  List<String> lagsOf(String name) {
    return get(name).getStatus().getInstances().stream()
        .filter(i -> "replica".equals(i.getRole()))
        .map(i -> i.getName() + "=" + i.getReplicationLagSeconds())
        .toList();
  }

  @Test
  void aLostPrimaryIsReplacedByTheMostAdvancedReplica() {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.setReplicas(3);
    spec.setBackupEnabled(false);
    spec.setFailover(new FailoverSpec(true, 2));
    operator.create(new Database(null, "ha", spec));
    Database db = awaitPhase("ha", Phase.Ready);
    assertThat(db.getStatus().getCurrentPrimary()).isEqualTo("ha-0");
    await("roles and Services")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(pod("ha-0").getMetadata().getLabels()).containsEntry(Keys.ROLE, "primary");
              // Bootstrapping an empty volume is allowed only before the first Ready.
              assertThat(pod("ha-0").getMetadata().getAnnotations())
                  .doesNotContainKey(Keys.BOOTSTRAP_ANNOTATION);
              assertThat(pod("ha-1").getMetadata().getLabels()).containsEntry(Keys.ROLE, "replica");
              assertThat(endpoints("ha")).containsExactly("ha-0");
              assertThat(endpoints("ha-ro")).containsExactly("ha-1", "ha-2");
            });

    // The primary's pod goes, and a quota keeps the StatefulSet from creating it again.
    losePod("ha-0");

    await("ha-2 (position 20) promoted")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Database now = get("ha");
              assertThat(now.getStatus().getCurrentPrimary()).isEqualTo("ha-2");
              assertThat(condition(now, Type.AVAILABLE).getReason()).isEqualTo("FailedOver");
              assertThat(condition(now, Type.AVAILABLE).getMessage())
                  .contains("primary ha-0 unavailable", "promoted ha-2 (position 20");
              assertThat(pod("ha-2").getMetadata().getLabels()).containsEntry(Keys.ROLE, "primary");
              assertThat(endpoints("ha")).containsExactly("ha-2");
              assertThat(endpoints("ha-ro")).containsExactly("ha-1");
            });
    assertThat(ofDatabase(promoted, "ha")).containsExactly("ha-2");
    assertThat(hasEvent("ha", "FailedOver")).isTrue();

    // The old primary's pod comes back, as a replica of the new primary.
    allowPods();
    await("ha-0 back as a replica")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Pod back = pod("ha-0");
              assertThat(back).isNotNull();
              assertThat(back.getMetadata().getLabels()).containsEntry(Keys.ROLE, "replica");
              assertThat(endpoints("ha-ro")).containsExactly("ha-0", "ha-1");
              assertThat(endpoints("ha")).containsExactly("ha-2");
            });
    Database after = awaitPhase("ha", Phase.Ready);
    assertThat(after.getStatus().getCurrentPrimary()).isEqualTo("ha-2");
    assertThat(after.getStatus().getInstances())
        .anySatisfy(i -> assertThat(i.getName() + "=" + i.getRole()).isEqualTo("ha-2=primary"));
    assertThat(ofDatabase(promoted, "ha")).containsExactly("ha-2");

    // A planned switchover back to ha-1: demote ha-2, ha-1 catches up (the fake's 10 >= 5),
    // promote ha-1, relabel, restart ha-2, and the annotation goes.
    switchoverTo("ha-1");
    await("switched over to ha-1")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Database now = get("ha");
              assertThat(now.getStatus().getCurrentPrimary()).isEqualTo("ha-1");
              assertThat(now.getMetadata().getAnnotations())
                  .doesNotContainKey(Keys.SWITCHOVER_ANNOTATION);
              assertThat(condition(now, Type.AVAILABLE).getReason()).isEqualTo("SwitchedOver");
              assertThat(endpoints("ha")).containsExactly("ha-1");
              assertThat(endpoints("ha-ro")).containsExactly("ha-0", "ha-2");
            });
    assertThat(ofDatabase(demoted, "ha")).containsExactly("ha-2");
    assertThat(ofDatabase(promoted, "ha")).containsExactly("ha-2", "ha-1");
    assertThat(ofDatabase(restarted, "ha")).containsExactly("ha-2");
    assertThat(hasEvent("ha", "SwitchedOver")).isTrue();

    // A switchover to a pod that is not a replica is refused, and the annotation removed.
    switchoverTo("ha-7");
    await("refused")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(get("ha").getMetadata().getAnnotations())
                  .doesNotContainKey(Keys.SWITCHOVER_ANNOTATION);
              assertThat(hasEvent("ha", "SwitchoverFailed")).isTrue();
            });
    assertThat(get("ha").getStatus().getCurrentPrimary()).isEqualTo("ha-1");

    // A switchover whose promotion fails is abandoned: ha-1 takes writes and its label back, and
    // ha-2 stays a replica (one primary behind the Service).
    promoteFails.put("ha-2", "role.sh promote in ha-2 exited 1: pg_promote failed");
    switchoverTo("ha-2");
    await("abandoned")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(get("ha").getMetadata().getAnnotations())
                  .doesNotContainKey(Keys.SWITCHOVER_ANNOTATION);
              assertThat(ofDatabase(promoted, "ha"))
                  .containsExactly("ha-2", "ha-1", "ha-2", "ha-1");
              assertThat(pod("ha-2").getMetadata().getLabels()).containsEntry(Keys.ROLE, "replica");
              assertThat(pod("ha-1").getMetadata().getLabels()).containsEntry(Keys.ROLE, "primary");
              assertThat(endpoints("ha")).containsExactly("ha-1");
            });
    assertThat(get("ha").getStatus().getCurrentPrimary()).isEqualTo("ha-1");
    promoteFails.clear();
  }

  /**
   * With synchronous replication a commit was acknowledged once any one replica had it: a replica
   * that does not say its position may be the only one with the last commits, so no other is
   * promoted until it does, and the Database says why and what the way out is.
   */
  @Test
  void synchronousReplicationPromotesOnlyOnceEveryReplicaHasAnswered() {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.setReplicas(3);
    spec.setBackupEnabled(false);
    spec.setFailover(new FailoverSpec(true, 1));
    ReplicationSpec replication = new ReplicationSpec();
    replication.setMode(ReplicationMode.SYNC);
    spec.setReplication(replication);
    operator.create(new Database(null, "sy", spec));
    awaitPhase("sy", Phase.Ready);
    await("roles")
        .atMost(CONVERGE)
        .untilAsserted(() -> assertThat(endpoints("sy-ro")).containsExactly("sy-1", "sy-2"));

    // sy-1 answers (30); sy-2 does not (its server busy, say).
    try {
      losePod("sy-0");
      await("no promotion without sy-2's position")
          .atMost(CONVERGE)
          .untilAsserted(
              () -> {
                Database now = get("sy");
                assertThat(condition(now, Type.AVAILABLE).getReason())
                    .isEqualTo("NoFailoverCandidate");
                assertThat(condition(now, Type.AVAILABLE).getMessage())
                    .contains(
                        "primary sy-0 unavailable",
                        "no position from sy-2",
                        "set spec.replication.mode to async");
                // Degraded names why the primary is gone (the quota), before why nobody
                // replaces it (StatusFactory.degraded).
                assertThat(condition(now, Type.DEGRADED).getReason())
                    .isEqualTo("PodCreationFailed");
              });
      assertThat(get("sy").getStatus().getCurrentPrimary()).isEqualTo("sy-0");
      assertThat(ofDatabase(promoted, "sy")).isEmpty();

      // sy-2 answers, further than sy-1: it is the one promoted.
      positions.put("sy-2", 40L);
      await("sy-2 (position 40) promoted")
          .atMost(CONVERGE)
          .untilAsserted(
              () -> {
                Database now = get("sy");
                assertThat(now.getStatus().getCurrentPrimary()).isEqualTo("sy-2");
                assertThat(condition(now, Type.AVAILABLE).getMessage())
                    .contains("promoted sy-2 (position 40", "sy-1 30, sy-2 40");
              });
      assertThat(ofDatabase(promoted, "sy")).containsExactly("sy-2");
    } finally {
      allowPods();
    }
  }
}
