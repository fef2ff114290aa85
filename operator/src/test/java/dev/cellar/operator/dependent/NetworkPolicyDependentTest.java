package dev.cellar.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.NetworkClient;
import dev.cellar.api.v1.NetworkPolicySpec;
import dev.cellar.api.v1.PeerSelector;
import dev.cellar.api.v1.SelectorRequirement;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** spec.networkPolicy rendered without a cluster. */
class NetworkPolicyDependentTest {
  @Test
  void byDefaultTheDatabasePortAdmitsItsPodsItsBackupsAndItsNamespace() {
    Database db = DesiredStateTest.db(Engine.POSTGRESQL, "16");
    NetworkPolicy np = NetworkPolicyDependent.desired(db);
    assertThat(np.getMetadata().getName()).isEqualTo("orders-db");
    assertThat(np.getMetadata().getNamespace()).isEqualTo("shop");
    assertThat(np.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "cellar-operator")
        .containsEntry("app.kubernetes.io/instance", "orders-db");
    assertThat(np.getSpec().getPodSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/instance", "orders-db")
        .containsEntry("app.kubernetes.io/name", "postgresql")
        .doesNotContainKey("app.kubernetes.io/component");
    assertThat(np.getSpec().getPodSelector().getMatchExpressions())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getKey()).isEqualTo("app.kubernetes.io/component");
              assertThat(e.getOperator()).isEqualTo("In");
              assertThat(e.getValues()).containsExactly("database", "backup");
            });
    assertThat(np.getSpec().getPolicyTypes()).containsExactly("Ingress");
    assertThat(np.getSpec().getEgress()).isEmpty();
    NetworkPolicyIngressRule rule = np.getSpec().getIngress().get(0);
    // The second rule: the exporter's metrics port, from anywhere (monitoring is on by default).
    assertThat(np.getSpec().getIngress()).hasSize(2);
    assertThat(np.getSpec().getIngress().get(1).getFrom()).isNullOrEmpty();
    assertThat(np.getSpec().getIngress().get(1).getPorts().get(0).getPort().getIntVal())
        .isEqualTo(9187);
    assertThat(rule.getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getPort().getIntVal()).isEqualTo(5432);
              assertThat(p.getProtocol()).isEqualTo("TCP");
            });
    List<NetworkPolicyPeer> from = rule.getFrom();
    assertThat(from).hasSize(3);
    assertThat(from.get(0).getPodSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/component", "database")
        .containsEntry("app.kubernetes.io/instance", "orders-db");
    assertThat(from.get(1).getPodSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/component", "backup")
        .containsEntry("app.kubernetes.io/instance", "orders-db");
    assertThat(from.get(2).getNamespaceSelector()).isNull();
    assertThat(from.get(2).getPodSelector().getMatchLabels()).isNullOrEmpty();
    assertThat(from).allSatisfy(p -> assertThat(p.getIpBlock()).isNull());
  }

  @Test
  void namedClientsAreAdmittedAndTheNamespaceCanBeShut() {
    Database db = DesiredStateTest.db(Engine.MYSQL, "8.4");
    db.getSpec()
        .setNetworkPolicy(
            new NetworkPolicySpec(
                true,
                false,
                List.of(
                    new NetworkClient(
                        new PeerSelector(Map.of("kubernetes.io/metadata.name", "shop-api"), null),
                        new PeerSelector(Map.of("app", "api"), null)),
                    new NetworkClient(
                        null,
                        new PeerSelector(
                            null,
                            List.of(
                                new SelectorRequirement("tier", "In", List.of("web", "jobs")),
                                new SelectorRequirement("legacy", "DoesNotExist", null)))),
                    new NetworkClient(new PeerSelector(), null))));
    NetworkPolicy np = NetworkPolicyDependent.desired(db);
    NetworkPolicyIngressRule rule = np.getSpec().getIngress().get(0);
    assertThat(rule.getPorts().get(0).getPort().getIntVal()).isEqualTo(3306);
    List<NetworkPolicyPeer> from = rule.getFrom();
    assertThat(from).hasSize(5);
    // Own pods and backups, no whole-namespace peer.
    assertThat(from.subList(0, 2))
        .allSatisfy(p -> assertThat(p.getPodSelector().getMatchLabels()).isNotEmpty());
    NetworkPolicyPeer api = from.get(2);
    assertThat(api.getNamespaceSelector().getMatchLabels())
        .containsExactly(Map.entry("kubernetes.io/metadata.name", "shop-api"));
    assertThat(api.getPodSelector().getMatchLabels()).containsExactly(Map.entry("app", "api"));
    NetworkPolicyPeer tiers = from.get(3);
    assertThat(tiers.getNamespaceSelector()).isNull();
    assertThat(tiers.getPodSelector().getMatchExpressions()).hasSize(2);
    assertThat(tiers.getPodSelector().getMatchExpressions().get(0).getValues())
        .containsExactly("web", "jobs");
    assertThat(tiers.getPodSelector().getMatchExpressions().get(1).getValues()).isNullOrEmpty();
    // {} as namespaceSelector: every namespace.
    assertThat(from.get(4).getNamespaceSelector()).isNotNull();
    assertThat(from.get(4).getNamespaceSelector().getMatchLabels()).isNullOrEmpty();
    assertThat(from.get(4).getPodSelector()).isNull();
  }

  @Test
  void onByDefaultAndOffWhenDisabled() {
    Database db = DesiredStateTest.db(Engine.MARIADB, "11.4");
    var enabled = new Preconditions.NetworkPolicyEnabled();
    assertThat(enabled.isMet(null, db, null)).isTrue();
    db.getSpec().setNetworkPolicy(null);
    assertThat(enabled.isMet(null, db, null)).isTrue();
    db.getSpec().setNetworkPolicy(new NetworkPolicySpec(false, true, null));
    assertThat(enabled.isMet(null, db, null)).isFalse();
  }
}
