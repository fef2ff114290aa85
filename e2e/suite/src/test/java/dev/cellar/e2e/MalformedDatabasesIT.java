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
@RunsOnKind
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

  /**
   * A refused input: {@code spec} is the YAML under {@code spec:} (indented by two), {@code
   * metadataName} the Database's name (derived from {@code name} when null).
   */
  record Bad(String name, String spec, String field, String message, String metadataName) {
    Bad(String name, String spec, String field, String message) {
      this(name, spec, field, message, null);
    }

    String databaseName() {
      return metadataName != null ? metadataName : "bad-" + name.replace(' ', '-').toLowerCase();
    }

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
            "failover delay negative",
            OK + "  failover: {delaySeconds: -1}\n",
            "spec.failover.delaySeconds",
            "greater than or equal to 0"),
        new Bad(
            "failover delay too long",
            OK + "  failover: {delaySeconds: 7200}\n",
            "spec.failover.delaySeconds",
            "less than or equal to 3600"),
        new Bad(
            "failover enabled text",
            OK + "  failover: {enabled: maybe}\n",
            "spec.failover.enabled",
            "must be of type boolean"),
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
            "Unsupported value"),
        // Refusals added with issue 14: inputs that would fail later, in a child or the operator.
        new Bad(
            "name too long for the backup CronJob",
            OK,
            "metadata.name",
            "may have at most 45 characters",
            "a" + "b".repeat(44) + "c"),
        new Bad("name starting with a digit", OK, "metadata.name", "DNS-1035 label", "1-db"),
        new Bad("name with a dot", OK, "metadata.name", "DNS-1035 label", "orders.db"),
        new Bad(
            "version part of ten digits",
            "engine: postgresql\n  version: \"9999999999\"\n  storage: 10Gi\n",
            "spec.version",
            "version parts may have at most 9 digits"),
        new Bad(
            "storage zero",
            "engine: postgresql\n  version: \"16\"\n  storage: 0Mi\n",
            "spec.storage",
            "storage must be more than 0"),
        new Bad(
            "storage above 64Ti",
            "engine: postgresql\n  version: \"16\"\n  storage: 65Ti\n",
            "spec.storage",
            "storage may be at most 64Ti"),
        new Bad(
            "storage above 64Ti in Gi",
            "engine: mysql\n  version: \"8.4\"\n  storage: 100000Gi\n",
            "spec.storage",
            "storage may be at most 64Ti"),
        new Bad(
            "storage too long",
            "engine: mysql\n  version: \"8.4\"\n  storage: " + "0".repeat(40) + "1Gi\n",
            "spec.storage",
            "Too long"),
        new Bad(
            "backup storage zero",
            OK + "  backup: {storage: 0Gi}\n",
            "spec.backup.storage",
            "backup.storage must be more than 0"),
        new Bad(
            "backup storage above 64Ti",
            OK + "  backup: {storage: 128Ti}\n",
            "spec.backup.storage",
            "backup.storage may be at most 64Ti"),
        new Bad(
            "cpu request above limit",
            OK + "  resources: {requests: {cpu: 2}, limits: {cpu: 500m}}\n",
            "spec.resources.requests.cpu",
            "requests.cpu 2 is above limits.cpu 500m"),
        new Bad(
            "memory request above limit",
            OK + "  resources: {requests: {memory: 2Gi}, limits: {memory: 1024Mi}}\n",
            "spec.resources.requests.memory",
            "requests.memory 2Gi is above limits.memory 1024Mi"),
        new Bad(
            "quantity too long",
            OK + "  resources: {requests: {cpu: \"0." + "0".repeat(40) + "1\"}}\n",
            "spec.resources.requests.cpu",
            "Too long"),
        new Bad(
            "schedule minute 60",
            OK + "  backup: {schedule: \"60 2 * * *\"}\n",
            "spec.backup.schedule",
            "the minute field (1st) 60 is not"),
        new Bad(
            "schedule hour 24",
            OK + "  backup: {schedule: \"0 24 * * *\"}\n",
            "spec.backup.schedule",
            "the hour field (2nd) 24 is not"),
        new Bad(
            "schedule day 32",
            OK + "  backup: {schedule: \"0 2 32 * *\"}\n",
            "spec.backup.schedule",
            "the day-of-month field (3rd) 32 is not"),
        new Bad(
            "schedule month 13",
            OK + "  backup: {schedule: \"0 2 1 13 *\"}\n",
            "spec.backup.schedule",
            "the month field (4th) 13 is not"),
        new Bad(
            "schedule weekday 7",
            OK + "  backup: {schedule: \"0 2 * * 7\"}\n",
            "spec.backup.schedule",
            "the day-of-week field (5th) 7 is not"),
        new Bad(
            "schedule step 0",
            OK + "  backup: {schedule: \"*/0 * * * *\"}\n",
            "spec.backup.schedule",
            "the minute field (1st) */0 is not"),
        new Bad(
            "schedule range backwards",
            OK + "  backup: {schedule: \"0 22-2 * * *\"}\n",
            "spec.backup.schedule",
            "the hour field (2nd) 22-2 is not"),
        new Bad(
            "schedule 30 February",
            OK + "  backup: {schedule: \"0 2 30 2 *\"}\n",
            "spec.backup.schedule",
            "never runs: day 30 does not occur in month 2"),
        new Bad(
            "schedule 31 November",
            OK + "  backup: {schedule: \"0 2 31 nov *\"}\n",
            "spec.backup.schedule",
            "never runs: day 31 does not occur in month nov"),
        new Bad(
            "schedule too long",
            OK + "  backup: {schedule: \"0 2 " + "1,".repeat(70) + "1 * *\"}\n",
            "spec.backup.schedule",
            "Too long"),
        new Bad("image upper case", OK + "  image: Postgres:16\n", "spec.image", "should match"),
        new Bad(
            "image with a space", OK + "  image: \"postgres 16\"\n", "spec.image", "should match"),
        new Bad(
            "image with a scheme",
            OK + "  image: \"https://mirror.example/postgres:16\"\n",
            "spec.image",
            "should match"),
        new Bad("image empty", OK + "  image: \"\"\n", "spec.image", "should match"),
        new Bad(
            "object store without bucket",
            OK
                + "  backup: {objectStore: {endpoint: \"http://s3.local:9000\","
                + " credentialsSecret: s3-keys}}\n",
            "spec.backup.objectStore",
            "objectStore needs bucket"),
        new Bad(
            "object store endpoint with a path",
            OK
                + "  backup: {objectStore: {endpoint: \"http://s3.local:9000/dumps\", bucket: dumps,"
                + " credentialsSecret: s3-keys}}\n",
            "spec.backup.objectStore.endpoint",
            "objectStore.endpoint must be http(s)://host[:port] without a path"),
        new Bad(
            "object store endpoint without scheme",
            OK
                + "  backup: {objectStore: {endpoint: s3.local, bucket: dumps,"
                + " credentialsSecret: s3-keys}}\n",
            "spec.backup.objectStore.endpoint",
            "objectStore.endpoint must be http(s)://host[:port]"),
        new Bad(
            "object store bucket upper case",
            OK
                + "  backup: {objectStore: {endpoint: \"https://s3.local\", bucket: Dumps,"
                + " credentialsSecret: s3-keys}}\n",
            "spec.backup.objectStore.bucket",
            "objectStore.bucket must be 3 to 63 lower-case letters"),
        new Bad(
            "bootstrap from a volume and a bucket",
            OK
                + "  bootstrap: {fromBackup: {database: orders, source: volume,"
                + " objectStore: {endpoint: \"https://s3.local\", bucket: dumps,"
                + " credentialsSecret: s3-keys}}}\n",
            "spec.bootstrap.fromBackup",
            "objectStore is set but source is volume"),
        new Bad(
            "bootstrap from object store without a bucket",
            OK + "  bootstrap: {fromBackup: {database: orders}}\n",
            "spec.bootstrap.fromBackup",
            "objectStore is required with source objectStore"),
        new Bad(
            "bootstrap without database",
            OK + "  bootstrap: {fromBackup: {source: volume}}\n",
            "spec.bootstrap.fromBackup.database",
            "Required value"),
        new Bad(
            "bootstrap backup not a dump name",
            OK + "  bootstrap: {fromBackup: {database: orders, source: volume, backup: newest}}\n",
            "spec.bootstrap.fromBackup.backup",
            "must be latest or a dump name"),
        new Bad(
            "storage class not a name",
            OK + "  storageClassName: Fast_SSD\n",
            "spec.storageClassName",
            "should match"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void isRejectedNamingTheField(Bad bad) throws Exception {
    String name = bad.databaseName();
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
