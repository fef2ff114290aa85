package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetList;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ApiServerSerializationTest {
  /**
   * Kinds as an operator names them: a custom resource of its own, built-in kinds of the core and
   * other groups, and Status, which a watch's ERROR event holds.
   */
  static final List<Class<? extends KubernetesResource>> KINDS =
      List.of(
          Shelf.class,
          ConfigMap.class,
          Pod.class,
          StatefulSet.class,
          CronJob.class,
          Job.class,
          NetworkPolicy.class,
          Status.class);

  static final ApiServerSerialization serialization =
      new ApiServerSerialization(new ObjectMapper(), KINDS);

  /** fabric8's own reading: every kind it models, found by the ServiceLoader. */
  static final KubernetesSerialization fabric8s = new KubernetesSerialization();

  /** A pod as the API server writes it: kind first, managed fields, status, text beyond ASCII. */
  static final String POD =
      """
      {"kind":"Pod","apiVersion":"v1","metadata":{"name":"orders-0","namespace":"shop",\
      "uid":"6f1c","resourceVersion":"4711","labels":{"cellar.dev/role":"primary"},\
      "annotations":{"note":"caf\u00e9 \u2615"},"managedFields":[{"manager":"kubelet",\
      "operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",\
      "fieldsV1":{"f:status":{"f:phase":{}}}}]},"spec":{"containers":[{"name":"postgres",\
      "image":"postgres:17","resources":{"requests":{"cpu":"250m","memory":"256Mi"}}}]},\
      "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}],\
      "podIP":"10.0.0.7"}}""";

  static List<Class<? extends KubernetesResource>> objectKinds() {
    return KINDS.stream().filter(HasMetadata.class::isAssignableFrom).toList();
  }

  @ParameterizedTest
  @MethodSource("objectKinds")
  void aWatchEventOfAKindNamedIsReadAsThatKindInOnePass(Class<? extends HasMetadata> kind) {
    String json =
        """
        {"type":"MODIFIED","object":{"apiVersion":"%s","kind":"%s","metadata":{"name":"x"}}}"""
            .formatted(HasMetadata.getApiVersion(kind), HasMetadata.getKind(kind));
    assertThat(serialization.watchEvent(json).getObject()).isExactlyInstanceOf(kind);
    assertThat(serialization.unmarshal(json, WatchEvent.class).getObject())
        .isExactlyInstanceOf(kind);
  }

  @Test
  void anObjectReadInOnePassEqualsFabric8sReading() {
    String json = "{\"type\":\"ADDED\",\"object\":" + POD + "}";
    WatchEvent event = serialization.watchEvent(json);
    assertThat(event.getType()).isEqualTo("ADDED");
    assertThat(event.getObject()).isEqualTo(fabric8s.unmarshal(json, WatchEvent.class).getObject());
    Pod pod = (Pod) event.getObject();
    assertThat(pod.getMetadata().getAnnotations()).containsEntry("note", "caf\u00e9 \u2615");
    assertThat(pod.getStatus().getPodIP()).isEqualTo("10.0.0.7");
  }

  @Test
  void fieldsInAnotherOrderAreReadAlike() {
    // the object first, and its kind after everything else (a custom resource's fields are sorted
    // by name: apiVersion, kind, metadata; another writer may put them anywhere)
    String json =
        """
        {"object":{"metadata":{"name":"orders","labels":{"a":"b"}},"spec":{"engine":"postgresql"},\
        "kind":"Shelf","apiVersion":"kubelean.cellar.dev/v1"},"type":"DELETED"}""";
    WatchEvent event = serialization.watchEvent(json);
    assertThat(event.getType()).isEqualTo("DELETED");
    assertThat(event.getObject())
        .isInstanceOfSatisfying(
            Shelf.class,
            shelf -> {
              assertThat(shelf.getMetadata().getLabels()).containsEntry("a", "b");
              assertThat(shelf.getSpec().getEngine()).isNotNull();
            });
  }

  @Test
  void aWatchErrorIsReadAsAStatus() {
    // AbstractWatchManager lists again on a 410 only if the ERROR event's object is a Status
    WatchEvent event =
        serialization.unmarshal(
            """
            {"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},\
            "status":"Failure","reason":"Expired","code":410}}""",
            WatchEvent.class);
    assertThat(event.getObject())
        .isInstanceOfSatisfying(Status.class, s -> assertThat(s.getCode()).isEqualTo(410));
  }

  @Test
  void aKindNotNamedIsLeftToFabric8WhichDoesNotLookAmongAllItModels() {
    String json =
        """
        {"type":"ADDED","object":{"apiVersion":"networking.k8s.io/v1","kind":"Ingress",\
        "metadata":{"name":"x"}}}""";
    assertThat(serialization.watchEvent(json)).isNull();
    assertThat(serialization.unmarshal(json, WatchEvent.class).getObject())
        .isExactlyInstanceOf(GenericKubernetesResource.class);
  }

  @Test
  void whatDoesNotParseFailsAsFabric8Says() {
    String json = "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",";
    assertThat(serialization.watchEvent(json)).isNull();
    assertThatThrownBy(() -> serialization.unmarshal(json, WatchEvent.class))
        .isInstanceOf(KubernetesClientException.class);
  }

  @Test
  void otherTypesAreReadAsFabric8ReadsThem() {
    assertThat(serialization.unmarshal(POD, Pod.class))
        .isEqualTo(fabric8s.unmarshal(POD, Pod.class));
  }

  @Test
  void watchEventsAndInformersListsAreReadForTheCachesOtherReadsWhole() throws IOException {
    ApiServerSerialization client =
        new ApiServerSerialization(ApiServerClient.mapper(Set.of(Shelf.class)), KINDS);
    String sts;
    try (InputStream in = getClass().getResourceAsStream("/cache-reads/statefulset.json")) {
      sts = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    StatefulSet watched =
        (StatefulSet) client.watchEvent("{\"type\":\"ADDED\",\"object\":" + sts + "}").getObject();
    assertThat(watched.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(watched.getSpec().getSelector()).isNull();

    String list =
        "{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSetList\",\"items\":[" + sts + "]}";
    StatefulSetList listed =
        client.unmarshal(
            new ByteArrayInputStream(list.getBytes(StandardCharsets.UTF_8)), StatefulSetList.class);
    assertThat(listed.getItems())
        .singleElement()
        .satisfies(s -> assertThat(s.getMetadata().getManagedFields()).isNullOrEmpty());

    // A GET (JOSDK's matcher reading a pruned StatefulSet) or a write's response: whole.
    StatefulSet got =
        client.unmarshal(
            new ByteArrayInputStream(sts.getBytes(StandardCharsets.UTF_8)), StatefulSet.class);
    assertThat(got.getMetadata().getManagedFields()).isNotEmpty();
    assertThat(got.getSpec().getSelector()).isNotNull();
  }
}
