package dev.cellar.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import dev.cellar.kubelean.CachePruning;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.engine.VersionDecision;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.storage.StoragePlan;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The informers keep part of each StatefulSet and backup CronJob ({@link CachePruning}): every
 * reader of them in Cellar reads the same of the part as of the whole.
 */
class PrunedChildrenTest {
  static StatefulSet running(Database db) {
    StatefulSet sts =
        new StatefulSetBuilder(DesiredStateTest.statefulSet(db, Optional.empty()))
            .editMetadata()
            .withGeneration(3L)
            .withUid("sts-uid")
            .endMetadata()
            .withStatus(
                new StatefulSetStatusBuilder()
                    .withObservedGeneration(3L)
                    .withReplicas(3)
                    .withReadyReplicas(2)
                    .withUpdatedReplicas(3)
                    .withCurrentRevision("r1")
                    .withUpdateRevision("r2")
                    .build())
            .build();
    sts.getSpec().setReplicas(3);
    // A claim template smaller than the spec asks (a resize under way), so its size is read.
    sts.getSpec()
        .getVolumeClaimTemplates()
        .get(0)
        .getSpec()
        .getResources()
        .setRequests(java.util.Map.of("storage", new Quantity("50Gi")));
    return sts;
  }

  static <T extends HasMetadata> T pruned(T whole, UnaryOperator<T> copy) {
    return CachePruning.prune(copy.apply(whole));
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void everyReaderOfAStatefulSetReadsTheSameOfWhatTheCacheKeeps(Engine engine) {
    Database db = DesiredStateTest.db(engine, engine == Engine.POSTGRESQL ? "16" : "11.4");
    if (engine == Engine.MYSQL) {
      db.getSpec().setVersion("8.4");
    }
    db.getSpec().setReplicas(3);
    StatefulSet whole = running(db);
    StatefulSet part = pruned(whole, s -> new StatefulSetBuilder(s).build());
    assertThat(CachePruning.specPruned(part)).isTrue();
    assertThat(StoragePlan.dataTemplateSize(db, Optional.of(part))).hasToString("50Gi");
    assertThat(part.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv()).isEmpty();

    Topology t = Topology.of(db);
    assertThat(Topology.runningImage(part)).isEqualTo(Topology.runningImage(whole));
    assertThat(Topology.runningVersion(part)).isEqualTo(Topology.runningVersion(whole));
    VersionDecision decision = t.versionDecision(Optional.of(whole));
    assertThat(t.versionDecision(Optional.of(part))).isEqualTo(decision);
    assertThat(t.image(decision, Optional.of(part)))
        .isEqualTo(t.image(decision, Optional.of(whole)));
    assertThat(Topology.upgradedFromImage(decision, Optional.of(part)))
        .isEqualTo(Topology.upgradedFromImage(decision, Optional.of(whole)));
    assertThat(StoragePlan.dataTemplateSize(db, Optional.of(part)))
        .isEqualTo(StoragePlan.dataTemplateSize(db, Optional.of(whole)));
    // Its pods as the cache keeps them: their revision labels are what a roll is counted by.
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      pods.add(
          CachePruning.prune(
              new PodBuilder()
                  .withNewMetadata()
                  .withName(t.statefulSet() + "-" + i)
                  .addToLabels(Keys.REVISION, i < 2 ? "r2" : "r1")
                  .endMetadata()
                  .build()));
    }
    for (int desired = 0; desired <= 3; desired++) {
      assertThat(PodFacts.rolledOut(part, desired, pods))
          .isEqualTo(PodFacts.rolledOut(whole, desired, pods));
    }
    assertThat(PodFacts.rolledOut(whole, 3, pods)).isFalse();
    assertThat(PodFacts.rolledOut(whole, 3, pods.subList(0, 2))).isFalse();
    EngineProfile profile = t.profile();
    assertThat(
            ConfigMapDependent.scriptsStillReadHere(
                profile.configFiles(db), profile, Optional.of(part), pods, Optional.empty()))
        .isEqualTo(
            ConfigMapDependent.scriptsStillReadHere(
                profile.configFiles(db), profile, Optional.of(whole), pods, Optional.empty()));
    // What the StatefulSet dependent builds from the existing one is the same too.
    StatefulSetDependent dependent = new StatefulSetDependent();
    assertThat(dependent.desired(db, Optional.of(part), decision))
        .isEqualTo(dependent.desired(db, Optional.of(whole), decision));
  }

  @Test
  void aTemplateThatStillMountsTheConfigMapIsToldApartWhenPruned() {
    ConfigMapScriptsTest scripts = new ConfigMapScriptsTest();
    StatefulSet whole = scripts.older();
    StatefulSet part = pruned(whole, s -> new StatefulSetBuilder(s).build());
    assertThat(scripts.keeps(Optional.of(part), false, Optional.empty()))
        .isTrue()
        .isEqualTo(scripts.keeps(Optional.of(whole), false, Optional.empty()));
  }

  @ParameterizedTest
  @EnumSource(
      value = Engine.class,
      names = {"POSTGRESQL", "MARIADB"})
  void whetherBackupsPauseReadsTheSameOfWhatTheCacheKeeps(Engine engine) {
    Database db = DesiredStateTest.db(engine, engine == Engine.POSTGRESQL ? "16" : "11.4");
    for (boolean suspend : new boolean[] {false, true}) {
      CronJob whole = new BackupCronJobDependent().desired(db, "image:1", suspend);
      CronJob part = pruned(whole, c -> new CronJobBuilder(c).build());
      assertThat(CachePruning.specPruned(part)).isTrue();
      assertThat(part.getSpec().getJobTemplate()).isNull();
      for (boolean primaryReady : new boolean[] {false, true}) {
        assertThat(BackupCronJobDependent.suspended(db, Optional.of(part), primaryReady))
            .isEqualTo(BackupCronJobDependent.suspended(db, Optional.of(whole), primaryReady));
      }
    }
  }
}
