package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The scheduling fields on the local cluster, with a third kwok node and a PriorityClass of its
 * own. Cluster-wide: while the node exists other classes' pods may land on it, and deleting it
 * would take them away, so this class runs alone (operator/pom.xml).
 */
@Tag("cluster-wide")
class SchedulingIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client);

  /** A third kwok node, as e2e/cluster/manifests/nodes.yaml defines the other two. */
  static final String EXTRA_NODE = "kwok-node-spread";

  static final String PRIORITY_CLASS = "cellar-it-databases";

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  @Test
  void theSchedulingFieldsReachThePodsAndReplicasLandOnDifferentNodes() {
    String kubeletVersion =
        client.nodes().withName("kwok-node-0").get().getStatus().getNodeInfo().getKubeletVersion();
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(EXTRA_NODE)
                .addToAnnotations("kwok.x-k8s.io/node", "fake")
                .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
                .addToLabels("type", "kwok")
                .addToLabels(Keys.HOSTNAME, EXTRA_NODE)
                .addToLabels("kubernetes.io/os", "linux")
                .addToLabels("kubernetes.io/arch", "amd64")
                .addToLabels("topology.kubernetes.io/zone", "zone-c")
                .endMetadata()
                .withNewSpec()
                .withPodCIDR("10.244.2.0/24")
                .withPodCIDRs("10.244.2.0/24")
                .endSpec()
                .withNewStatus()
                .addNewAddress()
                .withType("InternalIP")
                .withAddress("127.0.10.2")
                .endAddress()
                .addNewAddress()
                .withType("Hostname")
                .withAddress(EXTRA_NODE)
                .endAddress()
                .withNewNodeInfo()
                .withKubeletVersion(kubeletVersion)
                .withKubeProxyVersion(kubeletVersion)
                .endNodeInfo()
                .endStatus()
                .build())
        .serverSideApply();
    client
        .scheduling()
        .v1()
        .priorityClasses()
        .resource(
            new PriorityClassBuilder()
                .withNewMetadata()
                .withName(PRIORITY_CLASS)
                .endMetadata()
                .withValue(1000)
                .build())
        .serverSideApply();
    try {
      await("the third kwok node is Ready")
          .atMost(CONVERGE)
          .until(
              () -> {
                Node node = client.nodes().withName(EXTRA_NODE).get();
                return node.getStatus().getConditions() != null
                    && node.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
              });
      spreadAcrossThreeNodes();
    } finally {
      // The pods go with their Database; the node and the class are the cluster's, so go here.
      operator.delete(get("spread"));
      // Pods on a deleted node would wait for the pod garbage collector: let them go first.
      await("the pods are gone").atMost(CONVERGE).until(() -> pods("spread").isEmpty());
      client.nodes().withName(EXTRA_NODE).delete();
      client.scheduling().v1().priorityClasses().withName(PRIORITY_CLASS).delete();
    }
  }

  void spreadAcrossThreeNodes() {
    DatabaseSpec spec = new DatabaseSpec(Engine.MARIADB, "11.4", "1Gi");
    spec.setReplicas(3);
    spec.setBackupEnabled(false);
    spec.setNodeSelector(Map.of("type", "kwok"));
    spec.setPriorityClassName(PRIORITY_CLASS);
    spec.setTolerations(
        List.of(
            new TolerationBuilder()
                .withKey("dedicated")
                .withOperator("Equal")
                .withValue("databases")
                .withEffect("NoSchedule")
                .build()));
    spec.setTopologySpreadConstraints(
        List.of(
            new TopologySpreadConstraintBuilder()
                .withMaxSkew(1)
                .withTopologyKey("topology.kubernetes.io/zone")
                .withWhenUnsatisfiable("ScheduleAnyway")
                .withNewLabelSelector()
                .addToMatchLabels(Keys.INSTANCE, "spread")
                .endLabelSelector()
                .build()));
    spec.setAffinity(
        new AffinityBuilder()
            .withNewNodeAffinity()
            .addNewPreferredDuringSchedulingIgnoredDuringExecution()
            .withWeight(10)
            .withNewPreference()
            .addNewMatchExpression()
            .withKey("type")
            .withOperator("In")
            .withValues("kwok")
            .endMatchExpression()
            .endPreference()
            .endPreferredDuringSchedulingIgnoredDuringExecution()
            .endNodeAffinity()
            .build());
    operator.create(new Database(null, "spread", spec));
    awaitPhase("spread", Phase.Ready);

    PodSpec template = child(StatefulSet.class, "spread").getSpec().getTemplate().getSpec();
    assertThat(template.getNodeSelector()).isEqualTo(spec.getNodeSelector());
    assertThat(template.getPriorityClassName()).isEqualTo(PRIORITY_CLASS);
    assertThat(template.getTolerations()).isEqualTo(spec.getTolerations());
    assertThat(template.getTopologySpreadConstraints())
        .isEqualTo(spec.getTopologySpreadConstraints());
    assertThat(template.getAffinity().getNodeAffinity())
        .isEqualTo(spec.getAffinity().getNodeAffinity());
    assertThat(
            template
                .getAffinity()
                .getPodAntiAffinity()
                .getPreferredDuringSchedulingIgnoredDuringExecution())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.getWeight()).isEqualTo(100);
              assertThat(t.getPodAffinityTerm().getTopologyKey()).isEqualTo(Keys.HOSTNAME);
            });

    List<Pod> pods = pods("spread");
    assertThat(pods).hasSize(3);
    assertThat(pods)
        .allSatisfy(p -> assertThat(p.getSpec().getPriorityClassName()).isEqualTo(PRIORITY_CLASS));
    assertThat(pods.stream().map(p -> p.getSpec().getNodeName()).distinct().toList())
        .as("one replica per node")
        .hasSize(3)
        .contains(EXTRA_NODE);
  }
}
