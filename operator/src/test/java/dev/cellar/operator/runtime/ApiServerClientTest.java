package dev.cellar.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.DatabaseReconciler;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ApiServerClientTest {
  static final KubernetesSerialization serialization =
      ApiServerClient.serialization(new ObjectMapper());

  static List<Class<? extends KubernetesResource>> objectKinds() {
    return ApiServerClient.WATCHED_KINDS.stream()
        .filter(HasMetadata.class::isAssignableFrom)
        .toList();
  }

  @ParameterizedTest
  @MethodSource("objectKinds")
  void aWatchEventOfAKindNamedIsReadAsThatKind(Class<? extends HasMetadata> kind) {
    WatchEvent event =
        serialization.unmarshal(
            """
            {"type":"MODIFIED","object":{"apiVersion":"%s","kind":"%s","metadata":{"name":"x"}}}"""
                .formatted(HasMetadata.getApiVersion(kind), HasMetadata.getKind(kind)),
            WatchEvent.class);
    assertThat(event.getObject()).isExactlyInstanceOf(kind);
  }

  @Test
  void aWatchErrorIsReadAsAStatus() {
    // AbstractWatchManager lists again on a 410 only if the ERROR event's object is a Status
    WatchEvent event =
        serialization.unmarshal(
            """
            {"type":"ERROR","object":{"apiVersion":"v1","kind":"Status","status":"Failure",\
            "reason":"Expired","code":410}}""",
            WatchEvent.class);
    assertThat(event.getObject())
        .isInstanceOfSatisfying(Status.class, s -> assertThat(s.getCode()).isEqualTo(410));
  }

  @Test
  void aKindNotNamedIsNotLookedForAmongAllOfFabric8s() {
    WatchEvent event =
        serialization.unmarshal(
            """
            {"type":"ADDED","object":{"apiVersion":"networking.k8s.io/v1","kind":"Ingress",\
            "metadata":{"name":"x"}}}""",
            WatchEvent.class);
    assertThat(event.getObject()).isExactlyInstanceOf(GenericKubernetesResource.class);
  }

  @Test
  void everyKindTheOperatorWatchesIsNamed() throws ReflectiveOperationException {
    // the workflow's dependents, and the informers DatabaseReconciler.prepareEventSources adds
    List<Class<?>> watched =
        new ArrayList<>(List.of(Database.class, Pod.class, Job.class, Event.class));
    for (Dependent d : DatabaseReconciler.class.getAnnotation(Workflow.class).dependents()) {
      DependentResource<?, ?> dependent = d.type().getDeclaredConstructor().newInstance();
      watched.add(dependent.resourceType());
    }
    assertThat(watched).hasSizeGreaterThan(10);
    assertThat(new ArrayList<Object>(ApiServerClient.WATCHED_KINDS)).containsAll(watched);
  }
}
