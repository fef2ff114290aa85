package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.BackupRecord;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.ObjectStoreSpec;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.topology.Topology;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Backups as objects on the local cluster (kwok runs the Jobs' pods, which end without a
 * termination message): the bucket's keys only as Secret references, on-demand Jobs from the
 * annotation, and BackupReady, lastBackup and lastVerifiedBackup from the results recorded on the
 * Jobs.
 */
class BackupsIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  static final String KWOK_FAIL_ANNOTATION = "cellar.dev/kwok-fail";

  @Test
  void bucketBackupsOnDemandAndVerifiedResultsReachTheStatus() {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.getBackup()
        .setObjectStore(
            new ObjectStoreSpec("http://s3.local:9000", "dumps", "prod", "us-east-1", "s3-keys"));
    operator.create(new Database(null, "vault", spec));
    awaitPhase("vault", Phase.Ready);

    // The CronJob names the Secret; no key is anywhere in it, nor a volume for dumps.
    CronJob cron = child(CronJob.class, "vault-backup");
    Container c =
        cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getEnv())
        .filteredOn(e -> e.getName().startsWith("AWS_"))
        .hasSize(2)
        .allSatisfy(
            e -> {
              assertThat(e.getValue()).isNull();
              assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("s3-keys");
            });
    assertThat(c.getEnv()).extracting(EnvVar::getName).contains("VERIFY_SCRIPT", "S3_BUCKET");
    assertThat(cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getVolumes())
        .noneMatch(v -> v.getPersistentVolumeClaim() != null);
    assertThat(child(PersistentVolumeClaim.class, "vault-backups"))
        .as("no backups volume: the dumps go to the bucket")
        .isNull();

    // On demand: one Job per annotation value; the annotation goes once the Job has ended.
    Database db = get("vault");
    Map<String, String> annotations =
        new HashMap<>(Optional.ofNullable(db.getMetadata().getAnnotations()).orElse(Map.of()));
    annotations.put(Keys.BACKUP_NOW_ANNOTATION, "first");
    db.getMetadata().setAnnotations(annotations);
    String jobName = Topology.of(db).onDemandBackupJob("first");
    // Every version of the Database from now on: the request must not go before the status says
    // how its Job went (kubectl cellar backup --wait reads both from the one Database).
    List<Database> seen = new CopyOnWriteArrayList<>();
    Watch watch =
        client
            .resources(Database.class)
            .inNamespace(operator.getNamespace())
            .withName("vault")
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Database d) {
                    seen.add(d);
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
    operator.replace(db);
    await("the on-demand Job ran and the request was removed")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Job job = child(Job.class, jobName);
              assertThat(job).isNotNull();
              assertThat(job.getMetadata().getLabels())
                  .containsEntry(Keys.BACKUP_TRIGGER_LABEL, Keys.TRIGGER_ON_DEMAND);
              assertThat(job.getMetadata().getAnnotations())
                  .containsEntry(Keys.BACKUP_NOW_ANNOTATION, "first")
                  .containsKey(Keys.BACKUP_RESULT_ANNOTATION);
              assertThat(
                      Optional.ofNullable(get("vault").getMetadata().getAnnotations())
                          .orElse(Map.of()))
                  .doesNotContainKey(Keys.BACKUP_NOW_ANNOTATION);
            });
    watch.close();
    Database firstWithout =
        seen.stream()
            .dropWhile(d -> !requested(d))
            .filter(d -> !requested(d))
            .findFirst()
            .orElseThrow();
    assertThat(condition(firstWithout, Type.BACKUP_READY).getMessage())
        .as("the status as the request went")
        .contains(jobName);
    assertThat(client.batch().v1().jobs().inNamespace(operator.getNamespace()).list().getItems())
        .filteredOn(j -> j.getMetadata().getName().startsWith("vault-backup-now-"))
        .hasSize(1);

    // A verified dump reported by its Job: lastBackup and lastVerifiedBackup say what and where.
    runBackupJob(
        cron,
        "vault-backup-ok",
        false,
        "{\"result\":\"succeeded\",\"name\":\"vault-20260101T020000Z.sql.gz\",\"location\":"
            + "\"s3://dumps/prod/vault-20260101T020000Z.sql.gz\",\"sizeBytes\":4096,"
            + "\"startTime\":\"2026-01-01T02:00:00Z\",\"completionTime\":\"2026-01-01T02:00:09Z\","
            + "\"verified\":true,\"verification\":\"restored into PostgreSQL 16.4: 2 databases,"
            + " 1 tables\"}");
    await("lastVerifiedBackup")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Database d = get("vault");
              BackupRecord last = d.getStatus().getLastVerifiedBackup();
              assertThat(last).isNotNull();
              assertThat(last.getName()).isEqualTo("vault-20260101T020000Z.sql.gz");
              assertThat(last.getLocation())
                  .isEqualTo("s3://dumps/prod/vault-20260101T020000Z.sql.gz");
              assertThat(last.getTrigger()).isEqualTo(Keys.TRIGGER_SCHEDULED);
              assertThat(d.getStatus().getLastBackup().getSizeBytes()).isEqualTo(4096L);
              Condition ready = condition(d, Type.BACKUP_READY);
              assertThat(ready.getReason()).isEqualTo(Reason.BACKUP_SUCCEEDED.value());
              assertThat(ready.getMessage())
                  .contains("s3://dumps/prod/vault-20260101T020000Z.sql.gz")
                  .contains("verified: restored into PostgreSQL 16.4");
            });

    // A dump that does not restore: BackupReady False naming it, Degraded says so too, and the
    // last verified backup stays what it was.
    runBackupJob(
        cron,
        "vault-backup-bad",
        true,
        "{\"result\":\"failed\",\"stage\":\"verify\",\"name\":\"vault-20260102T020000Z.sql.gz\","
            + "\"message\":\"vault-20260102T020000Z.sql.gz is not a valid gzip file (corrupt or"
            + " truncated): invalid compressed data--crc error\"}");
    await("BackupVerificationFailed")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Database d = get("vault");
              Condition backup = condition(d, Type.BACKUP_READY);
              assertThat(backup.getStatus()).isEqualTo("False");
              assertThat(backup.getReason()).isEqualTo(Reason.BACKUP_VERIFICATION_FAILED.value());
              assertThat(backup.getMessage())
                  .contains("verification of vault-20260102T020000Z.sql.gz failed")
                  .contains("crc error");
              assertThat(condition(d, Type.DEGRADED).getReason())
                  .isEqualTo(Reason.BACKUP_VERIFICATION_FAILED.value());
              assertThat(d.getStatus().getLastVerifiedBackup().getName())
                  .isEqualTo("vault-20260101T020000Z.sql.gz");
            });

    // The newest dump verified again on request (it may have been damaged in the bucket since it
    // was written): a Job from the CronJob's template in verify mode; the request goes once it ran.
    annotate("vault", Keys.VERIFY_NOW_ANNOTATION, "recheck");
    String verifyJob = Topology.of(get("vault")).onDemandVerifyJob("recheck");
    await("the verification Job ran and the request was removed")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Job job = child(Job.class, verifyJob);
              assertThat(job).isNotNull();
              assertThat(job.getMetadata().getLabels())
                  .containsEntry(Keys.BACKUP_TRIGGER_LABEL, Keys.TRIGGER_VERIFY);
              assertThat(
                      job.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                          .filter(e -> e.getValue() != null)
                          .map(e -> e.getName() + "=" + e.getValue()))
                  .contains("BACKUP_MODE=verify", "VERIFY_BACKUP=latest");
              assertThat(
                      Optional.ofNullable(get("vault").getMetadata().getAnnotations())
                          .orElse(Map.of()))
                  .doesNotContainKey(Keys.VERIFY_NOW_ANNOTATION);
            });

    // A verification that finds the stored dump damaged names it; the last backup stays what it
    // was (a verification writes no dump).
    runBackupJob(
        cron,
        "vault-verify-bad",
        true,
        "{\"result\":\"failed\",\"stage\":\"verify\",\"name\":\"vault-20260101T020000Z.sql.gz\","
            + "\"message\":\"vault-20260101T020000Z.sql.gz is not a valid gzip file (corrupt or"
            + " truncated): invalid compressed data--format violated\"}",
        Keys.TRIGGER_VERIFY);
    await("BackupVerificationFailed from a verification")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Database d = get("vault");
              Condition backup = condition(d, Type.BACKUP_READY);
              assertThat(backup.getReason()).isEqualTo(Reason.BACKUP_VERIFICATION_FAILED.value());
              assertThat(backup.getMessage())
                  .contains("verification of vault-20260101T020000Z.sql.gz failed")
                  .contains("format violated");
              assertThat(d.getStatus().getLastBackup().getJob()).isEqualTo("vault-backup-ok");
            });
    assertThat(Serialization.asJson(get("vault").getStatus())).doesNotContain("AWS_SECRET");
  }

  static boolean requested(Database d) {
    return Optional.ofNullable(d.getMetadata().getAnnotations())
        .map(a -> a.containsKey(Keys.BACKUP_NOW_ANNOTATION))
        .orElse(false);
  }

  void annotate(String name, String key, String value) {
    Database db = get(name);
    Map<String, String> annotations =
        new HashMap<>(Optional.ofNullable(db.getMetadata().getAnnotations()).orElse(Map.of()));
    annotations.put(key, value);
    db.getMetadata().setAnnotations(annotations);
    operator.replace(db);
  }

  void runBackupJob(CronJob cronJob, String name, boolean fail, String result) {
    runBackupJob(cronJob, name, fail, result, Keys.TRIGGER_SCHEDULED);
  }

  /**
   * Starts a Job from the CronJob's template as the CronJob controller would, carrying the result
   * its container would have reported (kwok's pods report none). kwok completes it, or fails it.
   */
  void runBackupJob(CronJob cronJob, String name, boolean fail, String result, String trigger) {
    var template = cronJob.getSpec().getJobTemplate();
    Map<String, String> podAnnotations = new HashMap<>();
    if (fail) {
      podAnnotations.put(KWOK_FAIL_ANNOTATION, "true");
    }
    Job job =
        new JobBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(operator.getNamespace())
            .withLabels(template.getMetadata().getLabels())
            .addToLabels(Keys.BACKUP_TRIGGER_LABEL, trigger)
            .addToAnnotations(Keys.BACKUP_RESULT_ANNOTATION, result)
            .addNewOwnerReference()
            .withApiVersion("batch/v1")
            .withKind("CronJob")
            .withName(cronJob.getMetadata().getName())
            .withUid(cronJob.getMetadata().getUid())
            .withController(true)
            .endOwnerReference()
            .endMetadata()
            .withSpec(template.getSpec())
            .editSpec()
            .withBackoffLimit(0)
            .editTemplate()
            .editOrNewMetadata()
            .addToAnnotations(podAnnotations)
            .endMetadata()
            .endTemplate()
            .endSpec()
            .build();
    client.batch().v1().jobs().inNamespace(operator.getNamespace()).resource(job).create();
  }
}
