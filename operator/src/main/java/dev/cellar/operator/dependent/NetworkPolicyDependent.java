package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.NetworkClient;
import dev.cellar.api.v1.NetworkPolicySpec;
import dev.cellar.api.v1.PeerSelector;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * spec.networkPolicy: the NetworkPolicy {@code <name>} on the database pods and the backup Jobs'
 * pods. Ingress to them is the exporter's metrics port (while monitoring is on) from anywhere, and
 * the database port only, from: the Database's own pods (replication, rewind, cloning), its backup
 * Jobs (dumps), every pod of its namespace unless allowSameNamespace is false, and the clients the
 * spec names. The operator needs no rule: it reaches the servers only through pods/exec, which the
 * kubelet runs inside the pod, not over the pod network. Egress is left open.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class NetworkPolicyDependent extends OwnedChild<NetworkPolicy> {
  public NetworkPolicyDependent() {
    super(NetworkPolicy.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.networkPolicy();
  }

  @Override
  protected NetworkPolicy desired(Database db, Context<Database> context) {
    return desired(db);
  }

  /** The NetworkPolicy of {@code db}, with the API server's defaults written out. */
  static NetworkPolicy desired(Database db) {
    NetworkPolicySpec spec =
        Optional.ofNullable(db.getSpec().getNetworkPolicy()).orElseGet(NetworkPolicySpec::new);
    List<NetworkPolicyPeer> from = new ArrayList<>();
    from.add(pods(Keys.selector(db, Keys.Component.DATABASE)));
    from.add(pods(Keys.selector(db, Keys.Component.BACKUP)));
    if (!Boolean.FALSE.equals(spec.getAllowSameNamespace())) {
      from.add(new NetworkPolicyPeerBuilder().withNewPodSelector().endPodSelector().build());
    }
    Optional.ofNullable(spec.getClients()).orElse(List.of()).stream()
        .map(NetworkPolicyDependent::peer)
        .forEach(from::add);
    NetworkPolicyBuilder policy =
        new NetworkPolicyBuilder()
            .withMetadata(new NetworkPolicyDependent().metadata(db, Keys.Component.DATABASE))
            .withNewSpec()
            .withPodSelector(guarded(db))
            .withPolicyTypes("Ingress")
            .addNewIngress()
            .withFrom(from)
            .addNewPort()
            .withProtocol("TCP")
            .withPort(new IntOrString(Topology.of(db).profile().port()))
            .endPort()
            .endIngress()
            .endSpec();
    if (Topology.of(db).monitoringOn()) {
      // The exporter's port, from anywhere: Prometheus usually runs in a namespace of its own,
      // and /metrics shows numbers, no data (the exporter's account can read no table).
      policy
          .editSpec()
          .addNewIngress()
          .addNewPort()
          .withProtocol("TCP")
          .withPort(new IntOrString(Topology.of(db).profile().exporterPort()))
          .endPort()
          .endIngress()
          .endSpec();
    }
    return policy.build();
  }

  /**
   * The pods the policy guards: the database pods and the backup Jobs' pods (which listen on
   * nothing: their throwaway server has no TCP port), so no pod of the Database is left open.
   */
  static LabelSelector guarded(Database db) {
    Map<String, String> labels = new LinkedHashMap<>(Keys.selector(db, Keys.Component.DATABASE));
    labels.remove(Keys.COMPONENT);
    return new LabelSelectorBuilder()
        .withMatchLabels(labels)
        .addNewMatchExpression()
        .withKey(Keys.COMPONENT)
        .withOperator("In")
        .withValues(Keys.Component.DATABASE.value(), Keys.Component.BACKUP.value())
        .endMatchExpression()
        .build();
  }

  private static NetworkPolicyPeer pods(Map<String, String> labels) {
    return new NetworkPolicyPeerBuilder()
        .withNewPodSelector()
        .withMatchLabels(labels)
        .endPodSelector()
        .build();
  }

  static NetworkPolicyPeer peer(NetworkClient client) {
    NetworkPolicyPeerBuilder peer = new NetworkPolicyPeerBuilder();
    if (client.getNamespaceSelector() != null) {
      peer.withNamespaceSelector(selector(client.getNamespaceSelector()));
    }
    if (client.getPodSelector() != null) {
      peer.withPodSelector(selector(client.getPodSelector()));
    }
    return peer.build();
  }

  /** Cellar's selector as a core one; an empty selector stays {} (everything). */
  static LabelSelector selector(PeerSelector s) {
    LabelSelectorBuilder selector = new LabelSelectorBuilder();
    if (s.getMatchLabels() != null && !s.getMatchLabels().isEmpty()) {
      selector.withMatchLabels(new TreeMap<>(s.getMatchLabels()));
    }
    if (s.getMatchExpressions() != null) {
      s.getMatchExpressions()
          .forEach(
              r ->
                  selector.addToMatchExpressions(
                      new LabelSelectorRequirementBuilder()
                          .withKey(r.getKey())
                          .withOperator(r.getOperator())
                          .withValues(
                              r.getValues() == null || r.getValues().isEmpty()
                                  ? null
                                  : r.getValues())
                          .build()));
    }
    return selector.build();
  }
}
