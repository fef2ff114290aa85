package dev.cellar.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The connection flags, resolved as kubectl resolves them (no API server needed). */
class KubeTest {
  static final String KUBECONFIG =
      """
      apiVersion: v1
      kind: Config
      clusters:
      - name: one
        cluster: {server: "https://127.0.0.1:1"}
      - name: two
        cluster: {server: "https://127.0.0.1:2"}
      users:
      - name: u
        user: {token: t}
      contexts:
      - name: first
        context: {cluster: one, user: u, namespace: shop}
      - name: second
        context: {cluster: two, user: u}
      current-context: first
      """;

  @TempDir Path dir;

  @Test
  void kubeconfigContextAndNamespaceFlagsAreHonoured() throws Exception {
    Path file = dir.resolve("config");
    Files.writeString(file, KUBECONFIG);
    String path = file.toString();

    Kube current = Kube.of(Args.parse("status", "x", "--kubeconfig", path));
    var config = current.config();
    assertThat(config.getMasterUrl()).startsWith("https://127.0.0.1:1");
    assertThat(current.namespace(config)).isEqualTo("shop");

    Kube second = Kube.of(Args.parse("status", "x", "--kubeconfig", path, "--context", "second"));
    var secondConfig = second.config();
    assertThat(secondConfig.getMasterUrl()).startsWith("https://127.0.0.1:2");
    assertThat(second.namespace(secondConfig)).isEqualTo("default");

    Kube flagged = Kube.of(Args.parse("status", "x", "--kubeconfig=" + path, "-n", "other"));
    assertThat(flagged.namespace(flagged.config())).isEqualTo("other");
    assertThat(flagged.kubectlFlags("other"))
        .containsExactly("--kubeconfig=" + path, "--namespace=other");
    assertThat(second.kubectlFlags("default"))
        .containsExactly("--kubeconfig=" + path, "--context=second", "--namespace=default");

    assertThatThrownBy(
            () ->
                Kube.of(Args.parse("status", "x", "--kubeconfig", path, "--context", "nope"))
                    .config())
        .hasMessage("context nope was not found in the kubeconfig");
    assertThatThrownBy(
            () ->
                Kube.of(Args.parse("status", "x", "--kubeconfig", dir.resolve("none").toString()))
                    .config())
        .hasMessageContaining("cannot read --kubeconfig");
  }

  @Test
  void theArchiveTrainingRunsWithoutACluster() {
    CdsTraining.run();
  }
}
