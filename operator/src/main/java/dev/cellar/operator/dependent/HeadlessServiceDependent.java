package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.engine.EngineProfiles;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.ServiceSpecBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.BooleanWithUndefined;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The StatefulSet's governing Service: stable DNS names {@code <pod>.<name>-headless} for every
 * pod, ready or not, so replicas can find the primary while they bootstrap.
 */
@KubernetesDependent(
    useSSA = BooleanWithUndefined.FALSE,
    informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class HeadlessServiceDependent extends ServiceChild {

  @Override
  protected String childName(Topology topology) {
    return topology.headlessService();
  }

  /** This informer is every Service dependent's (the workflow's useEventSourceWithName). */
  @Override
  protected Set<String> informerNames(Topology topology) {
    return Set.of(
        topology.headlessService(), topology.primaryService(), topology.readOnlyService());
  }

  @Override
  protected Map<String, String> selector(Database db) {
    return Keys.selector(db, Keys.Component.DATABASE);
  }

  /**
   * The exporter's port {@code metrics}, while monitoring is on: what a PodMonitor or a scrape
   * configuration finds the pods by (every pod is an endpoint of the headless Service).
   */
  @Override
  protected List<ServicePort> extraPorts(Database db) {
    if (!Topology.of(db).monitoringOn()) {
      return List.of();
    }
    int port = EngineProfiles.of(db).exporterPort();
    return List.of(
        new ServicePortBuilder()
            .withName(Keys.Monitoring.PORT_NAME)
            .withPort(port)
            .withTargetPort(new IntOrString(port))
            .withProtocol("TCP")
            .build());
  }

  @Override
  protected void customize(ServiceSpecBuilder spec) {
    spec.withType("ClusterIP").withClusterIP("None").withPublishNotReadyAddresses(true);
  }
}
