package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CanonicalStringsTest {
  @Test
  void equalStringsComeBackAsOneInstance() {
    CanonicalStrings table = new CanonicalStrings(1024);
    String first = table.canonical(new String("app.kubernetes.io/instance"));
    String second = table.canonical(new String("app.kubernetes.io/instance"));
    assertThat(second).isSameAs(first);
    assertThat(table.canonical(new String("db-17"))).isNotSameAs(first).isEqualTo("db-17");
  }

  @Test
  void nullEmptyAndLongStringsPassThrough() {
    CanonicalStrings table = new CanonicalStrings(16);
    assertThat(table.canonical(null)).isNull();
    assertThat(table.canonical(new String(""))).isSameAs("");
    String longValue = "x".repeat(CanonicalStrings.MAX_LENGTH + 1);
    table.canonical(longValue);
    String again = new String(longValue);
    assertThat(table.canonical(again)).isSameAs(again);
  }

  @Test
  void aFullTableStillAnswersEqualStrings() {
    // Far more distinct strings than slots: each answer equals its input, whatever was evicted.
    CanonicalStrings table = new CanonicalStrings(8);
    for (int i = 0; i < 10_000; i++) {
      String s = "value-" + (i % 37);
      assertThat(table.canonical(new String(s))).isEqualTo(s);
    }
  }

  @Test
  void twoStringsOfOneSlotPairAreBothKept() {
    // With two slots in all, both strings land in the one pair: both are shared.
    CanonicalStrings table = new CanonicalStrings(2);
    String a = table.canonical(new String("primary"));
    String b = table.canonical(new String("replica"));
    assertThat(table.canonical(new String("primary"))).isSameAs(a);
    assertThat(table.canonical(new String("replica"))).isSameAs(b);
  }

  @Test
  void theScriptTableKeepsEveryScriptWhileItHasRoom() {
    // Three scripts whose hashes pick one pair of a four-slot table (as three did in the operator:
    // with two slots per hash they evicted each other on every read): each is read back shared.
    List<String> colliding = new ArrayList<>();
    for (int i = 0; colliding.size() < 3; i++) {
      String script = ("# script " + i + "\n").repeat(1000);
      int h = script.hashCode();
      if (((h ^ (h >>> 16)) & 2) == 0) {
        colliding.add(script);
      }
    }
    CanonicalStrings scripts = new CanonicalStrings(4, CanonicalStrings.SCRIPT_MAX_LENGTH, true);
    List<String> kept = colliding.stream().map(scripts::canonical).toList();
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 3; i++) {
        assertThat(scripts.canonical(new String(colliding.get(i)))).isSameAs(kept.get(i));
      }
    }
    // Full, it still answers equal strings.
    for (int i = 0; i < 100; i++) {
      String s = "unique " + i;
      assertThat(scripts.canonical(new String(s))).isEqualTo(s);
    }
  }

  @Test
  void longCommandsAreSharedLongAnnotationsAreNot() {
    KubernetesSerialization serialization =
        new KubernetesSerialization(
            new ObjectMapper().registerModule(new CanonicalStrings(1024).module()), true);
    String script = "set -e\n" + "echo backing up\n".repeat(2000);
    String unique = "x".repeat(CanonicalStrings.MAX_LENGTH + 1);
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Pod pod =
          new PodBuilder()
              .withNewMetadata()
              .withName("orders-backup-" + i)
              .withAnnotations(Map.of("note", unique))
              .endMetadata()
              .withNewSpec()
              .addNewContainer()
              .withName("backup")
              .withCommand("bash", "-c", script)
              .withArgs(script)
              .addNewEnv()
              .withName("VERIFY")
              .withValue(script)
              .endEnv()
              .endContainer()
              .endSpec()
              .build();
      pods.add(serialization.unmarshal(serialization.asJson(pod), Pod.class));
    }
    var a = pods.get(0).getSpec().getContainers().get(0);
    var b = pods.get(1).getSpec().getContainers().get(0);
    assertThat(b.getCommand().get(2)).isEqualTo(script).isSameAs(a.getCommand().get(2));
    assertThat(b.getArgs().get(0)).isSameAs(a.getArgs().get(0));
    assertThat(b.getEnv().get(0).getValue()).isSameAs(a.getEnv().get(0).getValue());
    assertThat(b.getCommand().get(0)).isSameAs(a.getCommand().get(0));
    assertThat(pods.get(1).getMetadata().getAnnotations().get("note"))
        .isEqualTo(unique)
        .isNotSameAs(pods.get(0).getMetadata().getAnnotations().get("note"));
  }

  @Test
  void slotsMustBeAPowerOfTwo() {
    assertThatThrownBy(() -> new CanonicalStrings(100))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void objectsReadThroughTheModuleShareTheirStrings() {
    KubernetesSerialization serialization =
        new KubernetesSerialization(
            new ObjectMapper().registerModule(new CanonicalStrings(1024).module()), true);
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Pod pod =
          new PodBuilder()
              .withNewMetadata()
              .withName("orders-" + i)
              .withNamespace("shop")
              .withResourceVersion("100" + i)
              .withLabels(
                  Map.of("app.kubernetes.io/instance", "orders", "cellar.dev/role", "replica"))
              .addNewOwnerReference()
              .withName("orders")
              .withUid("3f0c2b7e-uid")
              .endOwnerReference()
              .endMetadata()
              .withNewSpec()
              .addNewContainer()
              .withName("postgresql")
              .withImage("cellar/postgresql:15")
              .withArgs("run")
              .endContainer()
              .endSpec()
              .build();
      pods.add(serialization.unmarshal(serialization.asJson(pod), Pod.class));
    }
    Pod a = pods.get(0);
    Pod b = pods.get(1);
    assertThat(b.getMetadata().getNamespace()).isSameAs(a.getMetadata().getNamespace());
    assertThat(b.getMetadata().getLabels().get("app.kubernetes.io/instance"))
        .isSameAs(a.getMetadata().getLabels().get("app.kubernetes.io/instance"))
        .isSameAs(a.getMetadata().getOwnerReferences().get(0).getName());
    assertThat(b.getMetadata().getOwnerReferences().get(0).getUid())
        .isSameAs(a.getMetadata().getOwnerReferences().get(0).getUid());
    assertThat(b.getSpec().getContainers().get(0).getImage())
        .isSameAs(a.getSpec().getContainers().get(0).getImage());
    assertThat(b.getSpec().getContainers().get(0).getArgs().get(0))
        .isSameAs(a.getSpec().getContainers().get(0).getArgs().get(0));
    // Unique per object version: not kept, so not in the table either.
    assertThat(a.getMetadata().getResourceVersion()).isEqualTo("1000");
    assertThat(b.getMetadata().getName()).isEqualTo("orders-1");
  }
}
