package dev.cellar.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What users apply from deploy/: parsed as Kubernetes objects and checked for what matters. */
class DeployManifestsTest {
  static final Path ROOT = Path.of(System.getProperty("cellar.repo.root", ".."));
  static final Path OPERATOR = ROOT.resolve("deploy/operator");

  @SuppressWarnings("unchecked")
  static List<HasMetadata> load(Path file) throws IOException {
    Object parsed = Serialization.unmarshal(Files.readString(file));
    if (parsed instanceof KubernetesResourceList<?> list) {
      return new ArrayList<>((List<HasMetadata>) list.getItems());
    }
    if (parsed instanceof List<?> list) {
      return (List<HasMetadata>) list;
    }
    return List.of((HasMetadata) parsed);
  }

  static List<HasMetadata> operatorObjects() throws IOException {
    List<HasMetadata> all = new ArrayList<>();
    for (String file : kustomizationResources()) {
      all.addAll(load(OPERATOR.resolve(file)));
    }
    return all;
  }

  @SuppressWarnings("unchecked")
  static List<String> kustomizationResources() throws IOException {
    Map<String, Object> kustomization =
        Serialization.unmarshal(
            Files.readString(OPERATOR.resolve("kustomization.yaml")), Map.class);
    return (List<String>) kustomization.get("resources");
  }

  static <T extends HasMetadata> T only(Class<T> type) throws IOException {
    List<T> found = operatorObjects().stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as(type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  @Test
  void kustomizationListsEveryManifestAndNoCrd() throws IOException {
    List<String> present;
    try (Stream<Path> files = Files.list(OPERATOR)) {
      present =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".yaml") && !n.equals("kustomization.yaml"))
              .toList();
    }
    assertThat(kustomizationResources()).containsExactlyInAnyOrderElementsOf(present);
    assertThat(operatorObjects())
        .extracting(HasMetadata::getKind)
        .doesNotContain("CustomResourceDefinition");
  }

  @Test
  void kindsAndNames() throws IOException {
    assertThat(operatorObjects())
        .extracting(o -> o.getKind() + "/" + o.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "Namespace/cellar-system",
            "ServiceAccount/cellar-operator",
            "ClusterRole/cellar-operator",
            "ClusterRoleBinding/cellar-operator",
            "Role/cellar-operator-leader-election",
            "RoleBinding/cellar-operator-leader-election",
            "Deployment/cellar-operator");
    assertThat(operatorObjects())
        .filteredOn(o -> !o.getKind().startsWith("Cluster") && !o.getKind().equals("Namespace"))
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo("cellar-system"));
  }

  @Test
  void bindingsGrantTheOperatorsServiceAccount() throws IOException {
    ClusterRoleBinding cluster = only(ClusterRoleBinding.class);
    assertThat(cluster.getRoleRef().getKind()).isEqualTo("ClusterRole");
    assertThat(cluster.getRoleRef().getName()).isEqualTo("cellar-operator");
    RoleBinding leases = only(RoleBinding.class);
    assertThat(leases.getRoleRef().getName()).isEqualTo("cellar-operator-leader-election");
    for (List<Subject> subjects : List.of(cluster.getSubjects(), leases.getSubjects())) {
      assertThat(subjects)
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.getKind()).isEqualTo("ServiceAccount");
                assertThat(s.getName()).isEqualTo("cellar-operator");
                assertThat(s.getNamespace()).isEqualTo("cellar-system");
              });
    }
  }

  static boolean grants(List<PolicyRule> rules, String group, String resource, String verb) {
    return rules.stream()
        .anyMatch(
            r ->
                r.getApiGroups().contains(group)
                    && r.getResources().contains(resource)
                    && r.getVerbs().contains(verb));
  }

  @Test
  void clusterRoleIsLeastPrivilege() throws IOException {
    List<PolicyRule> rules = only(ClusterRole.class).getRules();
    assertThat(rules)
        .allSatisfy(
            r -> {
              assertThat(r.getVerbs()).doesNotContain("*");
              assertThat(r.getResources()).doesNotContain("*");
              assertThat(r.getApiGroups()).doesNotContain("*");
            });
    assertThat(grants(rules, "cellar.dev", "databases", "watch")).isTrue();
    assertThat(grants(rules, "cellar.dev", "databases/status", "patch")).isTrue();
    for (String[] child :
        new String[][] {
          {"", "secrets"},
          {"", "configmaps"},
          {"", "services"},
          {"", "persistentvolumeclaims"},
          {"apps", "statefulsets"},
          {"policy", "poddisruptionbudgets"},
          {"networking.k8s.io", "networkpolicies"},
          {"monitoring.coreos.com", "podmonitors"},
          {"cert-manager.io", "certificates"},
          {"batch", "cronjobs"}
        }) {
      assertThat(grants(rules, child[0], child[1], "create")).as(child[1]).isTrue();
      assertThat(grants(rules, child[0], child[1], "watch")).as(child[1]).isTrue();
    }
    assertThat(grants(rules, "", "events", "create")).isTrue();
    assertThat(grants(rules, "", "events", "watch")).isTrue(); // WarningEvents
    assertThat(grants(rules, "", "secrets", "deletecollection")).isFalse();
    // Failover runs role.sh in the database pods; nothing else of a pod's subresources.
    assertThat(grants(rules, "", "pods/exec", "create")).isTrue();
    assertThat(grants(rules, "", "pods/attach", "create")).isFalse();
    assertThat(grants(rules, "", "pods/portforward", "create")).isFalse();
  }

  @Test
  void deploymentRunsRestrictedAsTheServiceAccount() throws IOException {
    Deployment deployment = only(Deployment.class);
    var pod = deployment.getSpec().getTemplate().getSpec();
    assertThat(pod.getServiceAccountName()).isEqualTo("cellar-operator");
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    Container c = pod.getContainers().get(0);
    assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(c.getPorts().get(0).getContainerPort()).isEqualTo(8080);
    assertThat(c.getEnv())
        .extracting(EnvVar::getName)
        .contains("WATCH_NAMESPACES", "LEADER_ELECTION", "HTTP_PORT", "LOG_FORMAT");
    assertThat(c.getResources().getLimits()).containsKeys("cpu", "memory");
  }

  @Test
  void examplesAreDatabases() throws IOException {
    Map<String, Engine> examples =
        Map.of(
            "postgresql.yaml",
            Engine.POSTGRESQL,
            "mysql.yaml",
            Engine.MYSQL,
            "mariadb.yaml",
            Engine.MARIADB);
    for (var example : examples.entrySet()) {
      Database db =
          Serialization.unmarshal(
              Files.readString(ROOT.resolve("deploy/examples").resolve(example.getKey())),
              Database.class);
      assertThat(db.getSpec().getEngine()).isEqualTo(example.getValue());
      assertThat(db.getMetadata().getNamespace())
          .as("examples go to the current namespace")
          .isNull();
    }
    Database orders =
        Serialization.unmarshal(
            Files.readString(ROOT.resolve("deploy/examples/postgresql.yaml")), Database.class);
    assertThat(orders.getMetadata().getName()).isEqualTo("orders-db");
    assertThat(orders.getSpec().getVersion()).isEqualTo("16");
    assertThat(orders.getSpec().getStorage()).isEqualTo("100Gi");
    assertThat(orders.getSpec().getReplicas()).isEqualTo(2);
    assertThat(orders.getSpec().getBackupEnabled()).isTrue();
  }

  /**
   * The JVM's options live in three places: the Deployment, the chart's values and the image's
   * default environment (operator/pom.xml, for a pod that sets none). A change to one alone would
   * leave the sizing measured for one and shipped with another.
   */
  @Test
  void theJvmOptionsAreTheSameInTheDeploymentTheChartAndTheImage() throws IOException {
    Container container =
        only(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
    Map<String, String> env = new HashMap<>();
    for (EnvVar e : container.getEnv()) {
      env.put(e.getName(), e.getValue());
    }
    String deployment = env.get("JAVA_TOOL_OPTIONS");
    assertThat(deployment).contains("-Xmn", "-XX:MaxRAMPercentage=");

    @SuppressWarnings("unchecked")
    Map<String, Object> values =
        Serialization.unmarshal(
            Files.readString(ROOT.resolve("deploy/helm/cellar/values.yaml")), Map.class);
    assertThat(values.get("javaToolOptions"))
        .as("the chart's javaToolOptions")
        .isEqualTo(deployment);

    String pom = Files.readString(ROOT.resolve("operator/pom.xml"));
    Matcher image =
        Pattern.compile(
                "<JAVA_TOOL_OPTIONS>([^<]*)</JAVA_TOOL_OPTIONS>\\s*<MALLOC_ARENA_MAX>([^<]*)<")
            .matcher(pom);
    assertThat(image.find()).as("the image's environment in operator/pom.xml").isTrue();
    assertThat(image.group(1)).as("the image's JAVA_TOOL_OPTIONS").isEqualTo(deployment);
    assertThat(image.group(2))
        .as("the image's MALLOC_ARENA_MAX")
        .isEqualTo(env.get("MALLOC_ARENA_MAX"));
  }

  /**
   * A JVM refuses to start on an option it does not know (a typo, a flag of another release): the
   * operator's pod would only crash-loop. The options start the JVM that runs the tests (Debian's
   * 17, the image's JRE, where bin/test installs it).
   */
  @Test
  void theJvmStartsWithTheDeploymentsOptions() throws IOException, InterruptedException {
    Container container =
        only(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
    String options =
        container.getEnv().stream()
            .filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS"))
            .findFirst()
            .orElseThrow()
            .getValue();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(options.split(" ")));
    command.add("-version");
    Process java = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(java.getInputStream().readAllBytes());
    assertThat(java.waitFor()).as(output).isZero();
  }
}
