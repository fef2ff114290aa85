package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Version changes, storage growth and scaling on the local cluster. */
class DayTwoIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  Database createReady(String name, Engine engine, String version, Consumer<DatabaseSpec> spec) {
    DatabaseSpec s = new DatabaseSpec(engine, version, "1Gi");
    spec.accept(s);
    operator.create(new Database(null, name, s));
    return awaitPhase(name, Phase.Ready);
  }

  StatefulSet sts(String name) {
    return operator.get(StatefulSet.class, name);
  }

  static String image(StatefulSet sts) {
    return sts.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
  }

  @Test
  void aMinorUpgradeRollsTheImageAndTheStatusFollows() {
    createReady("minor", Engine.POSTGRESQL, "16.2", s -> {});
    assertThat(get("minor").getStatus().getVersion()).isEqualTo("16.2");
    edit("minor", s -> s.setVersion("16.4"));
    await("the new version runs")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(image(sts("minor"))).isEqualTo("postgres:16.4");
              Database db = get("minor");
              assertThat(db.getStatus().getVersion()).isEqualTo("16.4");
              assertThat(db.getStatus().getPhase()).isEqualTo(Phase.Ready);
              assertThat(db.getStatus().getObservedGeneration())
                  .isEqualTo(db.getMetadata().getGeneration());
            });
    assertThat(sts("minor").getMetadata().getAnnotations())
        .containsEntry("cellar.dev/version", "16.4");
  }

  @Test
  void downgradesAndPostgresMajorChangesAreRefusedAndNothingRollsOut() {
    createReady("refuse", Engine.POSTGRESQL, "16.4", s -> {});
    StatefulSet before = sts("refuse");

    edit("refuse", s -> s.setVersion("16.2"));
    Database db = awaitPhase("refuse", Phase.Degraded);
    assertThat(condition(db, Type.DEGRADED).getReason())
        .isEqualTo(Reason.DOWNGRADE_REFUSED.value());
    assertThat(condition(db, Type.DEGRADED).getMessage()).contains("16.4 or newer");
    assertThat(db.getStatus().getVersion()).isEqualTo("16.4");
    await("a DowngradeRefused event")
        .atMost(CONVERGE)
        .until(() -> hasEvent("refuse", Reason.DOWNGRADE_REFUSED.value()));

    edit("refuse", s -> s.setVersion("18"));
    await("MajorUpgradeUnsupported")
        .atMost(CONVERGE)
        .untilAsserted(
            () ->
                assertThat(condition(get("refuse"), Type.DEGRADED).getReason())
                    .isEqualTo(Reason.MAJOR_UPGRADE_UNSUPPORTED.value()));
    await("a MajorUpgradeUnsupported event")
        .atMost(CONVERGE)
        .until(() -> hasEvent("refuse", Reason.MAJOR_UPGRADE_UNSUPPORTED.value()));
    StatefulSet after = sts("refuse");
    assertThat(after.getMetadata().getGeneration())
        .as("the StatefulSet was not touched")
        .isEqualTo(before.getMetadata().getGeneration());
    assertThat(image(after)).isEqualTo("postgres:16.4");

    edit("refuse", s -> s.setVersion("16.4"));
    awaitPhase("refuse", Phase.Ready);
  }

  @Test
  void aPostgresMajorUpgradeDumpsWithTheOldImageRestoresIntoANewDirectoryAndCanRollBack() {
    createReady("pgmajor", Engine.POSTGRESQL, "15", s -> {});
    // kwok's pods come and go at once: the status passes UpgradingMajor too fast to be seen here
    // (the real node's MajorUpgradeRealNodeIT sees it); the StatefulSet is what this proves.
    edit("pgmajor", s -> s.setVersion("17"));
    await("17 runs, from a new data directory, after a dump by the 15 image")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              StatefulSet sts = sts("pgmajor");
              assertThat(image(sts)).isEqualTo("postgres:17");
              assertThat(sts.getMetadata().getAnnotations())
                  .containsEntry(Keys.VERSION_ANNOTATION, "17")
                  .containsEntry(Keys.UPGRADED_FROM_ANNOTATION, "15")
                  .containsEntry(Keys.UPGRADED_FROM_IMAGE_ANNOTATION, "postgres:15");
              var init = sts.getSpec().getTemplate().getSpec().getInitContainers();
              assertThat(init).hasSize(1);
              assertThat(init.get(0).getName()).isEqualTo(ChildNames.MAJOR_UPGRADE_CONTAINER);
              assertThat(init.get(0).getImage()).isEqualTo("postgres:15");
              assertThat(init.get(0).getCommand()).contains("dump");
              var env = sts.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv();
              assertThat(env)
                  .anySatisfy(
                      e -> {
                        assertThat(e.getName()).isEqualTo("PGDATA");
                        assertThat(e.getValue()).isEqualTo("/var/lib/postgresql/data/pgdata-17");
                      })
                  .anySatisfy(
                      e -> {
                        assertThat(e.getName()).isEqualTo("CELLAR_UPGRADE_OLD_DATA");
                        assertThat(e.getValue()).isEqualTo("/var/lib/postgresql/data/pgdata");
                      });
              Database db = get("pgmajor");
              assertThat(db.getStatus().getVersion()).isEqualTo("17");
              assertThat(db.getStatus().getPhase()).isEqualTo(Phase.Ready);
            });

    // A later reconcile keeps the record; the way back is the old major on its own directory.
    edit("pgmajor", s -> s.setVersion("15"));
    await("15 runs again on its old data directory")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              StatefulSet sts = sts("pgmajor");
              assertThat(image(sts)).isEqualTo("postgres:15");
              assertThat(sts.getMetadata().getAnnotations())
                  .doesNotContainKey(Keys.UPGRADED_FROM_ANNOTATION);
              assertThat(sts.getSpec().getTemplate().getSpec().getInitContainers()).isEmpty();
              assertThat(get("pgmajor").getStatus().getVersion()).isEqualTo("15");
              assertThat(get("pgmajor").getStatus().getPhase()).isEqualTo(Phase.Ready);
            });
  }

  @Test
  void aPostgresMajorUpgradeWithReplicasIsRefusedUntilOnePodRuns() {
    createReady("pgthree", Engine.POSTGRESQL, "15", s -> s.setReplicas(2));
    StatefulSet before = sts("pgthree");
    edit("pgthree", s -> s.setVersion("17"));
    Database db = awaitPhase("pgthree", Phase.Degraded);
    assertThat(condition(db, Type.DEGRADED).getReason())
        .isEqualTo(Reason.MAJOR_UPGRADE_UNSUPPORTED.value());
    assertThat(condition(db, Type.DEGRADED).getMessage()).contains("spec.replicas to 1");
    assertThat(sts("pgthree").getMetadata().getGeneration())
        .isEqualTo(before.getMetadata().getGeneration());
  }

  @Test
  void mysqlMajorUpgradesGoAhead() {
    createReady("major", Engine.MYSQL, "8.4", s -> {});
    edit("major", s -> s.setVersion("9"));
    await("mysql 9 runs")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(image(sts("major"))).isEqualTo("mysql:9");
              assertThat(get("major").getStatus().getVersion()).isEqualTo("9");
              assertThat(get("major").getStatus().getPhase()).isEqualTo(Phase.Ready);
            });
  }

  @Test
  void storageGrowsOnAnExpandableClassWithoutRestartingPods() {
    createReady("grow", Engine.MARIADB, "11.4", s -> s.setStorageClassName("standard"));
    assertThat(hasEvent("grow", Reason.RESIZING_STORAGE.value()))
        .as("volumes being provisioned are no resize")
        .isFalse();
    String stsUid = sts("grow").getMetadata().getUid();
    Pod pod = operator.get(Pod.class, "grow-0");
    String podUid = pod.getMetadata().getUid();

    edit("grow", s -> s.setStorage("3Gi"));
    await("PVC grown, StatefulSet recreated, Ready again")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              PersistentVolumeClaim pvc = operator.get(PersistentVolumeClaim.class, "data-grow-0");
              assertThat(pvc.getStatus().getCapacity().get("storage"))
                  .isEqualTo(new Quantity("3Gi"));
              StatefulSet sts = sts("grow");
              assertThat(sts).isNotNull();
              assertThat(sts.getMetadata().getUid()).isNotEqualTo(stsUid);
              assertThat(
                      sts.getSpec()
                          .getVolumeClaimTemplates()
                          .get(0)
                          .getSpec()
                          .getResources()
                          .getRequests()
                          .get("storage"))
                  .isEqualTo(new Quantity("3Gi"));
              assertThat(get("grow").getStatus().getPhase()).isEqualTo(Phase.Ready);
            });
    Pod now = operator.get(Pod.class, "grow-0");
    assertThat(now.getMetadata().getUid())
        .as(
            () ->
                "the pod kept running (revision "
                    + pod.getMetadata().getLabels().get("controller-revision-hash")
                    + " before, "
                    + now.getMetadata().getLabels().get("controller-revision-hash")
                    + " now, StatefulSet's "
                    + sts("grow").getStatus().getUpdateRevision()
                    + "); events:"
                    + eventsAbout("grow", "grow-0"))
        .isEqualTo(podUid);
    await("a ResizingStorage event")
        .atMost(CONVERGE)
        .until(() -> hasEvent("grow", Reason.RESIZING_STORAGE.value()));
  }

  @Test
  void storageOnAFixedClassTouchesNothingAndSaysWhatToDo() {
    createReady("fixed", Engine.POSTGRESQL, "16", s -> s.setStorageClassName("fixed"));
    StatefulSet before = sts("fixed");
    edit("fixed", s -> s.setStorage("5Gi"));
    Database db = awaitPhase("fixed", Phase.Degraded);
    assertThat(condition(db, Type.DEGRADED).getReason())
        .isEqualTo(Reason.RESIZE_UNSUPPORTED.value());
    assertThat(db.getStatus().getPendingAction())
        .contains("allowVolumeExpansion")
        .contains("fixed-backups");
    assertThat(sts("fixed").getMetadata().getUid()).isEqualTo(before.getMetadata().getUid());
    assertThat(
            operator
                .get(PersistentVolumeClaim.class, "data-fixed-0")
                .getSpec()
                .getResources()
                .getRequests()
                .get("storage"))
        .isEqualTo(new Quantity("1Gi"));
    await("a ResizeUnsupported event")
        .atMost(CONVERGE)
        .until(() -> hasEvent("fixed", Reason.RESIZE_UNSUPPORTED.value()));
  }

  @Test
  void scalingUpAndDownManagesTheReadOnlyServiceAndBudgetAndKeepsVolumes() {
    createReady("scale", Engine.POSTGRESQL, "16", s -> {});
    assertThat(operator.get(Service.class, "scale-ro")).isNull();

    edit("scale", s -> s.setReplicas(3));
    Database db = awaitPhase("scale", Phase.Ready);
    assertThat(db.getStatus().getReadyReplicas()).isEqualTo(3);
    assertThat(db.getStatus().getReadOnlyEndpoint()).startsWith("scale-ro.");
    assertThat(operator.get(Service.class, "scale-ro")).isNotNull();
    assertThat(
            operator
                .get(PodDisruptionBudget.class, "scale")
                .getSpec()
                .getMaxUnavailable()
                .getIntVal())
        .isEqualTo(1);
    await("pods labelled by role")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(operator.get(Pod.class, "scale-0").getMetadata().getLabels())
                  .containsEntry("cellar.dev/role", "primary");
              assertThat(operator.get(Pod.class, "scale-2").getMetadata().getLabels())
                  .containsEntry("cellar.dev/role", "replica");
            });
    await("the read-only Service reaches only the replicas")
        .atMost(CONVERGE)
        .untilAsserted(
            () ->
                assertThat(
                        client
                            .discovery()
                            .v1()
                            .endpointSlices()
                            .inNamespace(operator.getNamespace())
                            .withLabel("kubernetes.io/service-name", "scale-ro")
                            .list()
                            .getItems()
                            .stream()
                            .flatMap(s -> s.getEndpoints().stream())
                            .map(e -> e.getTargetRef().getName()))
                    .containsExactlyInAnyOrder("scale-1", "scale-2"));

    edit("scale", s -> s.setReplicas(1));
    await("back to one")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(get("scale").getStatus().getPhase()).isEqualTo(Phase.Ready);
              assertThat(get("scale").getStatus().getReadyReplicas()).isEqualTo(1);
              assertThat(operator.get(Service.class, "scale-ro")).isNull();
              assertThat(operator.get(PodDisruptionBudget.class, "scale")).isNull();
            });
    assertThat(operator.get(PersistentVolumeClaim.class, "data-scale-1"))
        .as("scale-down keeps volumes")
        .isNotNull();
    assertThat(operator.get(PersistentVolumeClaim.class, "data-scale-2")).isNotNull();
    assertThat(get("scale").getStatus().getReadOnlyEndpoint()).isNull();
  }
}
