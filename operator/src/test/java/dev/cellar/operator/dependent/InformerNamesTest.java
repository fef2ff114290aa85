package dev.cellar.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.operator.DatabaseReconciler;
import dev.cellar.operator.topology.Topology;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A Database's children are found in their informer by the names its owner lists ({@code
 * DatabaseChild#informerNames}); a dependent that shares another's informer and is missing from
 * that list would never find its child, and would create it again on every reconcile.
 */
class InformerNamesTest {
  static DatabaseChild<?> instance(Dependent dependent) throws ReflectiveOperationException {
    return (DatabaseChild<?>) dependent.type().getDeclaredConstructor().newInstance();
  }

  @Test
  void everyDependentOfASharedInformerIsNamedByItsOwner() throws ReflectiveOperationException {
    Database db = new Database("shop", "orders", new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi"));
    Topology topology = Topology.of(db);
    Dependent[] dependents = DatabaseReconciler.class.getAnnotation(Workflow.class).dependents();
    Map<String, Dependent> byName =
        Arrays.stream(dependents).collect(Collectors.toMap(Dependent::name, Function.identity()));

    int shared = 0;
    for (Dependent dependent : dependents) {
      DatabaseChild<?> child = instance(dependent);
      String informer = dependent.useEventSourceWithName();
      DatabaseChild<?> owner = informer.isEmpty() ? child : instance(byName.get(informer));
      assertThat(owner.informerNames(topology))
          .as("%s's informer (%s) names its child", dependent.name(), informer)
          .contains(child.childName(topology));
      shared += informer.isEmpty() ? 0 : 1;
    }
    // The Secrets' and the Services' informers are shared: the test has something to check.
    assertThat(shared).isGreaterThanOrEqualTo(6);
  }
}
