package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.engine.EngineProfiles;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.informers.Informers;
import dev.cellar.operator.topology.Children;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Matcher;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The Database's configuration files, mounted into the database pods beside the engine's scripts
 * ({@link ScriptsConfigMapDependent}). The informer keeps these ConfigMaps without their files,
 * only their hash ({@link Informers#filesHash}).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.CHILD_SELECTOR))
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
    Optional<ConfigMap> actual =
        eventSource()
            .flatMap(
                source ->
                    source.get(
                        new ResourceID(
                            childName(Topology.of(db)), db.getMetadata().getNamespace())));
    Topology topology = Topology.of(db);
    List<Pod> pods =
        context.getSecondaryResources(Pod.class).stream()
            .filter(p -> topology.isPod(p.getMetadata().getName()))
            .toList();
    return desired(db, Children.statefulSet(db, context), pods, actual);
  }

  /** The ConfigMap, given the StatefulSet, its pods and the ConfigMap as they are. */
  ConfigMap desired(
      Database db, Optional<StatefulSet> sts, List<Pod> pods, Optional<ConfigMap> actual) {
    EngineProfile profile = EngineProfiles.of(db);
    Map<String, String> files = new TreeMap<>(profile.configFiles(db));
    if (scriptsStillReadHere(files, profile, sts, pods, actual)) {
      files.putAll(profile.scripts());
    }
    return new ConfigMapBuilder()
        .withMetadata(metadata(db, Keys.Component.DATABASE))
        .withData(files)
        .build();
  }

  /**
   * Whether pods may still run the engine's scripts from this ConfigMap. A pod of a template from
   * before the scripts had a ConfigMap of their own mounts this one whole, and its entrypoint,
   * probes and role.sh (failover) run from it. So the scripts stay here while the StatefulSet's
   * template is such a one, and while this ConfigMap still has them and not every pod runs the new
   * template (the pods roll once, primary last); then one write drops them. A new Database never
   * has them here. (Settings changed in the same roll drop them early: the old pods then go unready
   * until the roll replaces them.)
   */
  static boolean scriptsStillReadHere(
      Map<String, String> configFiles,
      EngineProfile profile,
      Optional<StatefulSet> sts,
      List<Pod> pods,
      Optional<ConfigMap> actual) {
    if (sts.isEmpty()) {
      return false;
    }
    boolean oldTemplate =
        sts.get().getSpec().getTemplate().getSpec().getVolumes().stream()
            .anyMatch(
                v ->
                    StatefulSetDependent.CONFIG_VOLUME.equals(v.getName())
                        && v.getConfigMap() != null);
    if (oldTemplate) {
      return true;
    }
    if (PodFacts.rolledOut(
        sts.get(), Optional.ofNullable(sts.get().getSpec().getReplicas()).orElse(1), pods)) {
      return false;
    }
    Map<String, String> withScripts = new TreeMap<>(configFiles);
    withScripts.putAll(profile.scripts());
    String hashWithScripts =
        Informers.bound().filesHash(new ConfigMapBuilder().withData(withScripts).build());
    return actual.map(Informers.bound()::filesHash).filter(hashWithScripts::equals).isPresent();
  }

  /**
   * Equal when the files hash the same and every label Cellar sets is there. The cached ConfigMap
   * may hold only the hash of its files ({@link Informers#filesHash}); one just written (JOSDK's
   * own cache of its writes) holds the files, and is hashed here.
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
        && Informers.bound().filesHash(actual).equals(Informers.bound().filesHash(desired));
  }
}
