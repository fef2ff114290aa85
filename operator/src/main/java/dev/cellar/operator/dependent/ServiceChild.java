package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Labels;
import dev.cellar.operator.engine.EngineProfiles;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.ServiceSpecBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The three Services of a Database share one informer (the headless Service dependent's, which the
 * workflow names "headless") and differ only in name, selector and cluster IP.
 */
abstract class ServiceChild extends OwnedChild<Service> {
  static final String PORT_NAME = "db";

  ServiceChild() {
    super(Service.class);
  }

  /** A Service's DNS name in the cluster. */
  static String dnsName(String service, Database db) {
    return service + "." + db.getMetadata().getNamespace() + ".svc.cluster.local";
  }

  /** The database pods' selector plus one more label. */
  static Map<String, String> databasePodsWith(Database db, String key, String value) {
    Map<String, String> selector =
        new LinkedHashMap<>(Labels.selector(db, Labels.Component.DATABASE));
    selector.put(key, value);
    return selector;
  }

  /** The pods this Service reaches. */
  protected abstract Map<String, String> selector(Database db);

  /** Spec fields beyond ports and selector; the API server's defaults are written explicitly. */
  protected void customize(ServiceSpecBuilder spec) {
    spec.withType("ClusterIP");
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
                    .build());
    customize(spec);
    return new ServiceBuilder()
        .withMetadata(metadata(db, Labels.Component.DATABASE))
        .withSpec(spec.build())
        .build();
  }
}
