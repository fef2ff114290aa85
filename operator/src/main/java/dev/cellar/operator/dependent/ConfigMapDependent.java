package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Labels;
import dev.cellar.operator.engine.EngineProfiles;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.TreeMap;

/** The engine's configuration files and scripts, mounted into the database pods. */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_SELECTOR))
public class ConfigMapDependent extends OwnedChild<ConfigMap> {

  public ConfigMapDependent() {
    super(ConfigMap.class);
  }

  public static String name(Database db) {
    return db.getMetadata().getName() + "-config";
  }

  @Override
  protected String childName(Database db) {
    return name(db);
  }

  @Override
  protected ConfigMap desired(Database db, Context<Database> context) {
    return new ConfigMapBuilder()
        .withMetadata(metadata(db, Labels.Component.DATABASE))
        .withData(new TreeMap<>(EngineProfiles.of(db).configFiles(db)))
        .build();
  }
}
