package dev.cellar.testkit;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The database images the nodes of a cluster without a reachable registry hold, by engine: {@code
 * CELLAR_E2E_IMAGES=engine=image,...} ({@code e2e/kind/kind-cluster engine-images} prints it for
 * kind's nodes). A scenario that runs a real database there runs its engine's image, with the
 * image's tag as the version.
 */
public record EngineImages(Map<String, String> images) {
  /** CELLAR_E2E_IMAGES's {@code engine=image} pairs, comma-separated; none when it is unset. */
  public static EngineImages fromEnvironment() {
    return parse(Optional.ofNullable(System.getenv("CELLAR_E2E_IMAGES")).orElse(""));
  }

  static EngineImages parse(String value) {
    Map<String, String> map = new LinkedHashMap<>();
    for (String pair : value.split(",")) {
      String[] kv = pair.strip().split("=", 2);
      if (kv.length == 2 && !kv[0].isBlank() && !kv[1].isBlank()) {
        map.put(kv[0].strip(), kv[1].strip());
      }
    }
    return new EngineImages(Map.copyOf(map));
  }

  /** The image named for {@code engine} (postgresql, mysql, mariadb). */
  public Optional<String> of(String engine) {
    return Optional.ofNullable(images.get(engine));
  }

  /** An image reference's tag (its version, for the project's images). */
  public static String tag(String image) {
    int slash = image.lastIndexOf('/');
    int colon = image.lastIndexOf(':');
    if (colon <= slash) {
      throw new IllegalArgumentException("CELLAR_E2E_IMAGES: " + image + " has no tag");
    }
    return image.substring(colon + 1);
  }
}
