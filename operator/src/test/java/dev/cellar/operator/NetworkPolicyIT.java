package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.NetworkClient;
import dev.cellar.api.v1.NetworkPolicySpec;
import dev.cellar.api.v1.PeerSelector;
import dev.cellar.api.v1.Phase;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * spec.networkPolicy against the local cluster's API server: the policy it renders is admitted,
 * follows the spec, comes back when deleted, goes when disabled, and is not rewritten while nothing
 * it depends on changed (the zero-idle-writes rule). The API server stores it; no network plugin
 * here enforces it (see docs).
 */
class NetworkPolicyIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  NetworkPolicy policy(String name) {
    return child(NetworkPolicy.class, name);
  }

  @Test
  void thePolicyFollowsTheSpecAndIsWrittenOnlyWhenItChanges() {
    String name = "guarded";
    Database db = new Database(null, name, new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi"));
    db.getSpec()
        .setNetworkPolicy(
            new NetworkPolicySpec(
                true,
                true,
                List.of(
                    new NetworkClient(
                        new PeerSelector(Map.of("kubernetes.io/metadata.name", "shop-api"), null),
                        new PeerSelector(Map.of("app", "api"), null)))));
    operator.create(db);
    Database ready = awaitPhase(name, Phase.Ready);

    NetworkPolicy np = policy(name);
    assertThat(np).isNotNull();
    assertThat(np.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(ready.getMetadata().getUid()));
    assertThat(np.getSpec().getPolicyTypes()).containsExactly("Ingress");
    assertThat(np.getSpec().getIngress().get(0).getPorts().get(0).getPort().getIntVal())
        .isEqualTo(5432);
    List<NetworkPolicyPeer> from = np.getSpec().getIngress().get(0).getFrom();
    assertThat(from).hasSize(4);
    assertThat(from.get(3).getNamespaceSelector().getMatchLabels())
        .containsEntry("kubernetes.io/metadata.name", "shop-api");

    // A spec change elsewhere reconciles (the CronJob changes) but leaves the policy as it is.
    String written = np.getMetadata().getResourceVersion();
    String cronBefore = child(CronJob.class, name + "-backup").getMetadata().getResourceVersion();
    edit(name, s -> s.getBackup().setRetention(3));
    awaitPhase(name, Phase.Ready);
    await("CronJob updated")
        .atMost(CONVERGE)
        .until(
            () ->
                !child(CronJob.class, name + "-backup")
                    .getMetadata()
                    .getResourceVersion()
                    .equals(cronBefore));
    assertThat(policy(name).getMetadata().getResourceVersion())
        .as("no write to a converged NetworkPolicy")
        .isEqualTo(written);

    // The namespace shut: only the Database's pods, its backups and the client.
    edit(name, s -> s.getNetworkPolicy().setAllowSameNamespace(false));
    await("namespace peer removed")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> assertThat(policy(name).getSpec().getIngress().get(0).getFrom()).hasSize(3));

    // Drift: a deleted policy comes back.
    client.resource(policy(name)).delete();
    await("policy recreated")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              NetworkPolicy back = policy(name);
              assertThat(back).isNotNull();
              assertThat(back.getMetadata().getDeletionTimestamp()).isNull();
              assertThat(back.getSpec().getIngress().get(0).getFrom()).hasSize(3);
            });

    // Off: removed; on again: back.
    edit(name, s -> s.getNetworkPolicy().setEnabled(false));
    await("policy removed").atMost(CONVERGE).until(() -> policy(name) == null);
    awaitPhase(name, Phase.Ready);
    edit(name, s -> s.getNetworkPolicy().setEnabled(true));
    await("policy back").atMost(CONVERGE).until(() -> policy(name) != null);
  }

  @Test
  void byDefaultEveryDatabaseHasOne() {
    String name = "plain";
    operator.create(new Database(null, name, new DatabaseSpec(Engine.MARIADB, "11.4", "1Gi")));
    awaitPhase(name, Phase.Ready);
    await("policy")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              NetworkPolicy np = policy(name);
              assertThat(np).isNotNull();
              assertThat(np.getSpec().getIngress().get(0).getPorts().get(0).getPort().getIntVal())
                  .isEqualTo(3306);
              assertThat(np.getSpec().getIngress().get(0).getFrom()).hasSize(3);
            });
  }
}
