package dev.cellar.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalClusterExtension;
import dev.cellar.testkit.Prerequisites;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Helm chart on a real API server, with a real helm (e2e/cluster/build.sh tools): it installs
 * what deploy/operator installs, an upgrade with a changed value rolls the Deployment, and an
 * uninstall leaves the CRD and every Database in place. On the local cluster only: its pods are
 * kwok's, so the chart's operator never runs beside the suite's.
 */
class HelmChartIT {
  @RegisterExtension static LocalClusterExtension clusterExtension = new LocalClusterExtension();

  static final String RELEASE = "helmit";
  static final String NAMESPACE = "helmit-system";
  static KubernetesClient client;
  static Path helm;

  @BeforeAll
  static void setUp() {
    client = clusterExtension.client();
    Assumptions.assumeTrue(
        clusterExtension.cluster().isLocal(), "the chart's operator would run beside the suite's");
    helm = Path.of(System.getProperty("user.home"), ".cache/cellar/bin/tools/helm");
    Prerequisites.requireTool(helm);
  }

  static LocalCluster.Result helm(String... args) {
    List<String> command = new ArrayList<>(List.of(helm.toString()));
    command.add("--kubeconfig=" + clusterExtension.cluster().kubeconfig());
    command.addAll(List.of(args));
    LocalCluster.Result result = LocalCluster.exec(command, null);
    assertThat(result.exitCode()).as("helm %s: %s", args[0], result.output()).isZero();
    return result;
  }

  static Deployment deployment() {
    return client.apps().deployments().inNamespace(NAMESPACE).withName(RELEASE + "-operator").get();
  }

  static Object crd() {
    return client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName("databases.cellar.dev")
        .get();
  }

  static void awaitRolledOut(long generation) {
    await("Deployment generation " + generation + " rolled out")
        .atMost(Duration.ofMinutes(2))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              Deployment d = deployment();
              assertThat(d.getMetadata().getGeneration()).isEqualTo(generation);
              assertThat(d.getStatus().getObservedGeneration()).isEqualTo(generation);
              assertThat(d.getStatus().getUpdatedReplicas()).isEqualTo(1);
              assertThat(d.getStatus().getAvailableReplicas()).isEqualTo(1);
            });
  }

  @Test
  void installUpgradeAndUninstallKeepTheDatabases() {
    Path chart = LocalCluster.repoRoot().resolve("deploy/helm/cellar");
    helm(
        "install",
        RELEASE,
        chart.toString(),
        "-n",
        NAMESPACE,
        "--create-namespace",
        // The suite applied the CRD with kubectl first: helm's server-side apply takes it over.
        "--force-conflicts",
        "--wait=false");
    assertThat(client.rbac().clusterRoles().withName(RELEASE + "-operator").get()).isNotNull();
    assertThat(
            client.serviceAccounts().inNamespace(NAMESPACE).withName(RELEASE + "-operator").get())
        .isNotNull();
    assertThat(crd()).isNotNull();
    awaitRolledOut(1);

    String ns = clusterExtension.newNamespace();
    client
        .resources(Database.class)
        .inNamespace(ns)
        .resource(new Database(ns, "kept", new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi")))
        .create();

    helm("upgrade", RELEASE, chart.toString(), "-n", NAMESPACE, "--set", "logFormat=text");
    awaitRolledOut(2);
    assertThat(
            deployment().getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals("LOG_FORMAT"))
                .findFirst()
                .orElseThrow()
                .getValue())
        .isEqualTo("text");

    helm("uninstall", RELEASE, "-n", NAMESPACE, "--wait");
    assertThat(deployment()).isNull();
    assertThat(client.rbac().clusterRoles().withName(RELEASE + "-operator").get()).isNull();
    assertThat(crd()).as("the CRD stays: deleting it would delete every Database").isNotNull();
    assertThat(client.resources(Database.class).inNamespace(ns).withName("kept").get())
        .as("a Database outlives the chart")
        .isNotNull();
  }
}
