package dev.cellar.operator.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.Engine;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.operator.replication.ReplicationLag.Replica;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class ReplicationLagTest {
  final List<String> asked = new CopyOnWriteArrayList<>();

  /** Answers from {@code lags}; a pod not in it cannot say. */
  InstanceAgent agent(Map<String, Long> lags) {
    return new InstanceAgent() {
      @Override
      public OptionalLong lag(String namespace, String pod) {
        asked.add(pod);
        return lags.containsKey(pod) ? OptionalLong.of(lags.get(pod)) : OptionalLong.empty();
      }

      @Override
      public OptionalLong position(String namespace, String pod) {
        throw new AssertionError("not asked");
      }

      @Override
      public Optional<String> promote(String namespace, String pod) {
        throw new AssertionError("not asked");
      }

      @Override
      public OptionalLong demote(String namespace, String pod) {
        throw new AssertionError("not asked");
      }

      @Override
      public void restart(String namespace, String pod) {
        throw new AssertionError("not asked");
      }

      @Override
      public Optional<String> applyCredentials(String namespace, String pod, String input) {
        throw new AssertionError("not asked");
      }
    };
  }

  static Database db(int replicas, String primary) {
    Database db = new Database("shop", "orders", new DatabaseSpec(Engine.MARIADB, "11.8", "1Gi"));
    db.getSpec().setReplicas(replicas);
    DatabaseStatus status = new DatabaseStatus();
    status.setCurrentPrimary(primary);
    db.setStatus(status);
    return db;
  }

  static Pod pod(String name, boolean ready, boolean deleting) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withDeletionTimestamp(deleting ? "2026-11-26T00:00:00Z" : null)
        .endMetadata()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .endStatus()
        .build();
  }

  @Test
  void asksEachReadyReplicaButNotThePrimary() {
    // orders-1 is the primary after a failover; orders-0 a replica again.
    var lags =
        ReplicationLag.ask(
            db(4, "orders-1"),
            List.of(
                pod("orders-0", true, false),
                pod("orders-1", true, false),
                pod("orders-2", false, false),
                pod("orders-3", true, true)),
            agent(Map.of("orders-0", 3L, "orders-1", 0L)));
    assertThat(asked).containsExactly("orders-0");
    assertThat(lags).containsExactly(new Replica("orders-0", 3));
  }

  @Test
  void aReplicaThatCannotSayIsLeftOut() {
    var lags =
        ReplicationLag.ask(
            db(3, "orders-0"),
            List.of(
                pod("orders-0", true, false),
                pod("orders-1", true, false),
                pod("orders-2", true, false)),
            agent(Map.of("orders-2", 0L)));
    assertThat(asked).containsExactly("orders-1", "orders-2");
    assertThat(lags).containsExactly(new Replica("orders-2", 0));
  }

  @Test
  void nothingIsAskedWithoutReplicasOrWhileHibernated() {
    List<Pod> pods = List.of(pod("orders-0", true, false), pod("orders-1", true, false));
    assertThat(ReplicationLag.ask(db(1, "orders-0"), pods, agent(Map.of("orders-1", 1L))))
        .isEmpty();
    Database hibernated = db(2, "orders-0");
    hibernated.getSpec().setHibernated(true);
    assertThat(ReplicationLag.ask(hibernated, pods, agent(Map.of("orders-1", 1L)))).isEmpty();
    assertThat(asked).isEmpty();
    assertThat(ReplicationLag.replicated(db(2, "orders-0"))).isTrue();
  }
}
