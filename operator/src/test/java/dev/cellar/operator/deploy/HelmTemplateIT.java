package dev.cellar.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.testkit.Prerequisites;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Helm chart (deploy/helm/cellar) renders what {@code kubectl apply -k deploy/operator/}
 * installs: one source of truth for RBAC and the Deployment's security settings, checked with a
 * real helm (built by {@code e2e/cluster/build.sh tools}).
 *
 * <p>An integration test for when it runs, not for what it touches: on a new machine helm is built
 * beside the tests, and as a unit test it held the operator module's unit phase, and so every IT
 * after it, for the seven minutes of that build. Tagged {@code tools}, it runs after the other ITs
 * (operator/pom.xml), when the build is long done.
 */
@Tag("tools")
class HelmTemplateIT {
  static final Path CHART = DeployManifestsTest.ROOT.resolve("deploy/helm/cellar");
  static Path helm;

  @BeforeAll
  static void findHelm() {
    Path built = Path.of(System.getProperty("user.home"), ".cache/cellar/bin/tools/helm");
    String override = System.getenv("CELLAR_HELM");
    helm = override != null && !override.isBlank() ? Path.of(override) : built;
    Prerequisites.requireTool(helm);
  }

  /** Runs helm with the arguments; returns its standard output, failing on a non-zero exit. */
  static String helm(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(helm.toString()));
    command.addAll(List.of(args));
    Path err = Files.createTempFile("helm", ".err");
    Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("helm finished").isTrue();
    String stderr = Files.readString(err);
    Files.delete(err);
    assertThat(p.exitValue()).as("helm %s: %s%s", args[0], stderr, out).isZero();
    return out;
  }

  static List<HasMetadata> render(String... sets) throws IOException, InterruptedException {
    List<String> args =
        new ArrayList<>(List.of("template", "cellar", CHART.toString(), "-n", "cellar-system"));
    for (String set : sets) {
      args.add("--set");
      args.add(set);
    }
    String out = helm(args.toArray(String[]::new));
    List<HasMetadata> objects = new ArrayList<>();
    for (String doc : out.split("(?m)^---\\s*$")) {
      if (doc.lines().anyMatch(l -> l.startsWith("kind:"))) {
        objects.add(Serialization.unmarshal(doc));
      }
    }
    return objects;
  }

  static <T extends HasMetadata> T only(List<HasMetadata> objects, Class<T> type) {
    List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as(type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  @Test
  void lintsClean() throws Exception {
    assertThat(helm("lint", "--strict", CHART.toString())).contains("0 chart(s) failed");
  }

  @Test
  void rendersTheSameRbacAsTheKustomizeManifests() throws Exception {
    List<HasMetadata> chart = render();
    List<HasMetadata> kustomize = DeployManifestsTest.operatorObjects();
    assertThat(only(chart, ClusterRole.class).getRules())
        .as("ClusterRole rules: deploy/helm and deploy/operator must agree")
        .isEqualTo(only(kustomize, ClusterRole.class).getRules());
    assertThat(only(chart, Role.class).getRules())
        .as("leader-election Role rules")
        .isEqualTo(only(kustomize, Role.class).getRules());
    assertThat(chart)
        .extracting(HasMetadata::getKind)
        .containsExactlyInAnyOrder(
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Role",
            "RoleBinding",
            "Deployment");
  }

  @Test
  void rendersTheSameDeploymentByDefault() throws Exception {
    PodSpec chart = only(render(), Deployment.class).getSpec().getTemplate().getSpec();
    PodSpec kustomize =
        only(DeployManifestsTest.operatorObjects(), Deployment.class)
            .getSpec()
            .getTemplate()
            .getSpec();
    assertThat(chart.getSecurityContext()).isEqualTo(kustomize.getSecurityContext());
    assertThat(chart.getServiceAccountName()).isEqualTo(kustomize.getServiceAccountName());
    assertThat(chart.getVolumes()).isEqualTo(kustomize.getVolumes());
    Container c = chart.getContainers().get(0);
    Container k = kustomize.getContainers().get(0);
    assertThat(c.getImage()).isEqualTo(k.getImage());
    assertThat(c.getSecurityContext()).isEqualTo(k.getSecurityContext());
    assertThat(c.getResources()).isEqualTo(k.getResources());
    assertThat(List.of(c.getStartupProbe(), c.getLivenessProbe(), c.getReadinessProbe()))
        .isEqualTo(List.of(k.getStartupProbe(), k.getLivenessProbe(), k.getReadinessProbe()));
    assertThat(c.getEnv()).isEqualTo(k.getEnv());
    assertThat(c.getVolumeMounts()).isEqualTo(k.getVolumeMounts());
  }

  @Test
  void valuesReachTheDeployment() throws Exception {
    List<HasMetadata> objects =
        render(
            "watchNamespaces={shop,billing}",
            "leaderElection=false",
            "replicaCount=2",
            "image.tag=9.9.9",
            "logFormat=text");
    Deployment deployment = only(objects, Deployment.class);
    Container c = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    Map<String, String> env =
        c.getEnv().stream()
            .filter(e -> e.getValue() != null)
            .collect(Collectors.toMap(e -> e.getName(), e -> e.getValue()));
    assertThat(env)
        .containsEntry("WATCH_NAMESPACES", "shop,billing")
        .containsEntry("LEADER_ELECTION", "false")
        .containsEntry("LOG_FORMAT", "text");
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(c.getImage()).isEqualTo("cellar/cellar-operator:9.9.9");
    assertThat(objects).extracting(HasMetadata::getKind).doesNotContain("Role", "RoleBinding");
  }
}
