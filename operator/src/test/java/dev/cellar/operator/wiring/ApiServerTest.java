package dev.cellar.operator.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.DatabaseReconciler;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApiServerTest {
  @Test
  void everyKindTheOperatorWatchesIsNamed() throws ReflectiveOperationException {
    // the Databases, the workflow's dependents, the informers prepareEventSources adds
    List<Class<?>> watched =
        new ArrayList<>(List.of(Database.class, Pod.class, Job.class, Event.class));
    for (Dependent d : DatabaseReconciler.class.getAnnotation(Workflow.class).dependents()) {
      DependentResource<?, ?> dependent = d.type().getDeclaredConstructor().newInstance();
      watched.add(dependent.resourceType());
    }
    assertThat(watched).hasSizeGreaterThan(10);
    assertThat(new ArrayList<Object>(ApiServer.KINDS.watched())).containsAll(watched);
    assertThat(new ArrayList<Object>(ApiServer.KINDS.watched()))
        .containsAll(new ArrayList<Object>(ApiServer.KINDS.primary()));
  }
}
