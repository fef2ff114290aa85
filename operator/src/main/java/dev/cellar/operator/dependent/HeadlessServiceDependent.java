package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Labels;
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
    informer = @Informer(labelSelector = Labels.MANAGED_SELECTOR))
public class HeadlessServiceDependent extends ServiceChild {

  public static String name(Database db) {
    return db.getMetadata().getName() + "-headless";
  }

  @Override
  protected String childName(Database db) {
    return name(db);
  }

  @Override
  protected Map<String, String> selector(Database db) {
    return Labels.selector(db, Labels.Component.DATABASE);
  }

  @Override
  protected void customize(ServiceSpecBuilder spec) {
    spec.withType("ClusterIP").withClusterIP("None").withPublishNotReadyAddresses(true);
  }
}
