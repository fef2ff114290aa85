package dev.cellar.testkit;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesResourceUtil;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs one reconciler in the test's JVM, watching a namespace of the test class's own: before the
 * class the namespace is made, the CRD of the reconciler's resource is applied from the class path
 * ({@code META-INF/fabric8}, where fabric8's generator writes it) and awaited Established, and the
 * operator starts; after the class the namespace is deleted (not awaited; first, since stopping the
 * operator closes its client), the operator stops and the client is closed. JOSDK 5.2 shipped such
 * an extension; 5.3's is not served here, and 5.2's does not run on 5.3. Register it as a static
 * field.
 */
public final class LocalOperator<R extends HasMetadata>
    implements BeforeAllCallback, AfterAllCallback {
  private static final Duration CRD_ESTABLISHED = Duration.ofSeconds(30);

  private final KubernetesClient client;
  private final Reconciler<R> reconciler;
  private final Consumer<ControllerConfigurationOverrider<R>> configuration;
  private Operator operator;
  private String namespace;

  private LocalOperator(
      KubernetesClient client,
      Reconciler<R> reconciler,
      Consumer<ControllerConfigurationOverrider<R>> configuration) {
    this.client = client;
    this.reconciler = reconciler;
    this.configuration = configuration;
  }

  /** {@code reconciler} on {@code client}, its configuration changed by {@code configuration}. */
  public static <R extends HasMetadata> LocalOperator<R> of(
      KubernetesClient client,
      Reconciler<R> reconciler,
      Consumer<ControllerConfigurationOverrider<R>> configuration) {
    return new LocalOperator<>(client, reconciler, configuration);
  }

  public static <R extends HasMetadata> LocalOperator<R> of(
      KubernetesClient client, Reconciler<R> reconciler) {
    return of(client, reconciler, c -> {});
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    namespace = namespaceFor(context.getRequiredTestClass());
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(namespace)
                .addToLabels(LocalClusterExtension.TEST_LABEL, "true")
                .endMetadata()
                .build())
        .serverSideApply();
    operator = new Operator(o -> o.withKubernetesClient(client));
    ControllerConfiguration<R> config =
        operator.getConfigurationService().getConfigurationFor(reconciler);
    if (CustomResource.class.isAssignableFrom(config.getResourceClass())) {
      applyCrd(HasMetadata.getFullResourceName(config.getResourceClass()));
    }
    ControllerConfigurationOverrider<R> overrider =
        ControllerConfigurationOverrider.override(config).settingNamespace(namespace);
    configuration.accept(overrider);
    operator.register(reconciler, overrider.build());
    operator.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (namespace != null) {
      client.namespaces().withName(namespace).delete();
    }
    // Stopping the operator closes the client it was given.
    if (operator != null) {
      operator.stop();
    }
    client.close();
  }

  /** The class's simple name and a random suffix, within a namespace name's 63 characters. */
  static String namespaceFor(Class<?> testClass) {
    String name = testClass.getSimpleName();
    name =
        name.substring(0, Math.min(name.length(), 54))
            + "-"
            + UUID.randomUUID().toString().substring(0, 8);
    name = KubernetesResourceUtil.sanitizeName(name).toLowerCase(Locale.ROOT);
    return name;
  }

  /** Applies the generated CRD named {@code crdName} and waits until the API server serves it. */
  void applyCrd(String crdName) {
    String path = "/META-INF/fabric8/" + crdName + "-v1.yml";
    try (InputStream in = LocalOperator.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("no CRD on the class path at " + path);
      }
      client.load(in).serverSideApply();
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + path, e);
    }
    Awaitility.await("CRD " + crdName + " Established")
        .atMost(CRD_ESTABLISHED)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                established(
                    client.resources(CustomResourceDefinition.class).withName(crdName).get()));
  }

  /**
   * Whether the API server serves {@code crd}. Right after the CRD is applied its status may still
   * be there without conditions (a CI run read {@code null} there once): not established yet.
   */
  public static boolean established(CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  public String getNamespace() {
    return namespace;
  }

  public KubernetesClient getKubernetesClient() {
    return client;
  }

  public <T extends HasMetadata> T get(Class<T> type, String name) {
    return client.resources(type).inNamespace(namespace).withName(name).get();
  }

  public <T extends HasMetadata> T create(T resource) {
    return client.resource(resource).inNamespace(namespace).create();
  }

  public <T extends HasMetadata> T replace(T resource) {
    return client.resource(resource).inNamespace(namespace).replace(resource);
  }

  public <T extends HasMetadata> boolean delete(T resource) {
    return client.resource(resource).inNamespace(namespace).delete().size() == 1;
  }
}
