package dev.cellar.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cellar.testkit.LocalClusterExtension;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The generated CRD on a real API server: its defaults and every validation rule. */
class DatabaseCrdIT {
  @RegisterExtension static LocalClusterExtension cluster = new LocalClusterExtension();

  static KubernetesClient client;
  static String namespace;
  static final AtomicInteger names = new AtomicInteger();

  @BeforeAll
  static void applyCrd() throws IOException {
    client = cluster.client();
    Path crdFile =
        cluster.cluster().repoRootDir().resolve("deploy/crd/databases.cellar.dev-v1.yml");
    CustomResourceDefinition crd =
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .load(Files.newInputStream(crdFile))
            .item();
    client.resource(crd).forceConflicts().serverSideApply();
    Awaitility.await("CRD established")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                LocalOperator.established(
                    client
                        .apiextensions()
                        .v1()
                        .customResourceDefinitions()
                        .withName("databases.cellar.dev")
                        .get()));
    namespace = cluster.newNamespace();
    // The API server's discovery of a new CRD lags its Established condition by a moment.
    Awaitility.await("Database kind served")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> databases().list() != null);
  }

  static io.fabric8.kubernetes.client.dsl.MixedOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>>
      databasesAll() {
    return client.genericKubernetesResources("cellar.dev/v1", "Database");
  }

  static io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>>
      databases() {
    return databasesAll().inNamespace(namespace);
  }

  /** Creates a Database from a spec written as YAML, exactly as a user would send it. */
  static GenericKubernetesResource create(String specYaml) {
    return create("db-" + names.incrementAndGet(), specYaml);
  }

  static GenericKubernetesResource create(String name, String specYaml) {
    String yaml =
        "apiVersion: cellar.dev/v1\nkind: Database\nmetadata:\n  name: "
            + name
            + "\nspec:\n"
            + specYaml.indent(2);
    GenericKubernetesResource db = client.getKubernetesSerialization().unmarshal(yaml);
    return databases().resource(db).create();
  }

  static GenericKubernetesResource patchSpec(GenericKubernetesResource db, String mergePatchJson) {
    return databases()
        .withName(db.getMetadata().getName())
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":" + mergePatchJson + "}");
  }

  static final String MINIMAL = "engine: postgresql\nversion: \"16\"\nstorage: 10Gi\n";

  @SuppressWarnings("unchecked")
  static Map<String, Object> spec(GenericKubernetesResource db) {
    return (Map<String, Object>) db.getAdditionalProperties().get("spec");
  }

  @Test
  void theApiServerFillsInTheDefaults() {
    Map<String, Object> spec = spec(create(MINIMAL));
    assertThat(spec)
        .containsEntry("replicas", 1)
        .containsEntry("backupEnabled", true)
        .containsEntry("deletionPolicy", "Retain")
        .doesNotContainKey("storageClassName")
        .doesNotContainKey("image");
    assertThat(spec.get("backup"))
        .isEqualTo(
            Map.of(
                "schedule",
                "0 2 * * *",
                "retention",
                7,
                "storage",
                "10Gi",
                "verify",
                true,
                "startingDeadlineSeconds",
                86400,
                "activeDeadlineSeconds",
                21600));
    assertThat(spec.get("networkPolicy"))
        .isEqualTo(Map.of("enabled", true, "allowSameNamespace", true));
    // TLS is on by default.
    assertThat(spec.get("tls")).isEqualTo(Map.of("mode", "enabled"));
    // So are the metrics exporters.
    assertThat(spec.get("monitoring")).isEqualTo(Map.of("enabled", true));
  }

  @Test
  void monitoringIsCheckedNamingTheField() {
    assertThat(
            spec(create(MINIMAL + "monitoring: {enabled: false, image: mirror.local/pg-exp:1}"))
                .get("monitoring"))
        .isEqualTo(Map.of("enabled", false, "image", "mirror.local/pg-exp:1"));
    assertRejected(MINIMAL + "monitoring: {enabled: sometimes}", "spec.monitoring.enabled");
    assertRejected(MINIMAL + "monitoring: {image: Not An Image}", "spec.monitoring.image");
  }

  @Test
  void tlsModesAndCertificateSecretsAreCheckedNamingTheField() {
    assertThat(
            spec(create(MINIMAL + "tls: {mode: required, certificateSecret: orders-cert}"))
                .get("tls"))
        .isEqualTo(Map.of("mode", "required", "certificateSecret", "orders-cert"));
    assertThat(spec(create(MINIMAL + "tls: {mode: disabled}")).get("tls"))
        .isEqualTo(Map.of("mode", "disabled"));
    assertThat(spec(create(MINIMAL + "tls: {clientCertificates: true}")).get("tls"))
        .isEqualTo(Map.of("mode", "enabled", "clientCertificates", true));
    assertRejected(
        MINIMAL + "tls: {mode: disabled, clientCertificates: true}",
        "spec.tls.clientCertificates",
        "tls.clientCertificates needs TLS");
    assertRejected(
        MINIMAL + "tls: {clientCertificates: true, certificateSecret: orders-cert}",
        "spec.tls.clientCertificates",
        "needs the CA Cellar issues");
    assertRejected(MINIMAL + "tls: {mode: maybe}", "spec.tls.mode", "supported values");
    assertRejected(
        MINIMAL + "tls: {mode: disabled, certificateSecret: orders-cert}",
        "spec.tls.certificateSecret",
        "tls.certificateSecret needs TLS");
    assertRejected(
        MINIMAL + "tls: {certificateSecret: Orders_Cert}",
        "spec.tls.certificateSecret",
        "must be a Secret name");
    // cert-manager as the issuer: defaults filled in, and never together with a certificate
    // Secret or the client certificates Cellar's own CA signs.
    assertThat(spec(create(MINIMAL + "tls: {issuerRef: {name: company-ca}}")).get("tls"))
        .isEqualTo(
            Map.of(
                "mode",
                "enabled",
                "issuerRef",
                Map.of("name", "company-ca", "kind", "Issuer", "group", "cert-manager.io")));
    assertRejected(
        MINIMAL + "tls: {issuerRef: {name: company-ca}, certificateSecret: orders-cert}",
        "spec.tls.certificateSecret",
        "tls.certificateSecret and tls.issuerRef both say where the certificate comes from");
    assertRejected(
        MINIMAL + "tls: {issuerRef: {name: company-ca}, clientCertificates: true}",
        "spec.tls.clientCertificates",
        "remove tls.issuerRef");
    assertRejected(MINIMAL + "tls: {issuerRef: {kind: Issuer}}", "spec.tls.issuerRef.name");
    assertRejected(
        MINIMAL + "tls: {issuerRef: {name: company-ca, kind: 'my issuer'}}",
        "spec.tls.issuerRef.kind");
    // Turning TLS off later with a certificate Secret still named is refused too.
    GenericKubernetesResource db = create(MINIMAL + "tls: {certificateSecret: orders-cert}");
    assertUpdateRejected(
        db, "{\"tls\": {\"mode\": \"disabled\"}}", "tls.certificateSecret needs TLS");
  }

  @Test
  void backupResourcesAndDeadlinesAreChecked() {
    assertThat(
            spec(
                create(
                    MINIMAL
                        + "backup: {startingDeadlineSeconds: 600, activeDeadlineSeconds: 3600,"
                        + " resources: {requests: {cpu: 200m, memory: 256Mi, ephemeralStorage: 1Gi},"
                        + " limits: {cpu: 2, memory: 2Gi, ephemeralStorage: 50Gi}}}\n")))
        .containsKey("backup");
    assertRejected(
        MINIMAL
            + "backup: {resources: {requests: {ephemeralStorage: 2Gi}, limits: {ephemeralStorage: 1Gi}}}\n",
        "spec.backup.resources.requests.ephemeralStorage",
        "requests.ephemeralStorage 2Gi is above limits.ephemeralStorage 1Gi");
    assertRejected(
        MINIMAL + "backup: {resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}}\n",
        "spec.backup.resources.requests.memory",
        "requests.memory 2Gi is above limits.memory 1Gi");
    assertRejected(
        MINIMAL + "backup: {resources: {requests: {cpu: 2}, limits: {cpu: 1}}}\n",
        "spec.backup.resources.requests.cpu",
        "requests.cpu 2 is above limits.cpu 1");
    assertRejected(
        MINIMAL + "backup: {resources: {limits: {ephemeralStorage: lots}}}\n",
        "spec.backup.resources.limits.ephemeralStorage");
    assertRejected(
        MINIMAL
            + "resources: {requests: {ephemeralStorage: 3Gi}, limits: {ephemeralStorage: 1Gi}}\n",
        "spec.resources.requests.ephemeralStorage",
        "requests.ephemeralStorage 3Gi is above limits.ephemeralStorage 1Gi");
    assertRejected(
        MINIMAL + "backup: {startingDeadlineSeconds: 5}\n", "spec.backup.startingDeadlineSeconds");
    assertRejected(
        MINIMAL + "backup: {activeDeadlineSeconds: 10}\n", "spec.backup.activeDeadlineSeconds");
  }

  @Test
  void networkPolicyClientsAreChecked() {
    assertThat(
            spec(
                create(
                    MINIMAL
                        + "networkPolicy:\n"
                        + "  allowSameNamespace: false\n"
                        + "  clients:\n"
                        + "  - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: shop}}\n"
                        + "    podSelector: {matchLabels: {app: api}}\n"
                        + "  - podSelector: {matchExpressions: [{key: tier, operator: In, values: [web]},"
                        + " {key: legacy, operator: DoesNotExist}]}\n"
                        + "  - namespaceSelector: {}\n")))
        .containsKey("networkPolicy");
    assertRejected(
        MINIMAL + "networkPolicy: {clients: [{}]}\n",
        "spec.networkPolicy.clients[0]",
        "networkPolicy.clients: each client needs a namespaceSelector, a podSelector or both");
    assertRejected(
        MINIMAL
            + "networkPolicy: {clients: [{podSelector: {matchExpressions: [{key: tier, operator: In}]}}]}\n",
        "spec.networkPolicy.clients[0].podSelector.matchExpressions[0]",
        "matchExpressions: operator In needs values");
    assertRejected(
        MINIMAL
            + "networkPolicy: {clients: [{podSelector: {matchExpressions: [{key: tier, operator: Exists, values: [a]}]}}]}\n",
        "matchExpressions: operator Exists takes no values");
    assertRejected(
        MINIMAL
            + "networkPolicy: {clients: [{podSelector: {matchExpressions: [{key: tier, operator: Near}]}}]}\n",
        "spec.networkPolicy.clients[0].podSelector.matchExpressions[0].operator");
  }

  @Test
  void aCompleteValidDatabaseIsAccepted() {
    GenericKubernetesResource db =
        create(
            "engine: mariadb\nversion: \"11.4\"\nstorage: 20Gi\nstorageClassName: standard\n"
                + "replicas: 5\nbackupEnabled: false\ndeletionPolicy: Delete\nimage: mirror/mariadb:11.4\n"
                + "backup: {schedule: \"@daily\", retention: 365, storage: 1Ti}\n"
                + "resources: {requests: {cpu: 250m, memory: 512Mi}}\n");
    assertThat(spec(db)).containsEntry("replicas", 5).containsEntry("storageClassName", "standard");
  }

  static void assertRejected(String specYaml, String... messageParts) {
    assertThatThrownBy(() -> create(specYaml))
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
        .message()
        .contains(messageParts);
  }

  static void assertUpdateRejected(GenericKubernetesResource db, String patch, String... parts) {
    assertThatThrownBy(() -> patchSpec(db, patch))
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
        .message()
        .contains(parts);
  }

  static final String STORE =
      "{endpoint: \"http://s3.local:9000\", bucket: dumps, credentialsSecret: s3-keys}";

  @Test
  void objectStoreAndBootstrapAreAcceptedWithTheirDefaults() {
    Map<String, Object> spec =
        spec(
            create(
                MINIMAL
                    + "backup: {objectStore: "
                    + STORE
                    + "}\nbootstrap: {fromBackup: {database: orders, objectStore: "
                    + STORE
                    + "}}\n"));
    @SuppressWarnings("unchecked")
    Map<String, Object> store =
        (Map<String, Object>) ((Map<String, Object>) spec.get("backup")).get("objectStore");
    assertThat(store).containsEntry("region", "us-east-1").containsEntry("bucket", "dumps");
    @SuppressWarnings("unchecked")
    Map<String, Object> from =
        (Map<String, Object>) ((Map<String, Object>) spec.get("bootstrap")).get("fromBackup");
    assertThat(from).containsEntry("source", "objectStore").containsEntry("backup", "latest");
    create(
        MINIMAL
            + "bootstrap: {fromBackup: {database: orders, source: volume,"
            + " backup: orders-20260101T020000Z.sql.gz}}\n");
  }

  @Test
  void malformedObjectStoresAndBootstrapsAreRejectedNamingTheField() {
    assertRejected(
        MINIMAL + "backup: {objectStore: {endpoint: \"http://s3.local\", credentialsSecret: k}}\n",
        "spec.backup.objectStore",
        "objectStore needs bucket");
    assertRejected(
        MINIMAL + "backup: {objectStore: {bucket: dumps}}\n",
        "objectStore needs endpoint",
        "credentialsSecret (a Secret with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)");
    assertRejected(
        MINIMAL
            + "backup: {objectStore: {endpoint: \"ftp://s3.local\", bucket: dumps,"
            + " credentialsSecret: k}}\n",
        "spec.backup.objectStore.endpoint",
        "must be http(s)://host[:port] without a path");
    assertRejected(
        MINIMAL
            + "backup: {objectStore: {endpoint: \"http://s3.local\", bucket: dumps,"
            + " credentialsSecret: k, prefix: \"/abs\"}}\n",
        "spec.backup.objectStore.prefix");
    assertRejected(
        MINIMAL
            + "bootstrap: {fromBackup: {database: orders, source: volume, objectStore: "
            + STORE
            + "}}\n",
        "spec.bootstrap.fromBackup",
        "objectStore is set but source is volume");
    assertRejected(
        MINIMAL + "bootstrap: {fromBackup: {database: orders}}\n",
        "spec.bootstrap.fromBackup",
        "objectStore is required with source objectStore");
    assertRejected(
        MINIMAL + "bootstrap: {fromBackup: {database: orders, source: tape}}\n",
        "spec.bootstrap.fromBackup.source",
        "Unsupported value");
  }

  @Test
  void unknownEngineIsRejected() {
    assertRejected(
        "engine: oracle\nversion: \"19\"\nstorage: 10Gi\n",
        "spec.engine",
        "Unsupported value: \"oracle\"",
        "\"postgresql\"");
  }

  @Test
  void missingRequiredFieldsAreRejected() {
    assertRejected(
        "engine: postgresql\n", "spec.version: Required value", "spec.storage: Required value");
  }

  @Test
  void badVersionStringIsRejected() {
    assertRejected("engine: postgresql\nversion: \"sixteen\"\nstorage: 10Gi\n", "spec.version");
    assertRejected("engine: postgresql\nversion: \"16.4.1.2\"\nstorage: 10Gi\n", "spec.version");
  }

  @Test
  void badStorageStringIsRejected() {
    assertRejected("engine: mysql\nversion: \"8.4\"\nstorage: 100GB\n", "spec.storage");
    assertRejected(MINIMAL + "backup: {storage: lots}\n", "spec.backup.storage", "should match");
  }

  @Test
  void replicasOutsideOneToFiveAreRejected() {
    assertRejected(
        MINIMAL + "replicas: 0\n", "spec.replicas", "should be greater than or equal to 1");
    assertRejected(MINIMAL + "replicas: 6\n", "spec.replicas", "should be less than or equal to 5");
  }

  @Test
  void retentionOutsideBoundsIsRejected() {
    assertRejected(MINIMAL + "backup: {retention: 0}\n", "spec.backup.retention");
    assertRejected(MINIMAL + "backup: {retention: 366}\n", "spec.backup.retention");
  }

  @Test
  void resourcesMustBeQuantities() {
    assertRejected(
        MINIMAL + "resources: {limits: {memory: lots}}\n",
        "spec.resources.limits.memory",
        "should match");
    assertThat(spec(create(MINIMAL + "resources: {requests: {cpu: 2, memory: 1.5Gi}}\n")))
        .containsKey("resources");
  }

  @Test
  void unknownDeletionPolicyIsRejected() {
    assertRejected(
        MINIMAL + "deletionPolicy: Orphan\n", "spec.deletionPolicy", "Unsupported value");
  }

  @Test
  void engineCannotChange() {
    GenericKubernetesResource db = create(MINIMAL);
    assertUpdateRejected(
        db,
        "{\"engine\":\"mysql\",\"version\":\"8.4\"}",
        "spec.engine",
        "engine is immutable: this Database runs postgresql; create a new Database to run mysql");
  }

  @Test
  void storageClassNameCannotChangeNorBeSetLater() {
    GenericKubernetesResource withClass = create(MINIMAL + "storageClassName: standard\n");
    assertUpdateRejected(
        withClass, "{\"storageClassName\":\"fixed\"}", "storageClassName is immutable");
    assertUpdateRejected(withClass, "{\"storageClassName\":null}", "storageClassName is immutable");
    GenericKubernetesResource withoutClass = create(MINIMAL);
    assertUpdateRejected(
        withoutClass, "{\"storageClassName\":\"standard\"}", "storageClassName is immutable");
  }

  @Test
  void storageCanGrowButNeverShrink() {
    GenericKubernetesResource db = create("engine: postgresql\nversion: \"16\"\nstorage: 100Gi\n");
    assertUpdateRejected(
        db,
        "{\"storage\":\"50Gi\"}",
        "spec.storage",
        "storage can only grow: 100Gi -> 50Gi is a shrink");
    assertUpdateRejected(db, "{\"storage\":\"1024Mi\"}", "storage can only grow");
    assertThat(spec(patchSpec(db, "{\"storage\":\"1Ti\"}"))).containsEntry("storage", "1Ti");
  }

  @Test
  void backupStorageCanGrowButNeverShrink() {
    GenericKubernetesResource db = create(MINIMAL);
    assertUpdateRejected(
        db,
        "{\"backup\":{\"storage\":\"5Gi\"}}",
        "spec.backup.storage",
        "backup.storage can only grow: 10Gi -> 5Gi is a shrink");
    assertThat(spec(patchSpec(db, "{\"backup\":{\"storage\":\"20Gi\"}}")).get("backup"))
        .asString()
        .contains("storage=20Gi");
  }

  @Test
  void versionChangesPassAdmissionSoARefusedOneCanBeTakenBack() {
    // The operator refuses downgrades and PostgreSQL majors against what runs; admission must let
    // a user go back from a refused 17 to the 16.4 that runs.
    GenericKubernetesResource db = create("engine: postgresql\nversion: \"16.4\"\nstorage: 10Gi\n");
    assertThat(spec(patchSpec(db, "{\"version\":\"17\"}"))).containsEntry("version", "17");
    assertThat(spec(patchSpec(db, "{\"version\":\"16.4\"}"))).containsEntry("version", "16.4");
    assertUpdateRejected(db, "{\"version\":\"16.x\"}", "spec.version");
  }

  @Test
  void scaleSubresourceDrivesSpecReplicas() {
    GenericKubernetesResource db = create(MINIMAL);
    var scaled =
        cluster
            .cluster()
            .kubectl("-n", namespace, "scale", "db/" + db.getMetadata().getName(), "--replicas=3");
    assertThat(scaled.exitCode()).as(scaled.output()).isZero();
    assertThat(spec(databases().withName(db.getMetadata().getName()).get()))
        .containsEntry("replicas", 3);
    var result =
        cluster
            .cluster()
            .kubectl("-n", namespace, "scale", "db/" + db.getMetadata().getName(), "--replicas=9");
    assertThat(result.exitCode()).isNotZero();
    assertThat(result.output()).contains("spec.replicas");
  }

  // Refusals added with issue 14: what would fail later, in the operator or in a child, refused
  // at admission with a message that names the field.

  static final String LONGEST_NAME = "n" + "x".repeat(43) + "1";

  @Test
  void namesUpToFortyFiveCharactersFitEveryChild() {
    assertThat(LONGEST_NAME).hasSize(45);
    assertThat(create(LONGEST_NAME, MINIMAL).getMetadata().getName()).isEqualTo(LONGEST_NAME);
  }

  @Test
  void longerNamesAreRefused() {
    assertThatThrownBy(() -> create(LONGEST_NAME + "y", MINIMAL))
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
        .message()
        .contains(
            "metadata.name: Invalid value",
            "a Database name may have at most 45 characters, because its backup CronJob"
                + " <name>-backup may have at most 52");
  }

  @Test
  void namesThatCannotNameAServiceAreRefused() {
    for (String name : new String[] {"1db", "db.one"}) {
      assertThatThrownBy(() -> create(name, MINIMAL))
          .as(name)
          .isInstanceOf(KubernetesClientException.class)
          .message()
          .contains("metadata.name: Invalid value", "must be a DNS-1035 label");
    }
  }

  @Test
  void sizesMustBeAboveZeroAndAtMost64Ti() {
    assertRejected(
        "engine: postgresql\nversion: \"16\"\nstorage: 0Mi\n",
        "spec.storage",
        "storage must be more than 0, e.g. 10Gi: 0Mi");
    assertRejected(
        "engine: postgresql\nversion: \"16\"\nstorage: 65Ti\n",
        "spec.storage",
        "storage may be at most 64Ti, the largest volume cloud block storage offers: 65Ti");
    assertRejected(
        "engine: postgresql\nversion: \"16\"\nstorage: 67108865Mi\n",
        "spec.storage",
        "may be at most 64Ti");
    assertRejected(
        MINIMAL + "backup: {storage: 0Gi}\n",
        "spec.backup.storage",
        "backup.storage must be more than 0");
    assertRejected(
        MINIMAL + "backup: {storage: 100Ti}\n",
        "spec.backup.storage",
        "backup.storage may be at most 64Ti");
    assertThat(spec(create("engine: mysql\nversion: \"8.4\"\nstorage: 67108864Mi\n")))
        .containsEntry("storage", "67108864Mi");
    assertThat(spec(create(MINIMAL + "backup: {storage: 64Ti}\n")).get("backup"))
        .asString()
        .contains("storage=64Ti");
  }

  @Test
  void growingPast64TiIsRefused() {
    GenericKubernetesResource db = create(MINIMAL);
    assertUpdateRejected(db, "{\"storage\":\"65Ti\"}", "spec.storage", "may be at most 64Ti");
    assertUpdateRejected(
        db, "{\"backup\":{\"storage\":\"65Ti\"}}", "spec.backup.storage", "may be at most 64Ti");
    assertThat(spec(patchSpec(db, "{\"storage\":\"64Ti\"}"))).containsEntry("storage", "64Ti");
    // Other changes leave an unchanged size alone.
    assertThat(spec(patchSpec(db, "{\"replicas\":2}"))).containsEntry("replicas", 2);
  }

  @Test
  void versionPartsFitInAnInt() {
    assertRejected(
        "engine: mariadb\nversion: \"11.8.99999999999\"\nstorage: 1Gi\n",
        "spec.version",
        "version parts may have at most 9 digits: 11.8.99999999999");
    assertThat(spec(create("engine: mariadb\nversion: \"11.8.999999999\"\nstorage: 1Gi\n")))
        .containsEntry("version", "11.8.999999999");
  }

  @Test
  void requestsAboveLimitsAreRefused() {
    assertRejected(
        MINIMAL + "resources: {requests: {cpu: 2}, limits: {cpu: 1500m}}\n",
        "spec.resources.requests.cpu",
        "requests.cpu 2 is above limits.cpu 1500m: a pod cannot request more than its limit");
    assertRejected(
        MINIMAL + "resources: {requests: {memory: 2Gi}, limits: {memory: 1.5Gi}}\n",
        "spec.resources.requests.memory",
        "requests.memory 2Gi is above limits.memory 1.5Gi");
    assertThat(
            spec(
                create(
                    MINIMAL
                        + "resources: {requests: {cpu: 1, memory: 1Gi},"
                        + " limits: {cpu: 1000m, memory: 1024Mi}}\n")))
        .containsKey("resources");
    assertThat(spec(create(MINIMAL + "resources: {requests: {cpu: 64, memory: 1Ti}}\n")))
        .containsKey("resources");
  }

  @Test
  void impossibleSchedulesAreRefusedNamingTheCronField() {
    Map<String, String> refused =
        Map.ofEntries(
            Map.entry("61 * * * *", "the minute field (1st) 61 is not"),
            Map.entry("*/0 * * * *", "the minute field (1st) */0 is not"),
            Map.entry("0 24 * * *", "the hour field (2nd) 24 is not"),
            Map.entry("0 5-1 * * *", "the hour field (2nd) 5-1 is not"),
            Map.entry("0 0 0 * *", "the day-of-month field (3rd) 0 is not"),
            Map.entry("0 0 1 13 *", "the month field (4th) 13 is not"),
            Map.entry("0 0 1 foo *", "the month field (4th) foo is not"),
            Map.entry("0 0 1 dec-jan *", "the month field (4th) dec-jan is not"),
            Map.entry("0 2 * * 7", "the day-of-week field (5th) 7 is not"),
            Map.entry("0 0 30 2 *", "never runs: day 30 does not occur in month 2"),
            Map.entry("0 0 31 apr,jun *", "never runs: day 31 does not occur in month apr,jun"));
    refused.forEach(
        (schedule, message) ->
            assertRejected(
                MINIMAL + "backup: {schedule: \"" + schedule + "\"}\n",
                "spec.backup.schedule",
                message));
    for (String schedule :
        new String[] {
          "*/15 0-6,22-23 1,15 jan-mar,DEC mon-fri",
          "0 0 30 2 mon",
          "0 0 29 2 *",
          "5/10 * * * ?",
          "0\t2 * * *",
          "@hourly"
        }) {
      assertThat(spec(create(MINIMAL + "backup: {schedule: \"" + schedule + "\"}\n")).get("backup"))
          .as(schedule)
          .asString()
          .contains(schedule);
    }
  }

  @Test
  void imagesMustBeReferences() {
    for (String image :
        new String[] {"Postgres:16", "postgres:16 ", "postgres::16", "https://mirror/pg:16", ""}) {
      assertRejected(MINIMAL + "image: \"" + image + "\"\n", "spec.image", "should match");
    }
    for (String image :
        new String[] {
          "postgres",
          "mirror.example:5000/db/postgres:16.4",
          "localhost/cellar/postgres:16",
          "[::1]:5000/postgres:16",
          "postgres:16@sha256:" + "a".repeat(64)
        }) {
      assertThat(spec(create(MINIMAL + "image: \"" + image + "\"\n")))
          .containsEntry("image", image);
    }
  }

  @Test
  void storageClassNamesMustBeObjectNames() {
    assertRejected(
        MINIMAL + "storageClassName: Fast_SSD\n", "spec.storageClassName", "should match");
    assertThat(spec(create(MINIMAL + "storageClassName: fast.ssd-1\n")))
        .containsEntry("storageClassName", "fast.ssd-1");
  }

  @Test
  void hibernationAndSchedulingFieldsAreAccepted() {
    GenericKubernetesResource db =
        create(
            MINIMAL
                + "hibernated: true\n"
                + "priorityClassName: high.priority-1\n"
                + "nodeSelector: {disktype: ssd}\n"
                + "tolerations: [{key: dedicated, operator: Equal, value: db, effect: NoSchedule},"
                + " {operator: Exists}, {key: k, operator: Exists, effect: NoExecute,"
                + " tolerationSeconds: 30}]\n"
                + "topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname,"
                + " whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {a: b}}}]\n"
                + "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
                + " {nodeSelectorTerms: [{matchExpressions: [{key: disktype, operator: In,"
                + " values: [ssd]}]}]}}, podAntiAffinity:"
                + " {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey:"
                + " kubernetes.io/hostname, labelSelector: {matchLabels: {a: b}}}]}}\n");
    assertThat(spec(db))
        .containsEntry("hibernated", true)
        .containsEntry("priorityClassName", "high.priority-1")
        .containsEntry("nodeSelector", Map.of("disktype", "ssd"));
    assertThat(spec(create(MINIMAL))).containsEntry("hibernated", false);
  }

  @Test
  void badSchedulingFieldsAreRefusedNamingTheField() {
    assertRejected(
        MINIMAL + "priorityClassName: High_Priority\n",
        "spec.priorityClassName",
        "must be a DNS subdomain",
        "High_Priority");
    assertRejected(
        MINIMAL + "tolerations: [{key: a, operator: Exists, value: x}]\n",
        "spec.tolerations",
        "Exists takes no value");
    assertRejected(
        MINIMAL + "tolerations: [{key: a, operator: Sometimes}]\n",
        "spec.tolerations",
        "operator is Equal or Exists");
    assertRejected(
        MINIMAL + "tolerations: [{key: a, effect: NoSchedule, tolerationSeconds: 5}]\n",
        "spec.tolerations",
        "tolerationSeconds needs effect NoExecute");
    assertRejected(
        MINIMAL
            + "topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone,"
            + " whenUnsatisfiable: DoNotSchedule}]\n",
        "spec.topologySpreadConstraints",
        "maxSkew (at least 1)");
    assertRejected(
        MINIMAL + "topologySpreadConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]\n",
        "spec.topologySpreadConstraints",
        "topologyKey");
  }
}
