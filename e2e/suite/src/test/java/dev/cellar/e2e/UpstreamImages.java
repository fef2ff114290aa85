package dev.cellar.e2e;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.testkit.LocalCluster;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Scenarios whose Databases must become Ready run the engines' official images (postgres, mysql,
 * mariadb at the examples' versions). The local cluster's kwok nodes need no image; a cluster of
 * real nodes needs them on its nodes or pullable. Where no registry is reachable (the kind cluster
 * of e2e/kind on the machines this project is built on), they are skipped unless the nodes already
 * hold the images; {@code CELLAR_E2E_PULL_IMAGES=true} says the nodes can pull them.
 */
final class UpstreamImages {
  static final List<String> EXAMPLES = List.of("postgres:16", "mysql:8.4", "mariadb:11.4");

  private UpstreamImages() {}

  static void assumeAvailable(LocalCluster cluster, List<String> images) {
    if (cluster.isLocal() || "true".equals(System.getenv("CELLAR_E2E_PULL_IMAGES"))) {
      return;
    }
    Set<String> present;
    try (KubernetesClient client = cluster.newClient()) {
      present =
          client.nodes().list().getItems().stream()
              .map(Node::getStatus)
              .flatMap(
                  s ->
                      s.getImages() == null ? java.util.stream.Stream.of() : s.getImages().stream())
              .map(ContainerImage::getNames)
              .flatMap(List::stream)
              .collect(Collectors.toSet());
    }
    List<String> missing =
        images.stream()
            .filter(
                image ->
                    present.stream().noneMatch(n -> n.equals(image) || n.endsWith("/" + image)))
            .toList();
    assumeTrue(
        missing.isEmpty(),
        "the nodes lack "
            + missing
            + " and may not pull them (CELLAR_E2E_PULL_IMAGES=true if they can)");
  }
}
