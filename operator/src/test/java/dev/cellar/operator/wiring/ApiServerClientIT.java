package dev.cellar.operator.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.kubelean.ApiServerClient;
import dev.cellar.kubelean.CompressedLists;
import dev.cellar.testkit.LocalCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The operator's own client against the real API server: compressed lists, watches as before. */
class ApiServerClientIT {
  static final String NS = "api-server-client-it";
  static final KubernetesClient admin = LocalCluster.get().newClient();
  static final CompressedLists lists = new CompressedLists();
  static final KubernetesClient client =
      ApiServerClient.create(LocalCluster.get().config(), lists, ApiServer.KINDS);

  /** Scripts-like text: 60 KB per ConfigMap, so that four make a list the server compresses. */
  static String script(int i) {
    return IntStream.range(0, 1500)
        .mapToObj(line -> "echo \"line " + line + " of script " + i + "\"")
        .collect(Collectors.joining("\n"));
  }

  /** A ConfigMap {@code name} holding {@code script(i)} as run.sh, written by the admin. */
  static void applyScript(String name, int i) {
    apply(name, Map.of("run.sh", script(i)));
  }

  /** A ConfigMap {@code name} holding {@code data}, written by the admin. */
  static void apply(String name, Map<String, String> data) {
    admin
        .configMaps()
        .inNamespace(NS)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withData(data)
                .build())
        .serverSideApply();
  }

  @BeforeAll
  static void configMaps() {
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .serverSideApply();
    for (int i = 0; i < 4; i++) {
      applyScript("scripts-" + i, i);
    }
  }

  @AfterAll
  static void cleanUp() {
    admin.namespaces().withName(NS).delete();
    client.close();
    admin.close();
  }

  @Test
  void aLargeListArrivesCompressedAndWhole() {
    long before = lists.inflated();

    var items = client.configMaps().inNamespace(NS).list().getItems();

    assertThat(lists.inflated()).isGreaterThan(before);
    assertThat(items)
        .filteredOn(c -> c.getMetadata().getName().startsWith("scripts-"))
        .extracting(c -> c.getData().get("run.sh"))
        .containsExactlyInAnyOrder(script(0), script(1), script(2), script(3));
  }

  @Test
  void aSmallReadIsNotCompressed() {
    long before = lists.inflated();

    ConfigMap one = client.configMaps().inNamespace(NS).withName("scripts-1").get();

    assertThat(one.getData().get("run.sh")).isEqualTo(script(1));
    assertThat(lists.inflated()).isEqualTo(before);
  }

  @Test
  void anInformerListsCompressedAndWatches() {
    long before = lists.inflated();
    try (SharedIndexInformer<ConfigMap> informer = client.configMaps().inNamespace(NS).inform()) {
      assertThat(informer.getStore().getByKey(NS + "/scripts-2").getData().get("run.sh"))
          .isEqualTo(script(2));
      assertThat(lists.inflated()).isGreaterThan(before);

      applyScript("watched", 9);

      await("the watch delivers the new ConfigMap")
          .atMost(Duration.ofSeconds(30))
          .until(() -> informer.getStore().getByKey(NS + "/watched") != null);
      assertThat(informer.getStore().getByKey(NS + "/watched").getData().get("run.sh"))
          .isEqualTo(script(9));
    }
  }

  @Test
  void aWatchDeliversTextThatIsNotAscii() {
    // Characters of two to four bytes, many of them split between the stream's buffers.
    String text = "Base de données – ünïcödé ✓ 🐘\n".repeat(4000);
    try (SharedIndexInformer<ConfigMap> informer = client.configMaps().inNamespace(NS).inform()) {
      apply("not-ascii", Map.of("notes.txt", text));

      await("the watch delivers the ConfigMap")
          .atMost(Duration.ofSeconds(30))
          .until(() -> informer.getStore().getByKey(NS + "/not-ascii") != null);
      assertThat(informer.getStore().getByKey(NS + "/not-ascii").getData().get("notes.txt"))
          .isEqualTo(text);
    }
  }
}
