package dev.cellar.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The default exporter images are the upstream images at the versions the tests run: the real node
 * pulls nothing and runs the exporters e2e/realnode/images.sh builds from Debian's packages, so
 * those versions are the only ones Cellar's flags and metrics are proven with. The defaults once
 * stayed two minor versions behind while the comment said they were tested.
 */
class ExporterImagesTest {
  static final Path IMAGES_SH =
      Path.of(System.getProperty("cellar.repo.root", "..")).resolve("e2e/realnode/images.sh");

  /** A case of images.sh's ref(), e.g. {@code postgres-exporter) echo cellar.local/x:0.17.1 ;;}. */
  static final Pattern REF =
      Pattern.compile("(?m)^\\s*([a-z0-9-]+)\\)\\s*echo\\s+(\\S+):(\\S+)\\s*;;");

  /** The version of each image images.sh's ref() names, by image name. */
  static Map<String, String> testedVersions() throws IOException {
    Map<String, String> versions = new HashMap<>();
    Matcher m = REF.matcher(Files.readString(IMAGES_SH));
    while (m.find()) {
      versions.put(m.group(1), m.group(3));
    }
    return versions;
  }

  static String defaultImage(Engine engine) {
    return EngineProfiles.of(engine)
        .exporterImage(new Database("ns", "orders", new DatabaseSpec(engine, "1", "1Gi")));
  }

  @Test
  void theDefaultExportersAreTheVersionsTheRealNodeRuns() throws IOException {
    Map<String, String> tested = testedVersions();
    assertThat(tested).containsKeys("postgres-exporter", "mysqld-exporter");
    assertThat(defaultImage(Engine.POSTGRESQL))
        .isEqualTo(
            "quay.io/prometheuscommunity/postgres-exporter:v" + tested.get("postgres-exporter"));
    for (Engine engine : new Engine[] {Engine.MYSQL, Engine.MARIADB}) {
      assertThat(defaultImage(engine))
          .as(engine.value())
          .isEqualTo("prom/mysqld-exporter:v" + tested.get("mysqld-exporter"));
    }
  }
}
