package dev.cellar.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The local cluster does what Cellar relies on a real cluster for. */
class LocalClusterIT {
  @RegisterExtension static LocalClusterExtension cluster = new LocalClusterExtension();

  static KubernetesClient client;
  static String ns;
  static final Duration WAIT = Duration.ofSeconds(60);

  @BeforeAll
  static void setUp() {
    client = cluster.client();
    ns = cluster.newNamespace();
  }

  @Test
  void reportsThePinnedRelease() {
    assertThat(client.getKubernetesVersion().getGitVersion()).isEqualTo("v1.34.4");
    assertThat(client.nodes().list().getItems())
        .isNotEmpty()
        .allSatisfy(
            n ->
                assertThat(n.getStatus().getConditions())
                    .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True")));
  }

  @Test
  void aStatefulSetGetsReadyPodsAndBoundVolumes() {
    StatefulSet sts =
        new StatefulSetBuilder()
            .withNewMetadata()
            .withName("web")
            .endMetadata()
            .withNewSpec()
            .withReplicas(2)
            .withServiceName("web")
            .withNewSelector()
            .addToMatchLabels("app", "web")
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels("app", "web")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("web")
            .withImage("nginx:1.27")
            .endContainer()
            .endSpec()
            .endTemplate()
            .addNewVolumeClaimTemplate()
            .withNewMetadata()
            .withName("data")
            .endMetadata()
            .withNewSpec()
            .withAccessModes("ReadWriteOnce")
            .withNewResources()
            .addToRequests("storage", new Quantity("1Gi"))
            .endResources()
            .endSpec()
            .endVolumeClaimTemplate()
            .endSpec()
            .build();
    client.apps().statefulSets().inNamespace(ns).resource(sts).create();
    await("2 ready replicas")
        .atMost(WAIT)
        .until(
            () -> {
              var status =
                  client.apps().statefulSets().inNamespace(ns).withName("web").get().getStatus();
              return status != null && Integer.valueOf(2).equals(status.getReadyReplicas());
            });
    for (String claim : new String[] {"data-web-0", "data-web-1"}) {
      PersistentVolumeClaim pvc =
          client.persistentVolumeClaims().inNamespace(ns).withName(claim).get();
      assertThat(pvc.getStatus().getPhase()).isEqualTo("Bound");
      assertThat(pvc.getSpec().getStorageClassName()).as("the default class").isEqualTo("standard");
    }
    // Idle objects stay idle, as on a real cluster: an operator's "nothing to write" tests rely on
    // kwok not rewriting its pods and claims.
    Map<String, String> versions = podAndClaimVersions();
    await("the pods and claims are not rewritten while idle")
        .during(Duration.ofSeconds(15))
        .atMost(Duration.ofSeconds(20))
        .until(() -> podAndClaimVersions().equals(versions));
  }

  static Map<String, String> podAndClaimVersions() {
    Map<String, String> versions = new TreeMap<>();
    client
        .pods()
        .inNamespace(ns)
        .withLabel("app", "web")
        .list()
        .getItems()
        .forEach(p -> versions.put("pod/" + name(p), p.getMetadata().getResourceVersion()));
    client.persistentVolumeClaims().inNamespace(ns).list().getItems().stream()
        .filter(c -> name(c).startsWith("data-web-"))
        .forEach(c -> versions.put("pvc/" + name(c), c.getMetadata().getResourceVersion()));
    return versions;
  }

  static String name(HasMetadata object) {
    return object.getMetadata().getName();
  }

  @Test
  void aCronJobsJobCompletesAndAFailingOneFails() {
    CronJob cron =
        new CronJobBuilder()
            .withNewMetadata()
            .withName("nightly")
            .endMetadata()
            .withNewSpec()
            .withSchedule("0 3 * * *")
            .withNewJobTemplate()
            .withNewSpec()
            .withBackoffLimit(0)
            .withNewTemplate()
            .withNewSpec()
            .withRestartPolicy("Never")
            .addNewContainer()
            .withName("dump")
            .withImage("busybox")
            .endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .endJobTemplate()
            .endSpec()
            .build();
    cron = client.batch().v1().cronjobs().inNamespace(ns).resource(cron).create();
    createJob(cron, "nightly-ok", Map.of());
    createJob(cron, "nightly-bad", Map.of("cellar.dev/kwok-fail", "true"));
    await("the good Job completes")
        .atMost(WAIT)
        .until(() -> jobCondition("nightly-ok", "Complete"));
    await("the bad Job fails").atMost(WAIT).until(() -> jobCondition("nightly-bad", "Failed"));
  }

  static void createJob(CronJob cron, String name, Map<String, String> podAnnotations) {
    Job job =
        new JobBuilder()
            .withNewMetadata()
            .withName(name)
            .addNewOwnerReference()
            .withApiVersion("batch/v1")
            .withKind("CronJob")
            .withName(cron.getMetadata().getName())
            .withUid(cron.getMetadata().getUid())
            .endOwnerReference()
            .endMetadata()
            .withSpec(cron.getSpec().getJobTemplate().getSpec())
            .editSpec()
            .editTemplate()
            .editOrNewMetadata()
            .addToAnnotations(podAnnotations)
            .endMetadata()
            .endTemplate()
            .endSpec()
            .build();
    client.batch().v1().jobs().inNamespace(ns).resource(job).create();
  }

  static boolean jobCondition(String name, String type) {
    Job job = client.batch().v1().jobs().inNamespace(ns).withName(name).get();
    return job.getStatus() != null
        && job.getStatus().getConditions() != null
        && job.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals(type) && c.getStatus().equals("True"));
  }

  @Test
  void deletingAnOwnerCollectsItsDependents() {
    ConfigMap owner =
        client
            .configMaps()
            .inNamespace(ns)
            .resource(
                new ConfigMapBuilder().withNewMetadata().withName("owner").endMetadata().build())
            .create();
    ConfigMap dependent =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName("dependent")
            .addNewOwnerReference()
            .withApiVersion("v1")
            .withKind("ConfigMap")
            .withName("owner")
            .withUid(owner.getMetadata().getUid())
            .endOwnerReference()
            .endMetadata()
            .build();
    client.configMaps().inNamespace(ns).resource(dependent).create();
    client.configMaps().inNamespace(ns).withName("owner").delete();
    await("dependent collected")
        .atMost(WAIT)
        .until(() -> client.configMaps().inNamespace(ns).withName("dependent").get() == null);
  }

  @Test
  void theRestrictedPodSecurityLevelIsEnforced() {
    String restricted =
        cluster.newNamespace(Map.of("pod-security.kubernetes.io/enforce", "restricted"));
    Pod privileged =
        new PodBuilder()
            .withNewMetadata()
            .withName("root")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("c")
            .withImage("busybox")
            .withNewSecurityContext()
            .withPrivileged(true)
            .endSecurityContext()
            .endContainer()
            .endSpec()
            .build();
    assertThatThrownBy(() -> client.pods().inNamespace(restricted).resource(privileged).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("violates PodSecurity \"restricted:latest\"");
    Pod compliant =
        new PodBuilder()
            .withNewMetadata()
            .withName("ok")
            .endMetadata()
            .withNewSpec()
            .withNewSecurityContext()
            .withRunAsNonRoot(true)
            .withRunAsUser(999L)
            .withNewSeccompProfile()
            .withType("RuntimeDefault")
            .endSeccompProfile()
            .endSecurityContext()
            .addNewContainer()
            .withName("c")
            .withImage("busybox")
            .withNewSecurityContext()
            .withAllowPrivilegeEscalation(false)
            .withNewCapabilities()
            .withDrop("ALL")
            .endCapabilities()
            .endSecurityContext()
            .endContainer()
            .endSpec()
            .build();
    assertThat(client.pods().inNamespace(restricted).resource(compliant).create()).isNotNull();
  }

  @Test
  void aTokenRequestTokenIsAuthorisedExactlyAsItsRbacSays() {
    client
        .serviceAccounts()
        .inNamespace(ns)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("reader").endMetadata().build())
        .create();
    client
        .rbac()
        .roles()
        .inNamespace(ns)
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName("configmap-reader")
                .endMetadata()
                .addNewRule()
                .withApiGroups("")
                .withResources("configmaps")
                .withVerbs("get", "list")
                .endRule()
                .build())
        .create();
    client
        .rbac()
        .roleBindings()
        .inNamespace(ns)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName("reader")
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("Role")
                .withName("configmap-reader")
                .endRoleRef()
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("reader")
                .withNamespace(ns)
                .endSubject()
                .build())
        .create();
    String token =
        client
            .serviceAccounts()
            .inNamespace(ns)
            .withName("reader")
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    Config admin = cluster.cluster().config();
    Config asReader =
        new ConfigBuilder(admin)
            .withOauthToken(token)
            .withClientCertData(null)
            .withClientKeyData(null)
            .withClientCertFile(null)
            .withClientKeyFile(null)
            .build();
    try (KubernetesClient reader = new KubernetesClientBuilder().withConfig(asReader).build()) {
      await("RBAC cache")
          .atMost(WAIT)
          .ignoreExceptions()
          .until(() -> reader.configMaps().inNamespace(ns).list() != null);
      assertThatThrownBy(() -> reader.secrets().inNamespace(ns).list())
          .isInstanceOf(KubernetesClientException.class)
          .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403))
          .hasMessageContaining("system:serviceaccount:" + ns + ":reader");
      assertThatThrownBy(
              () ->
                  reader
                      .configMaps()
                      .inNamespace(ns)
                      .resource(
                          new ConfigMapBuilder()
                              .withNewMetadata()
                              .withName("x")
                              .endMetadata()
                              .build())
                      .create())
          .isInstanceOf(KubernetesClientException.class)
          .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));
    }
  }

  @Test
  void aVolumeGrowsOnAnExpandableClassAndIsRefusedOnAFixedOne() {
    PersistentVolumeClaim standard = claim("grows", "standard");
    PersistentVolumeClaim fixed = claim("fixed", "fixed");
    await("both bound")
        .atMost(WAIT)
        .until(() -> phase("grows").equals("Bound") && phase("fixed").equals("Bound"));
    client
        .persistentVolumeClaims()
        .inNamespace(ns)
        .withName("grows")
        .edit(
            p -> {
              p.getSpec().getResources().getRequests().put("storage", new Quantity("2Gi"));
              return p;
            });
    await("capacity follows the request")
        .atMost(WAIT)
        .until(
            () ->
                new Quantity("2Gi")
                    .equals(
                        client
                            .persistentVolumeClaims()
                            .inNamespace(ns)
                            .withName("grows")
                            .get()
                            .getStatus()
                            .getCapacity()
                            .get("storage")));
    assertThatThrownBy(
            () ->
                client
                    .persistentVolumeClaims()
                    .inNamespace(ns)
                    .withName("fixed")
                    .edit(
                        p -> {
                          p.getSpec()
                              .getResources()
                              .getRequests()
                              .put("storage", new Quantity("2Gi"));
                          return p;
                        }))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("storageclass that provisions the pvc must support resize");
    assertThat(standard).isNotNull();
    assertThat(fixed).isNotNull();
    String volume = volumeOf("grows");
    await("the volume grows with its claim")
        .atMost(WAIT)
        .until(
            () -> client.persistentVolumes().withName(volume).get().getSpec().getCapacity(),
            capacity -> new Quantity("2Gi").equals(capacity.get("storage")));
  }

  @Test
  void aVolumeOfAClassThatDeletesGoesWithItsClaim() {
    claim("goes", "standard");
    await("bound").atMost(WAIT).until(() -> phase("goes").equals("Bound"));
    String volume = volumeOf("goes");
    assertThat(
            client
                .persistentVolumes()
                .withName(volume)
                .get()
                .getSpec()
                .getPersistentVolumeReclaimPolicy())
        .isEqualTo("Delete");
    client.persistentVolumeClaims().inNamespace(ns).withName("goes").delete();
    await("the volume deleted")
        .atMost(WAIT)
        .until(() -> client.persistentVolumes().withName(volume).get() == null);
  }

  static String volumeOf(String claim) {
    return client
        .persistentVolumeClaims()
        .inNamespace(ns)
        .withName(claim)
        .get()
        .getSpec()
        .getVolumeName();
  }

  static PersistentVolumeClaim claim(String name, String storageClass) {
    return client
        .persistentVolumeClaims()
        .inNamespace(ns)
        .resource(
            new PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withAccessModes("ReadWriteOnce")
                .withStorageClassName(storageClass)
                .withNewResources()
                .addToRequests("storage", new Quantity("1Gi"))
                .endResources()
                .endSpec()
                .build())
        .create();
  }

  static String phase(String claim) {
    var status = client.persistentVolumeClaims().inNamespace(ns).withName(claim).get().getStatus();
    return status == null || status.getPhase() == null ? "" : status.getPhase();
  }
}
