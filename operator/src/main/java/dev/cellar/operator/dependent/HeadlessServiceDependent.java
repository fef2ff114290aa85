package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Keys;
import dev.cellar.operator.Topology;
import io.fabric8.kubernetes.api.model.ServiceSpecBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.BooleanWithUndefined;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Map;

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

  @Override
  protected Map<String, String> selector(Database db) {
    return Keys.selector(db, Keys.Component.DATABASE);
  }

  @Override
  protected void customize(ServiceSpecBuilder spec) {
    spec.withType("ClusterIP").withClusterIP("None").withPublishNotReadyAddresses(true);
  }
}
