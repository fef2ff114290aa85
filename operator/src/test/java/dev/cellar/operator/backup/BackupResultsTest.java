package dev.cellar.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading backup Jobs' results, and which Database updates are reconciled. */
class BackupResultsTest {
  static Job job(String condition) {
    return new JobBuilder()
        .withNewMetadata()
        .withName("orders-backup-1")
        .endMetadata()
        .withNewStatus()
        .addNewCondition()
        .withType(condition)
        .withStatus("True")
        .withReason("BackoffLimitExceeded")
        .withMessage("Job has reached the specified backoff limit")
        .endCondition()
        .endStatus()
        .build();
  }

  static Pod pod(String created, Integer exit, String message) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p" + created)
        .withCreationTimestamp(created)
        .endMetadata()
        .withNewStatus()
        .addNewContainerStatus()
        .withName(ChildNames.BACKUP_CONTAINER)
        .withNewState()
        .withNewTerminated()
        .withExitCode(exit)
        .withReason(exit == 0 ? "Completed" : "Error")
        .withMessage(message)
        .endTerminated()
        .endState()
        .endContainerStatus()
        .endStatus()
        .build();
  }

  @Test
  void theNewestPodsTerminationMessageIsTheResult() {
    BackupResults.Result r =
        BackupResults.fromPods(
            List.of(
                pod("2026-01-01T00:00:00Z", 1, "{\"result\":\"failed\",\"stage\":\"dump\"}"),
                pod(
                    "2026-01-01T00:01:00Z",
                    1,
                    "{\"result\":\"failed\",\"stage\":\"upload\",\"name\":\"orders-1.sql.gz\","
                        + "\"message\":\"the object store refused the credentials\"}\n")),
            job("Failed"));
    assertThat(r.succeeded()).isFalse();
    assertThat(r.stage()).isEqualTo("upload");
    assertThat(r.message()).isEqualTo("the object store refused the credentials");
  }

  @Test
  void withoutAResultTheExitOrTheJobConditionSaysWhy() {
    assertThat(
            BackupResults.fromPods(List.of(pod("2026-01-01T00:00:00Z", 137, null)), job("Failed"))
                .message())
        .isEqualTo("the backup container ended with exit code 137 (Error) without a result");
    assertThat(BackupResults.fromPods(List.of(), job("Failed")).message())
        .contains("BackoffLimitExceeded");
    assertThat(BackupResults.fromPods(List.of(), job("Complete")).succeeded()).isTrue();
    assertThat(
            BackupResults.fromPods(
                    List.of(pod("2026-01-01T00:00:00Z", 1, "not json")), job("Failed"))
                .message())
        .isEqualTo("the backup container reported: not json");
  }

  @Test
  void annotationRequestsAndSpecChangesAreReconciledStatusUpdatesAreNot() {
    ImperativeAnnotations filter = new ImperativeAnnotations();
    Database old = new Database("ns", "orders", new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi"));
    old.getMetadata().setGeneration(3L);
    Database same = new Database("ns", "orders", old.getSpec());
    same.getMetadata().setGeneration(3L);
    assertThat(filter.accept(same, old)).as("a status-only update").isFalse();
    Database asked = new Database("ns", "orders", old.getSpec());
    asked.getMetadata().setGeneration(3L);
    asked.getMetadata().setAnnotations(Map.of(Keys.BACKUP_NOW_ANNOTATION, "now"));
    assertThat(filter.accept(asked, old)).isTrue();
    assertThat(filter.accept(old, asked)).as("the request removed").isTrue();
    Database changed = new Database("ns", "orders", old.getSpec());
    changed.getMetadata().setGeneration(4L);
    assertThat(filter.accept(changed, old)).isTrue();
  }

  @Test
  void theSameRequestNamesTheSameJob() {
    Topology t =
        Topology.of(
            new Database(
                "ns",
                "a-name-that-is-exactly-forty-five-characters",
                new DatabaseSpec(Engine.MYSQL, "8.4", "1Gi")));
    assertThat(t.onDemandBackupJob("x"))
        .isEqualTo(t.onDemandBackupJob("x"))
        .hasSizeLessThanOrEqualTo(63);
    assertThat(t.onDemandBackupJob("x")).isNotEqualTo(t.onDemandBackupJob("y"));
  }
}
