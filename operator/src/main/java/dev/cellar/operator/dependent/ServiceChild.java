package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.engine.EngineProfiles;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceSpecBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Matcher;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The three Services of a Database share one informer (the headless Service dependent's, which the
 * workflow names "headless") and differ only in name, selector and cluster IP.
 */
abstract class ServiceChild extends OwnedChild<Service> {
  /** The database port's name on the container and every Service. */
  static final String PORT_NAME = "db";

  ServiceChild() {
    super(Service.class);
  }

  /** The database pods' selector plus one more label. */
  static Map<String, String> databasePodsWith(Database db, String key, String value) {
    Map<String, String> selector = new LinkedHashMap<>(Keys.selector(db, Keys.Component.DATABASE));
    selector.put(key, value);
    return selector;
  }

  /** The pods this Service reaches. */
  protected abstract Map<String, String> selector(Database db);

  /** Spec fields beyond ports and selector; the API server's defaults are written explicitly. */
  protected void customize(ServiceSpecBuilder spec) {
    spec.withType("ClusterIP");
  }

  /** Ports after the database port; none but on the headless Service. */
  protected List<ServicePort> extraPorts(Database db) {
    return List.of();
  }

  @Override
  protected Service desired(Database db, Context<Database> context) {
    int port = EngineProfiles.of(db).port();
    ServiceSpecBuilder spec =
        new ServiceSpecBuilder()
            .withSelector(selector(db))
            .withPorts(
                new ServicePortBuilder()
                    .withName(PORT_NAME)
                    .withPort(port)
                    .withTargetPort(new IntOrString(port))
                    .withProtocol("TCP")
                    .build())
            .addAllToPorts(extraPorts(db));
    customize(spec);
    return new ServiceBuilder()
        .withMetadata(metadata(db, Keys.Component.DATABASE))
        .withSpec(spec.build())
        .build();
  }

  /**
   * Compares only what Cellar sets. JOSDK's generic JSON-diff matcher found the headless Service
   * different on every reconcile and updated it each time, an API write per reconcile.
   */
  @Override
  public Matcher.Result<Service> match(
      Service actual, Service desired, Database db, Context<Database> context) {
    return Matcher.Result.computed(matches(desired, actual), desired);
  }

  /** Whether {@code actual} has every label, port and spec field that {@code desired} sets. */
  static boolean matches(Service desired, Service actual) {
    Map<String, String> labels = actual.getMetadata().getLabels();
    ServiceSpec want = desired.getSpec();
    ServiceSpec have = actual.getSpec();
    return labels != null
        && labels.entrySet().containsAll(desired.getMetadata().getLabels().entrySet())
        && have != null
        && Objects.equals(want.getSelector(), have.getSelector())
        && Objects.equals(want.getType(), have.getType())
        && (want.getClusterIP() == null || want.getClusterIP().equals(have.getClusterIP()))
        && (want.getPublishNotReadyAddresses() == null
            || want.getPublishNotReadyAddresses().equals(have.getPublishNotReadyAddresses()))
        && ports(want).equals(ports(have));
  }

  private static List<List<Object>> ports(ServiceSpec spec) {
    return spec.getPorts() == null
        ? List.of()
        : spec.getPorts().stream()
            .map(
                (ServicePort p) ->
                    List.<Object>of(
                        Objects.toString(p.getName(), ""),
                        p.getPort(),
                        Objects.toString(p.getTargetPort(), ""),
                        Objects.toString(p.getProtocol(), "TCP")))
            .toList();
  }
}
