package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CacheReadsTest {
  /** As the operator's client reads. */
  static final ObjectMapper MAPPER =
      new ObjectMapper()
          .registerModule(CanonicalStrings.shared().module())
          .registerModule(SharedEmptyMaps.module())
          .registerModule(LeanMetadata.module(Set.of()))
          .registerModule(CacheReads.module());

  static final KubernetesSerialization JSON = new KubernetesSerialization(MAPPER, true);

  /** A Database's pod, StatefulSet and backup CronJob as a local cluster's API server sent them. */
  static final String POD = resource("pod.json");

  static final String STATEFUL_SET = resource("statefulset.json");
  static final String CRON_JOB = resource("cronjob.json");

  /** A backup Job as the CronJob's controller would make it, with managedFields and a status. */
  static final String JOB = job();

  static String resource(String name) {
    try (InputStream in = CacheReadsTest.class.getResourceAsStream("/cache-reads/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static String job() {
    try {
      ObjectNode cron = (ObjectNode) MAPPER.readTree(CRON_JOB);
      ObjectNode job = MAPPER.createObjectNode();
      job.put("apiVersion", "batch/v1").put("kind", "Job");
      job.set("metadata", cron.get("metadata"));
      job.set("spec", cron.get("spec").get("jobTemplate").get("spec"));
      job.putObject("status").put("active", 1);
      return MAPPER.writeValueAsString(job);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static <T> T whole(String json, Class<T> kind) throws IOException {
    return MAPPER.readValue(json, kind);
  }

  static <T> T forCache(String json, Class<T> kind) throws IOException {
    return CacheReads.reading(kind, () -> MAPPER.readValue(json, kind));
  }

  static Stream<Arguments> samples() {
    return Stream.of(
        Arguments.of(POD, Pod.class),
        Arguments.of(STATEFUL_SET, StatefulSet.class),
        Arguments.of(CRON_JOB, CronJob.class),
        Arguments.of(JOB, Job.class));
  }

  @ParameterizedTest
  @MethodSource("samples")
  void aReadForTheCacheIsWhatPruningKeepsOfAWholeRead(
      String json, Class<? extends HasMetadata> kind) throws IOException {
    HasMetadata skipped = forCache(json, kind);
    HasMetadata read = whole(json, kind);
    assertThat(JSON.asJson(skipped)).isNotEqualTo(JSON.asJson(read));
    assertThat(JSON.asJson(CachePruning.prune(skipped)))
        .isEqualTo(JSON.asJson(CachePruning.prune(read)));
  }

  @Test
  void aReadForTheCacheSkipsWhatTheCacheDrops() throws IOException {
    Pod pod = forCache(POD, Pod.class);
    assertThat(pod.getSpec().getNodeName()).isNotBlank();
    assertThat(pod.getSpec().getContainers()).isNullOrEmpty();
    assertThat(pod.getSpec().getVolumes()).isNullOrEmpty();
    assertThat(pod.getStatus().getPodIP()).isNull();
    assertThat(pod.getStatus().getConditions()).isNotEmpty();
    assertThat(pod.getStatus().getContainerStatuses())
        .allSatisfy(
            c -> {
              assertThat(c.getName()).isNotBlank();
              assertThat(c.getReady()).isNotNull();
              assertThat(c.getState()).isNotNull();
              assertThat(c.getContainerID()).isNull();
              assertThat(c.getRestartCount()).isNull();
            });

    StatefulSet sts = forCache(STATEFUL_SET, StatefulSet.class);
    assertThat(sts.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(sts.getMetadata().getLabels()).isNotEmpty();
    assertThat(sts.getSpec().getReplicas()).isEqualTo(1);
    assertThat(sts.getSpec().getSelector()).isNull();
    assertThat(sts.getSpec().getVolumeClaimTemplates()).isNotEmpty();
    assertThat(sts.getSpec().getTemplate().getMetadata().getLabels()).isNotEmpty();
    assertThat(sts.getSpec().getTemplate().getSpec().getContainers())
        .allSatisfy(
            c -> {
              assertThat(c.getName()).isNotBlank();
              assertThat(c.getImage()).isNotBlank();
              assertThat(c.getEnv()).isNullOrEmpty();
              assertThat(c.getReadinessProbe()).isNull();
            });
    assertThat(sts.getStatus().getObservedGeneration()).isNotNull();
    // Marked as pruning marks it: where no pruning store keeps it, the matcher still reads it
    // whole.
    assertThat(CachePruning.specPruned(sts)).isTrue();

    CronJob cron = forCache(CRON_JOB, CronJob.class);
    assertThat(cron.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(cron.getSpec().getSchedule()).isNotBlank();
    assertThat(cron.getSpec().getJobTemplate()).isNull();
    assertThat(CachePruning.specPruned(cron)).isTrue();

    Job job = forCache(JOB, Job.class);
    assertThat(job.getSpec()).isNull();
    assertThat(job.getStatus().getActive()).isEqualTo(1);
  }

  @Test
  void anyOtherReadIsWhole() throws IOException {
    // JOSDK's matcher reads a pruned StatefulSet or CronJob from the API server: all of it.
    StatefulSet sts = whole(STATEFUL_SET, StatefulSet.class);
    assertThat(sts.getMetadata().getManagedFields()).isNotEmpty();
    assertThat(sts.getSpec().getSelector()).isNotNull();
    assertThat(sts.getSpec().getTemplate().getSpec().getContainers())
        .allSatisfy(c -> assertThat(c.getEnv()).isNotEmpty());
    assertThat(CachePruning.specPruned(sts)).isFalse();
    CronJob cron = whole(CRON_JOB, CronJob.class);
    assertThat(cron.getMetadata().getManagedFields()).isNotEmpty();
    assertThat(cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getContainers())
        .isNotEmpty();
    Pod pod = whole(POD, Pod.class);
    assertThat(pod.getSpec().getContainers()).isNotEmpty();
    assertThat(pod.getStatus().getPodIP()).isNotBlank();
  }
}
