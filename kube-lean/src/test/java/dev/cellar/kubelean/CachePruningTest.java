package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CachePruningTest {
  static final ManagedFieldsEntry APPLY =
      new ManagedFieldsEntryBuilder()
          .withManager("databasereconciler")
          .withOperation("Apply")
          .build();
  static final ManagedFieldsEntry UPDATE =
      new ManagedFieldsEntryBuilder()
          .withManager("kube-controller-manager")
          .withOperation("Update")
          .build();

  static ConfigMap configMap(Map<String, String> data) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName("db-config")
        .withNamespace("ns")
        .withResourceVersion("7")
        .withLabels(Map.of("app.kubernetes.io/instance", "db"))
        .withManagedFields(APPLY, UPDATE)
        .endMetadata()
        .withData(data)
        .build();
  }

  static Secret secret(String name, Map<String, String> data) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ns")
        .withManagedFields(APPLY)
        .endMetadata()
        .withData(new HashMap<>(data))
        .build();
  }

  @Test
  void secretsOfOneCaHoldOneInstanceOfItsCertificateAndTheirOtherValuesAsTheyAre() {
    String ca = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t" + "Q0E".repeat(260);
    Secret caSecret = CachePruning.prune(secret("db-ca", Map.of("ca.crt", new String(ca))));
    Secret server =
        CachePruning.prune(
            secret("db-tls", Map.of("ca.crt", new String(ca), "tls.key", new String(ca))));
    Secret other = CachePruning.prune(secret("other-tls", Map.of("ca.crt", ca + "Cg==")));

    assertThat(server.getData().get("ca.crt")).isSameAs(caSecret.getData().get("ca.crt"));
    // Only the CA certificate: a key equal to it by chance stays the Secret's own.
    assertThat(server.getData().get("tls.key"))
        .isEqualTo(ca)
        .isNotSameAs(caSecret.getData().get("ca.crt"));
    assertThat(other.getData().get("ca.crt")).isEqualTo(ca + "Cg==");
    assertThat(server.getMetadata().getManagedFields()).isNull();
  }

  @Test
  void aConfigMapKeepsTheHashOfItsFilesInPlaceOfThem() {
    Map<String, String> files = Map.of("a.sh", "echo a\n", "b.conf", "x = 1\n");
    String whole = CachePruning.dataHash(configMap(files));

    ConfigMap pruned = CachePruning.prune(configMap(files));

    assertThat(pruned.getData()).containsOnlyKeys(CachePruning.DATA_HASH);
    assertThat(pruned.getMetadata().getManagedFields()).isNull();
    assertThat(pruned.getMetadata().getLabels()).containsEntry("app.kubernetes.io/instance", "db");
    assertThat(CachePruning.dataHash(pruned)).isEqualTo(whole);
    // Pruning twice changes nothing (an object the informer stores again).
    assertThat(CachePruning.dataHash(CachePruning.prune(pruned))).isEqualTo(whole);
  }

  @Test
  void theHashSeesEveryEditOfAFile() {
    String hash = CachePruning.dataHash(configMap(Map.of("a.sh", "echo a\n", "b", "c")));
    assertThat(CachePruning.dataHash(configMap(Map.of("a.sh", "echo b\n", "b", "c"))))
        .isNotEqualTo(hash);
    assertThat(CachePruning.dataHash(configMap(Map.of("a.sh", "echo a\n")))).isNotEqualTo(hash);
    // Moving bytes between key and value is another ConfigMap.
    assertThat(CachePruning.dataHash(configMap(Map.of("ab", "c"))))
        .isNotEqualTo(CachePruning.dataHash(configMap(Map.of("a", "bc"))));
    // The order the server lists the files in does not matter.
    assertThat(
            CachePruning.dataHash(
                configMap(new java.util.LinkedHashMap<>(Map.of("b", "c", "a.sh", "echo a\n")))))
        .isEqualTo(hash);
  }

  @Test
  void podsKeepLabelsStatusAndNodeOnly() {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("db-0")
            .withNamespace("ns")
            .withLabels(Map.of("cellar.dev/role", "primary"))
            .withManagedFields(UPDATE)
            .endMetadata()
            .withNewSpec()
            .withNodeName("node-1")
            .addNewContainer()
            .withName("postgresql")
            .withImage("postgres:16")
            .endContainer()
            .endSpec()
            .withNewStatus()
            .withPhase("Running")
            .withPodIP("10.0.0.7")
            .withHostIP("172.18.0.3")
            .withQosClass("Burstable")
            .withStartTime("2026-11-25T04:00:00Z")
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .endCondition()
            .addNewContainerStatus()
            .withName("postgresql")
            .withImage("postgres:16")
            .withImageID("sha256:0123")
            .withContainerID("containerd://4567")
            .withRestartCount(2)
            .withReady(true)
            .withNewState()
            .withNewRunning()
            .withStartedAt("2026-11-25T04:00:01Z")
            .endRunning()
            .endState()
            .withNewLastState()
            .withNewTerminated()
            .withExitCode(137)
            .withReason("OOMKilled")
            .endTerminated()
            .endLastState()
            .endContainerStatus()
            .endStatus()
            .build();

    CachePruning.prune(pod);

    assertThat(pod.getMetadata().getManagedFields()).isNull();
    assertThat(pod.getMetadata().getLabels()).containsEntry("cellar.dev/role", "primary");
    assertThat(pod.getSpec().getContainers()).isEmpty();
    assertThat(pod.getSpec().getNodeName()).isEqualTo("node-1");
    assertThat(pod.getStatus().getConditions()).hasSize(1);
    assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
    assertThat(pod.getStatus().getPodIP()).isNull();
    assertThat(pod.getStatus().getHostIP()).isNull();
    assertThat(pod.getStatus().getQosClass()).isNull();
    assertThat(pod.getStatus().getStartTime()).isNull();
    var container = pod.getStatus().getContainerStatuses().get(0);
    // What PodTrouble, TlsReload and BackupResults read stays.
    assertThat(container.getName()).isEqualTo("postgresql");
    assertThat(container.getImage()).isEqualTo("postgres:16");
    assertThat(container.getReady()).isTrue();
    assertThat(container.getState().getRunning().getStartedAt()).isEqualTo("2026-11-25T04:00:01Z");
    assertThat(container.getLastState().getTerminated().getReason()).isEqualTo("OOMKilled");
    assertThat(container.getImageID()).isNull();
    assertThat(container.getContainerID()).isNull();
    assertThat(container.getRestartCount()).isNull();
  }

  @Test
  void jobsKeepStatusOnly() {
    Job job =
        new JobBuilder()
            .withNewMetadata()
            .withName("db-backup-1")
            .endMetadata()
            .withNewSpec()
            .withNewTemplate()
            .endTemplate()
            .endSpec()
            .withNewStatus()
            .withSucceeded(1)
            .endStatus()
            .build();
    CachePruning.prune(job);
    assertThat(job.getSpec()).isNull();
    assertThat(job.getStatus().getSucceeded()).isEqualTo(1);
  }

  @Test
  void serverSideAppliedKindsKeepTheApplyEntriesForJosdksMatcher() {
    NetworkPolicy policy =
        new NetworkPolicyBuilder()
            .withNewMetadata()
            .withName("db")
            .withManagedFields(APPLY, UPDATE)
            .endMetadata()
            .withNewSpec()
            .withPolicyTypes("Ingress")
            .endSpec()
            .build();
    CachePruning.prune(policy);
    assertThat(policy.getMetadata().getManagedFields()).containsExactly(APPLY);
    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
  }

  @Test
  void statefulSetsAndCronJobsKeepNoManagedFieldsAndSayTheirSpecIsPruned() {
    StatefulSet sts =
        new StatefulSetBuilder()
            .withNewMetadata()
            .withName("db")
            .withManagedFields(APPLY, UPDATE)
            .endMetadata()
            .withNewSpec()
            .withReplicas(2)
            .withServiceName("db-headless")
            .endSpec()
            .build();
    assertThat(CachePruning.specPruned(sts)).isFalse();
    CachePruning.prune(sts);
    assertThat(sts.getMetadata().getManagedFields()).isNull();
    assertThat(sts.getSpec().getReplicas()).isEqualTo(2);
    assertThat(sts.getSpec().getServiceName()).isNull();
    assertThat(CachePruning.specPruned(sts)).isTrue();
    CachePruning.prune(sts); // an object pruned twice (a relist) stays as it is
    assertThat(sts.getSpec().getReplicas()).isEqualTo(2);

    CronJob cron =
        new CronJobBuilder()
            .withNewMetadata()
            .withName("db-backup")
            .withManagedFields(APPLY)
            .endMetadata()
            .withNewSpec()
            .withSchedule("0 3 * * *")
            .withSuspend(true)
            .withNewJobTemplate()
            .withNewSpec()
            .withBackoffLimit(2)
            .endSpec()
            .endJobTemplate()
            .endSpec()
            .build();
    CachePruning.prune(cron);
    assertThat(cron.getMetadata().getManagedFields()).isNull();
    assertThat(cron.getSpec().getSchedule()).isEqualTo("0 3 * * *");
    assertThat(cron.getSpec().getSuspend()).isTrue();
    assertThat(cron.getSpec().getJobTemplate()).isNull();
    assertThat(CachePruning.specPruned(cron)).isTrue();
  }

  @Test
  void identicalApplyFieldSetsAreKeptOnce() {
    NetworkPolicy a = policyApplying("uid-a", Map.of("f:ingress", Map.of()));
    NetworkPolicy b = policyApplying("uid-b", Map.of("f:ingress", Map.of()));
    NetworkPolicy c = policyApplying("uid-c", Map.of("f:podSelector", Map.of()));
    CachePruning.prune(a);
    CachePruning.prune(b);
    CachePruning.prune(c);
    assertThat(fields(b).get("f:spec")).isSameAs(fields(a).get("f:spec"));
    assertThat(fields(b).get("f:metadata")).isNotEqualTo(fields(a).get("f:metadata"));
    assertThat(fields(c).get("f:spec")).isEqualTo(Map.of("f:podSelector", Map.of()));
    assertThat(fields(a).get("f:spec")).isEqualTo(Map.of("f:ingress", Map.of()));
  }

  @Test
  @SuppressWarnings("unchecked")
  void fieldSetsAreSharedBelowTheTopButNotWhereTheyNameAnOwner() {
    NetworkPolicy a = policyApplying("uid-a", Map.of("f:ingress", Map.of()));
    NetworkPolicy b = policyApplying("uid-b", Map.of("f:ingress", Map.of()));
    for (NetworkPolicy p : List.of(a, b)) {
      Map<String, Object> metadata = (Map<String, Object>) fields(p).get("f:metadata");
      metadata.put("f:labels", new java.util.LinkedHashMap<>(Map.of("f:app", new HashMap<>())));
      CachePruning.prune(p);
    }
    Map<?, ?> metadataA = (Map<?, ?>) fields(a).get("f:metadata");
    Map<?, ?> metadataB = (Map<?, ?>) fields(b).get("f:metadata");
    assertThat(metadataB).isNotSameAs(metadataA).isNotEqualTo(metadataA);
    assertThat(metadataB.get("f:labels"))
        .isSameAs(metadataA.get("f:labels"))
        .isEqualTo(Map.of("f:app", Map.of()));
    assertThat(metadataB.get("f:ownerReferences"))
        .isNotSameAs(metadataA.get("f:ownerReferences"))
        .isEqualTo(Map.of("k:{\"uid\":\"uid-b\"}", Map.of()));
  }

  static Map<String, Object> fields(NetworkPolicy policy) {
    return policy.getMetadata().getManagedFields().get(0).getFieldsV1().getAdditionalProperties();
  }

  @Test
  void noApplyEntryLeavesAnEmptyListForJosdksMatcher() {
    NetworkPolicy policy =
        new NetworkPolicyBuilder()
            .withNewMetadata()
            .withManagedFields(UPDATE)
            .endMetadata()
            .build();
    CachePruning.prune(policy);
    assertThat(policy.getMetadata().getManagedFields()).isEmpty();
  }

  static NetworkPolicy policyApplying(String ownerUid, Map<String, Object> spec) {
    io.fabric8.kubernetes.api.model.FieldsV1 f = new io.fabric8.kubernetes.api.model.FieldsV1();
    f.setAdditionalProperty(
        "f:metadata",
        new java.util.LinkedHashMap<>(
            Map.of(
                "f:ownerReferences",
                new java.util.LinkedHashMap<>(
                    Map.of("k:{\"uid\":\"" + ownerUid + "\"}", new HashMap<>())))));
    f.setAdditionalProperty("f:spec", new java.util.LinkedHashMap<>(spec));
    return new NetworkPolicyBuilder()
        .withNewMetadata()
        .withName("db")
        .addNewManagedField()
        .withManager("databasereconciler")
        .withOperation("Apply")
        .withFieldsV1(f)
        .endManagedField()
        .endMetadata()
        .build();
  }

  @Test
  void theStoreKeepsThePrunedObjectUnderItsKey() {
    ItemStore<ConfigMap> store = CachePruning.store();
    ConfigMap cm = configMap(Map.of("a.sh", "echo a\n"));
    store.put(store.getKey(cm), cm);
    ConfigMap kept = store.get("ns/db-config");
    assertThat(kept.getData()).containsOnlyKeys(CachePruning.DATA_HASH);
    assertThat(kept.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(store.values().toList()).hasSize(1);
  }

  @Test
  void thePrimaryStoreKeepsAllButManagedFieldsAndKubectlsLastApplied() {
    ItemStore<Shelf> store = CachePruning.primaryStore();
    Shelf shelf = new Shelf();
    shelf.setMetadata(
        new ObjectMetaBuilder()
            .withName("orders")
            .withNamespace("ns")
            .addToAnnotations("kubectl.kubernetes.io/last-applied-configuration", "{}")
            .addToAnnotations("note", "kept")
            .addNewManagedField()
            .withManager("kubectl")
            .withOperation("Apply")
            .endManagedField()
            .build());
    Shelf.Spec spec = new Shelf.Spec();
    spec.setEngine("postgresql");
    shelf.setSpec(spec);
    store.put(store.getKey(shelf), shelf);
    Shelf kept = store.get("ns/orders");
    assertThat(kept.getMetadata().getManagedFields()).isNull();
    assertThat(kept.getMetadata().getAnnotations()).containsOnlyKeys("note");
    assertThat(kept.getSpec().getEngine()).isEqualTo("postgresql");
  }

  @Test
  void severalNamespacesKeepWholeObjects() {
    assertThat(CachePruning.forNamespaces(Set.of("JOSDK_ALL_NAMESPACES"))).isTrue();
    assertThat(CachePruning.forNamespaces(Set.of("a"))).isTrue();
    assertThat(CachePruning.forNamespaces(Set.of("a", "b"))).isFalse();
  }
}
