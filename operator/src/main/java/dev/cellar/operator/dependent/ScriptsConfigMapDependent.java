package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The engine's scripts ({@link EngineProfile#scripts()}), one immutable ConfigMap per namespace and
 * engine that every Database of the engine there mounts; its name carries the scripts' hash, so an
 * operator with other scripts makes a new one and the pods roll onto it.
 *
 * <p>No Database owns it: deleting one Database must not take the scripts of the others. So it has
 * no owner reference (nor JOSDK's annotations naming one primary); its events go to every Database
 * of the engine in its namespace, and each finds it by name. When it is deleted, the next reconcile
 * of any of them creates it again. Left behind: the ConfigMap once the last Database of its engine
 * in the namespace is gone, and an older operator's after an upgrade (docs/reference.md says so): a
 * pod that restarts during the roll may still mount the old one, so Cellar does not delete it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.SCRIPTS_SELECTOR))
public class ScriptsConfigMapDependent extends DatabaseChild<ConfigMap>
    implements Creator<ConfigMap, Database> {

  public ScriptsConfigMapDependent() {
    super(ConfigMap.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.scriptsConfigMap();
  }

  @Override
  protected ConfigMap desired(Database db, Context<Database> context) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(childName(Topology.of(db)))
        .withNamespace(db.getMetadata().getNamespace())
        .withLabels(Keys.scriptsLabels(db.getSpec().getEngine()))
        .endMetadata()
        .withImmutable(true)
        .withData(Topology.of(db).profile().scripts())
        .build();
  }

  /** Shared: no owner reference, and no annotation naming one Database. */
  @Override
  protected void addReferenceHandlingMetadata(ConfigMap desired, Database db) {}

  @Override
  public ConfigMap create(ConfigMap desired, Database db, Context<Database> context) {
    // Databases of the engine race to create it: the first wins, the others take it.
    return createOrTake(desired, db, context, existing -> existing);
  }

  /** Missing from the informer, it is missing (no user makes it): create, and read on a race. */
  @Override
  protected boolean createFirst(Database db) {
    return true;
  }

  /** Every Database of the ConfigMap's engine in its namespace. */
  @Override
  protected Optional<SecondaryToPrimaryMapper<ConfigMap>> getSecondaryToPrimaryMapper(
      EventSourceContext<Database> context) {
    var databases = context.getPrimaryCache();
    return Optional.of(
        configMap -> {
          String engine = configMap.getMetadata().getLabels().get(Keys.NAME);
          return databases
              .list(configMap.getMetadata().getNamespace())
              .filter(db -> db.getSpec().getEngine().value().equals(engine))
              .map(ResourceID::fromResource)
              .collect(Collectors.toSet());
        });
  }

  /**
   * A Database finds its scripts by name alone (JOSDK's index from the events' mapping would miss a
   * Database created after the ConfigMap's last event), and the name, which carries the engine,
   * says it is the Database's.
   */
  @Override
  protected boolean nameAlone() {
    return true;
  }
}
