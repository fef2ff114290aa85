package dev.cellar.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.Keys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class StuckPodsTest {
  static Pod pod(String revision, String waiting, boolean ready) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("orders-0")
        .addToLabels(Keys.REVISION, revision)
        .withCreationTimestamp("2026-01-01T00:00:00Z")
        .endMetadata()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .addNewContainerStatus()
        .withName("database")
        .withImage("postgres:16")
        .withNewState()
        .withNewWaiting()
        .withReason(waiting)
        .endWaiting()
        .endState()
        .endContainerStatus()
        .endStatus()
        .build();
  }

  @Test
  void onlyAPodThatCannotRunOnAnOutdatedTemplateIsReplaced() {
    assertThat(StuckPods.stuck(pod("r1", "ImagePullBackOff", false), "r2")).isTrue();
    assertThat(StuckPods.stuck(pod("r1", "CrashLoopBackOff", false), "r2")).isTrue();
    assertThat(StuckPods.stuck(pod("r2", "ImagePullBackOff", false), "r2"))
        .as("already on the current template: replacing it would change nothing")
        .isFalse();
    assertThat(StuckPods.stuck(pod("r1", "ContainerCreating", false), "r2"))
        .as("starting, not stuck")
        .isFalse();
  }
}
