package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Labels;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** For replicas > 1: voluntary disruptions (drains) take down at most one pod at a time. */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_SELECTOR))
public class PodDisruptionBudgetDependent extends OwnedChild<PodDisruptionBudget> {

  public PodDisruptionBudgetDependent() {
    super(PodDisruptionBudget.class);
  }

  public static String name(Database db) {
    return db.getMetadata().getName();
  }

  @Override
  protected String childName(Database db) {
    return name(db);
  }

  @Override
  protected PodDisruptionBudget desired(Database db, Context<Database> context) {
    return new PodDisruptionBudgetBuilder()
        .withMetadata(metadata(db, Labels.Component.DATABASE))
        .withNewSpec()
        .withMaxUnavailable(new IntOrString(1))
        .withNewSelector()
        .withMatchLabels(Labels.selector(db, Labels.Component.DATABASE))
        .endSelector()
        .endSpec()
        .build();
  }
}
