package dev.cellar.testkit;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class the cluster ({@link LocalCluster}), an admin client, and namespaces of its own
 * that are deleted after the class. Register it as a static field:
 *
 * <pre>
 * {@code @RegisterExtension static LocalClusterExtension cluster = new LocalClusterExtension();}
 * </pre>
 */
public class LocalClusterExtension implements BeforeAllCallback, AfterAllCallback {
  /** Marks namespaces made by tests, so a crashed run's leftovers can be found. */
  public static final String TEST_LABEL = "cellar.dev/test";

  private LocalCluster cluster;
  private KubernetesClient client;
  private final List<String> namespaces = new ArrayList<>();
  private String testClass = "test";

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster = LocalCluster.get();
    client = cluster.newClient();
    testClass = context.getRequiredTestClass().getSimpleName();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (client == null) {
      return;
    }
    for (String namespace : namespaces) {
      client.namespaces().withName(namespace).delete();
    }
    client.close();
  }

  public LocalCluster cluster() {
    return cluster;
  }

  public KubernetesClient client() {
    return client;
  }

  /** A new namespace named after the test class, deleted after the class. */
  public String newNamespace() {
    return newNamespace(Map.of());
  }

  /** A new namespace with these labels (e.g. a PodSecurity level), deleted after the class. */
  public String newNamespace(Map<String, String> labels) {
    String base = testClass.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    String name =
        base.substring(0, Math.min(base.length(), 40))
            + "-"
            + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 20, 1 << 24), 36);
    Namespace namespace =
        new NamespaceBuilder()
            .withNewMetadata()
            .withName(name)
            .addToLabels(TEST_LABEL, "true")
            .addToLabels(labels)
            .endMetadata()
            .build();
    client.namespaces().resource(namespace).create();
    namespaces.add(name);
    return name;
  }
}
