package dev.cellar.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalClusterExtension;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad input never reaches the operator: the API server refuses it, naming the field. */
class MalformedDatabasesIT {
  @RegisterExtension static LocalClusterExtension clusterExtension = new LocalClusterExtension();

  static Cellar cellar;
  static String ns;

  @BeforeAll
  static void install() {
    cellar = Cellar.install("malformed-databases");
    ns = clusterExtension.newNamespace();
  }

  @AfterAll
  static void stop() {
    try {
      assertThat(cellar.log()).as("the operator logged no error").doesNotContain(" ERROR ");
    } finally {
      cellar.close();
    }
  }

  record Bad(String name, String spec, String field, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static final String OK = "engine: postgresql\n  version: \"16\"\n  storage: 10Gi\n";

  static List<Bad> malformed() {
    return List.of(
        new Bad(
            "unknown engine",
            "engine: oracle\n  version: \"19\"\n  storage: 10Gi\n",
            "spec.engine",
            "Unsupported value"),
        new Bad(
            "engine missing",
            "version: \"16\"\n  storage: 10Gi\n",
            "spec.engine",
            "Required value"),
        new Bad(
            "version missing",
            "engine: mysql\n  storage: 10Gi\n",
            "spec.version",
            "Required value"),
        new Bad(
            "storage missing",
            "engine: mysql\n  version: \"8.4\"\n",
            "spec.storage",
            "Required value"),
        new Bad(
            "version word",
            "engine: postgresql\n  version: latest\n  storage: 10Gi\n",
            "spec.version",
            "should match"),
        new Bad(
            "version four parts",
            "engine: postgresql\n  version: \"16.1.2.3\"\n  storage: 10Gi\n",
            "spec.version",
            "should match"),
        new Bad(
            "version with v",
            "engine: postgresql\n  version: v16\n  storage: 10Gi\n",
            "spec.version",
            "should match"),
        new Bad(
            "version number",
            "engine: postgresql\n  version: 16\n  storage: 10Gi\n",
            "spec.version",
            "must be of type string"),
        new Bad(
            "storage GB",
            "engine: postgresql\n  version: \"16\"\n  storage: 100GB\n",
            "spec.storage",
            "should match"),
        new Bad(
            "storage bare number",
            "engine: postgresql\n  version: \"16\"\n  storage: \"100\"\n",
            "spec.storage",
            "should match"),
        new Bad(
            "storage negative",
            "engine: postgresql\n  version: \"16\"\n  storage: -1Gi\n",
            "spec.storage",
            "should match"),
        new Bad(
            "replicas zero", OK + "  replicas: 0\n", "spec.replicas", "greater than or equal to 1"),
        new Bad("replicas six", OK + "  replicas: 6\n", "spec.replicas", "less than or equal to 5"),
        new Bad(
            "replicas text", OK + "  replicas: two\n", "spec.replicas", "must be of type integer"),
        new Bad(
            "backupEnabled text",
            OK + "  backupEnabled: sometimes\n",
            "spec.backupEnabled",
            "must be of type boolean"),
        new Bad(
            "retention zero",
            OK + "  backup: {retention: 0}\n",
            "spec.backup.retention",
            "greater than or equal to 1"),
        new Bad(
            "retention too long",
            OK + "  backup: {retention: 400}\n",
            "spec.backup.retention",
            "less than or equal to 365"),
        new Bad(
            "backup storage",
            OK + "  backup: {storage: 5 gigs}\n",
            "spec.backup.storage",
            "should match"),
        new Bad(
            "backup schedule",
            OK + "  backup: {schedule: \"every night\"}\n",
            "spec.backup.schedule",
            "should match"),
        new Bad(
            "deletion policy",
            OK + "  deletionPolicy: Orphan\n",
            "spec.deletionPolicy",
            "Unsupported value"),
        new Bad(
            "resources",
            OK + "  resources: {limits: {memory: lots}}\n",
            "spec.resources.limits.memory",
            "should match"),
        new Bad(
            "engine upper case",
            "engine: PostgreSQL\n  version: \"16\"\n  storage: 10Gi\n",
            "spec.engine",
            "Unsupported value"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void isRejectedNamingTheField(Bad bad) throws Exception {
    String name = "bad-" + bad.name().replace(' ', '-').toLowerCase();
    java.nio.file.Path file = cellar.logs.resolve(name + ".yaml");
    java.nio.file.Files.writeString(
        file,
        "apiVersion: cellar.dev/v1\nkind: Database\nmetadata:\n  name: "
            + name
            + "\nspec:\n  "
            + bad.spec());
    LocalCluster.Result result = cellar.cluster.kubectl("-n", ns, "apply", "-f", file.toString());
    assertThat(result.exitCode()).as(result.output()).isNotZero();
    assertThat(result.output()).contains(bad.field()).contains(bad.message());
    assertThat(cellar.cluster.kubectl("-n", ns, "get", "db", name).exitCode()).isNotZero();
  }
}
