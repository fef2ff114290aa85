package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Keys;
import dev.cellar.operator.Topology;
import dev.cellar.operator.cache.CachePruning;
import dev.cellar.operator.engine.EngineProfiles;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Matcher;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The engine's configuration files and scripts, mounted into the database pods. The informer keeps
 * these ConfigMaps without their files, only their hash ({@link CachePruning}): the scripts are
 * about 22 KB per Database, the same for every Database of an engine.
 */
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

  /**
   * Equal when the files hash the same and every label Cellar sets is there. The cached ConfigMap
   * holds only the hash of its files ({@link CachePruning}); one just written (JOSDK's own cache of
   * its writes) holds the files, and is hashed here.
   */
  @Override
  public Matcher.Result<ConfigMap> match(
      ConfigMap actual, ConfigMap desired, Database db, Context<Database> context) {
    return Matcher.Result.computed(matches(desired, actual), desired);
  }

  static boolean matches(ConfigMap desired, ConfigMap actual) {
    Map<String, String> labels =
        Optional.ofNullable(actual.getMetadata().getLabels()).orElse(Map.of());
    return labels.entrySet().containsAll(desired.getMetadata().getLabels().entrySet())
        && CachePruning.dataHash(actual).equals(CachePruning.dataHash(desired));
  }
}
