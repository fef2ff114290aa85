package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** For replicas > 1: voluntary disruptions (drains) take down at most one pod at a time. */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class PodDisruptionBudgetDependent extends OwnedChild<PodDisruptionBudget> {

  public PodDisruptionBudgetDependent() {
    super(PodDisruptionBudget.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.podDisruptionBudget();
  }

  @Override
  protected PodDisruptionBudget desired(Database db, Context<Database> context) {
    return new PodDisruptionBudgetBuilder()
        .withMetadata(metadata(db, Keys.Component.DATABASE))
        .withNewSpec()
        .withMaxUnavailable(new IntOrString(1))
        .withNewSelector()
        .withMatchLabels(Keys.selector(db, Keys.Component.DATABASE))
        .endSelector()
        .endSpec()
        .build();
  }
}
