package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Keys;
import dev.cellar.operator.Topology;
import dev.cellar.operator.engine.EngineProfiles;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.TreeMap;

/** The engine's configuration files and scripts, mounted into the database pods. */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class ConfigMapDependent extends OwnedChild<ConfigMap> {

  public ConfigMapDependent() {
    super(ConfigMap.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.configMap();
  }

  @Override
  protected ConfigMap desired(Database db, Context<Database> context) {
    return new ConfigMapBuilder()
        .withMetadata(metadata(db, Keys.Component.DATABASE))
        .withData(new TreeMap<>(EngineProfiles.of(db).configFiles(db)))
        .build();
  }
}
