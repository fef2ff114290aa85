package dev.cellar.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import dev.cellar.kubelean.CachePruning;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.engine.EngineProfiles;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The move of the scripts out of each Database's ConfigMap, for Databases that an operator from
 * before it made: their pods mount {@code <name>-config} whole and run the scripts from there, so
 * it keeps them until every pod runs a template that mounts the scripts ConfigMap.
 */
class ConfigMapScriptsTest {
  final Database db = DesiredStateTest.db(Engine.POSTGRESQL, "16");
  final EngineProfile profile = EngineProfiles.of(Engine.POSTGRESQL);
  final Map<String, String> config = profile.configFiles(db);

  /** The StatefulSet as Cellar writes it now, its controller at generation 2. */
  StatefulSet current() {
    StatefulSet sts = DesiredStateTest.statefulSet(db, Optional.empty());
    sts.getMetadata().setGeneration(2L);
    sts.setStatus(
        new StatefulSetStatusBuilder()
            .withObservedGeneration(2L)
            .withReplicas(1)
            .withCurrentRevision("orders-db-old")
            .withUpdateRevision("orders-db-new")
            .build());
    return sts;
  }

  /** As an operator before the scripts ConfigMap wrote it: the config volume is a ConfigMap's. */
  StatefulSet older() {
    StatefulSet sts = current();
    sts.getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(v -> v.getName().equals(StatefulSetDependent.CONFIG_VOLUME))
        .findFirst()
        .ifPresent(
            v -> {
              var volumes = sts.getSpec().getTemplate().getSpec().getVolumes();
              volumes.set(
                  volumes.indexOf(v),
                  new VolumeBuilder()
                      .withName(StatefulSetDependent.CONFIG_VOLUME)
                      .withNewConfigMap()
                      .withName(Topology.of(db).configMap())
                      .endConfigMap()
                      .build());
            });
    return sts;
  }

  /** The ConfigMap as the informer keeps it: its files' hash. */
  Optional<ConfigMap> cached(boolean withScripts) {
    Map<String, String> files = new TreeMap<>(config);
    if (withScripts) {
      files.putAll(profile.scripts());
    }
    ConfigMap cm = new ConfigMapBuilder().withData(files).build();
    // As CachePruning leaves it: no binaryData, one key that no ConfigMap on a server can have.
    ConfigMap pruned = new ConfigMap();
    pruned.setData(Map.of(CachePruning.DATA_HASH, CachePruning.dataHash(cm)));
    pruned.setBinaryData(null);
    return Optional.of(pruned);
  }

  /** The Database's one pod, on the old template or the new one. */
  static List<Pod> pod(boolean onTheNewTemplate) {
    return List.of(
        new PodBuilder()
            .withNewMetadata()
            .withName("orders-db-0")
            .addToLabels(Keys.REVISION, onTheNewTemplate ? "orders-db-new" : "orders-db-old")
            .endMetadata()
            .build());
  }

  boolean keeps(Optional<StatefulSet> sts, boolean rolledOut, Optional<ConfigMap> actual) {
    return ConfigMapDependent.scriptsStillReadHere(config, profile, sts, pod(rolledOut), actual);
  }

  @Test
  void aNewDatabaseNeverHasTheScriptsInItsOwnConfigMap() {
    assertThat(keeps(Optional.empty(), false, Optional.empty())).isFalse();
    assertThat(keeps(Optional.of(current()), false, cached(false))).isFalse();
    assertThat(keeps(Optional.of(current()), true, cached(false))).isFalse();
  }

  @Test
  void podsOfAnOlderTemplateKeepTheirScriptsUntilEveryPodRunsTheNewOne() {
    // The upgraded operator's first reconcile: the template still mounts the ConfigMap whole.
    assertThat(keeps(Optional.of(older()), false, cached(false))).isTrue();
    // The new template is written; the pods roll one by one, the old ones still read it.
    assertThat(keeps(Optional.of(current()), false, cached(true))).isTrue();
    // Every pod runs the new template: one write drops them.
    assertThat(keeps(Optional.of(current()), true, cached(true))).isFalse();
  }

  @Test
  void theNewTemplateMountsOnlyTheDatabasesOwnFilesFromItsConfigMap() {
    var sources =
        current().getSpec().getTemplate().getSpec().getVolumes().stream()
            .filter(v -> v.getName().equals(StatefulSetDependent.CONFIG_VOLUME))
            .findFirst()
            .orElseThrow()
            .getProjected()
            .getSources();
    assertThat(sources.get(0).getConfigMap().getName()).isEqualTo("orders-db-config");
    assertThat(sources.get(0).getConfigMap().getItems())
        .extracting(i -> i.getKey())
        .containsExactlyElementsOf(new TreeMap<>(config).keySet());
    assertThat(sources.get(1).getConfigMap().getName())
        .isEqualTo(Topology.of(db).scriptsConfigMap());
  }
}
