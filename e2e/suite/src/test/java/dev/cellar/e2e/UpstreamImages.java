package dev.cellar.e2e;

import dev.cellar.testkit.EngineImages;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.Prerequisites;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Scenarios whose Databases must become Ready run the engines' official images (postgres, mysql,
 * mariadb at the examples' versions). The local cluster's kwok nodes need no image; a cluster of
 * real nodes needs them on its nodes or pullable ({@code CELLAR_E2E_PULL_IMAGES=true} says the
 * nodes can pull them).
 *
 * <p>Where no registry is reachable (the kind cluster of e2e/kind on the machines this project is
 * built on), {@code CELLAR_E2E_IMAGES=engine=image,...} names the engines' images the nodes hold
 * instead ({@code e2e/kind/kind-cluster engine-images} prints them): an example whose official
 * image the nodes lack then runs with the image of its engine, the image's tag as its version, and
 * a MySQL example with MariaDB's image as a MariaDB Database when no MySQL image is named (the same
 * family; no image is ever used under an engine it is not). The substitution is printed, and the
 * scenarios assert on the engine and version that actually run.
 */
final class UpstreamImages {
  private static final Map<String, String> OFFICIAL_REPOSITORY =
      Map.of("postgresql", "postgres", "mysql", "mysql", "mariadb", "mariadb");

  private UpstreamImages() {}

  /** What runs for an example: its engine and version, and the image (null: the official one). */
  record Run(String engine, String version, String image) {
    String officialImage() {
      return OFFICIAL_REPOSITORY.get(engine) + ":" + version;
    }

    /**
     * The example's manifest with this engine, version and image (the file itself if unchanged).
     */
    Path apply(Path example) {
      try {
        String yaml = Files.readString(example);
        if (image == null
            && engine.equals(field(yaml, "engine"))
            && version.equals(field(yaml, "version"))) {
          return example;
        }
        String changed =
            yaml.replaceFirst("(?m)^([ \\t]+)engine:.*$", "$1engine: " + engine)
                .replaceFirst(
                    "(?m)^([ \\t]+)version:.*$",
                    "$1version: \""
                        + version
                        + "\""
                        // The nodes hold the engine's image but no exporter image, which a
                        // node without a registry cannot pull: no exporter there.
                        + (image == null
                            ? ""
                            : "\n$1image: " + image + "\n$1monitoring: {enabled: false}"));
        Path file = Files.createTempFile("example-", ".yaml");
        Files.writeString(file, changed);
        file.toFile().deleteOnExit();
        return file;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The value of a top-level spec field ({@code engine}, {@code version}) in an example's YAML. */
  static String field(String yaml, String name) {
    Matcher m = Pattern.compile("(?m)^[ \\t]+" + name + ":\\s*\"?([^\"\\s#]+)\"?").matcher(yaml);
    if (!m.find()) {
      throw new IllegalArgumentException("no " + name + " in " + yaml);
    }
    return m.group(1);
  }

  /**
   * What runs for the example at {@code example} (deploy/examples) on this cluster; skips the
   * calling scenario (an assumption) when the nodes hold neither the official image nor a
   * substitute.
   */
  static Run forExample(LocalCluster cluster, Path example) {
    String yaml;
    try {
      yaml = Files.readString(example);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Run official = new Run(field(yaml, "engine"), field(yaml, "version"), null);
    if (cluster.isLocal() || "true".equals(System.getenv("CELLAR_E2E_PULL_IMAGES"))) {
      return official;
    }
    Set<String> present = nodeImages(cluster);
    if (held(present, official.officialImage())) {
      return official;
    }
    Map<String, String> substitutes = EngineImages.fromEnvironment().images();
    Optional<Run> substitute =
        Stream.of(official.engine(), "mysql".equals(official.engine()) ? "mariadb" : "")
            .filter(substitutes::containsKey)
            .findFirst()
            .map(e -> new Run(e, EngineImages.tag(substitutes.get(e)), substitutes.get(e)));
    Prerequisites.require(
        substitute.isPresent(),
        official.officialImage() + " on the nodes, or an image of the engine named to stand in",
        "CELLAR_E2E_PULL_IMAGES=true if the nodes may pull it; CELLAR_E2E_IMAGES=engine=image,..."
            + " names the engines' images they hold (e2e/kind/suite sets it)");
    Run run = substitute.get();
    Prerequisites.require(
        held(present, run.image()),
        run.image() + " on the nodes, which CELLAR_E2E_IMAGES names",
        "kind's node image holds the database images e2e/kind/kind-cluster engine-images names");
    System.out.printf(
        "%s: %s %s runs as %s %s from %s (CELLAR_E2E_IMAGES: the nodes lack %s)%n",
        example.getFileName(),
        official.engine(),
        official.version(),
        run.engine(),
        run.version(),
        run.image(),
        official.officialImage());
    return run;
  }

  static boolean held(Set<String> present, String image) {
    return present.stream().anyMatch(n -> n.equals(image) || n.endsWith("/" + image));
  }

  static Set<String> nodeImages(LocalCluster cluster) {
    try (KubernetesClient client = cluster.newClient()) {
      return client.nodes().list().getItems().stream()
          .map(Node::getStatus)
          .flatMap(s -> s.getImages() == null ? Stream.of() : s.getImages().stream())
          .map(ContainerImage::getNames)
          .flatMap(List::stream)
          .collect(Collectors.toSet());
    }
  }
}
