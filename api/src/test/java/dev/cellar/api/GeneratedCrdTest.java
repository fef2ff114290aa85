package dev.cellar.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.ComputeResources;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The CRD as the build generates it: every rule, default, column and subresource users rely on. */
class GeneratedCrdTest {
  static final String RESOURCE = "/META-INF/fabric8/databases.cellar.dev-v1.yml";

  static String generatedYaml() throws IOException {
    try (InputStream in = GeneratedCrdTest.class.getResourceAsStream(RESOURCE)) {
      assertThat(in).as("the build generates " + RESOURCE).isNotNull();
      return new String(in.readAllBytes());
    }
  }

  static final CustomResourceDefinitionVersion V1;

  static {
    try {
      CustomResourceDefinition crd =
          Serialization.unmarshal(generatedYaml(), CustomResourceDefinition.class);
      V1 = crd.getSpec().getVersions().get(0);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static JSONSchemaProps spec() {
    return V1.getSchema().getOpenAPIV3Schema().getProperties().get("spec");
  }

  static JSONSchemaProps specField(String name) {
    return spec().getProperties().get(name);
  }

  static List<String> rules(JSONSchemaProps props) {
    return props.getXKubernetesValidations().stream().map(ValidationRule::getRule).toList();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "deploy/crd/databases.cellar.dev-v1.yml",
        "deploy/helm/cellar/crds/databases.cellar.dev-v1.yml"
      })
  void deployedCrdEqualsTheGeneratedOne(String copy) throws IOException {
    Path root = Path.of(System.getProperty("cellar.repo.root", ".."));
    Path deployed = root.resolve(copy);
    assertThat(Files.readString(deployed))
        .as(
            copy
                + " is stale: refresh it with"
                + " `mvn -pl api -am process-test-classes -Dcellar.crd.update=true`")
        .isEqualTo(generatedYaml());
  }

  @Test
  void namesAndScope() throws IOException {
    CustomResourceDefinition crd =
        Serialization.unmarshal(generatedYaml(), CustomResourceDefinition.class);
    assertThat(crd.getMetadata().getName()).isEqualTo("databases.cellar.dev");
    assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
    assertThat(crd.getSpec().getNames().getKind()).isEqualTo("Database");
    assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("db");
    assertThat(V1.getName()).isEqualTo("v1");
    assertThat(V1.getServed()).isTrue();
    assertThat(V1.getStorage()).isTrue();
  }

  @Test
  void requiredFields() {
    assertThat(spec().getRequired()).containsExactlyInAnyOrder("engine", "version", "storage");
    assertThat(V1.getSchema().getOpenAPIV3Schema().getProperties())
        .containsKeys("metadata", "spec", "status");
  }

  @Test
  void engineIsAnImmutableEnum() {
    JSONSchemaProps engine = specField("engine");
    assertThat(engine.getEnum())
        .extracting(Object::toString)
        .containsExactlyInAnyOrder("\"postgresql\"", "\"mysql\"", "\"mariadb\"");
    assertThat(rules(engine)).containsExactly("self == oldSelf");
    assertThat(engine.getXKubernetesValidations().get(0).getMessageExpression())
        .contains("engine is immutable");
  }

  @Test
  void versionHasAPatternAndNoTransitionRule() {
    JSONSchemaProps version = specField("version");
    assertThat(version.getPattern()).isEqualTo("^[0-9]+(\\.[0-9]+){0,2}$");
    // Downgrades are the operator's to refuse: it compares with the version that runs, while a
    // CEL rule could only compare with the previous spec, which may hold a refused version. The
    // one rule bounds each part's digits.
    assertThat(rules(version)).containsExactly("!self.matches('[0-9]{10,}')");
    assertThat(version.getMaxLength()).isEqualTo(32L);
  }

  @Test
  void storageHasAPatternOnlyGrowsAndStaysWithinBounds() {
    for (JSONSchemaProps storage :
        List.of(specField("storage"), specField("backup").getProperties().get("storage"))) {
      assertThat(storage.getPattern()).isEqualTo("^[0-9]+(Mi|Gi|Ti)$");
      assertThat(storage.getMaxLength()).isEqualTo(32L);
      // The shrink rule (a transition rule) and the bounds (checked on create too).
      assertThat(rules(storage))
          .containsExactly(
              "quantity(self).compareTo(quantity(oldSelf)) >= 0",
              "!isQuantity(self) || (quantity(self).isGreaterThan(quantity('0'))"
                  + " && quantity(self).compareTo(quantity('64Ti')) <= 0)");
      assertThat(storage.getXKubernetesValidations().get(0).getMessageExpression())
          .contains("can only grow");
      assertThat(storage.getXKubernetesValidations().get(1).getMessageExpression())
          .contains("must be more than 0", "may be at most 64Ti");
    }
    assertThat(specField("backup").getProperties().get("storage").getDefault().asText())
        .isEqualTo("10Gi");
  }

  @Test
  void theNameFitsEveryChildAndIsCheckedOnCreateOnly() {
    List<ValidationRule> root = V1.getSchema().getOpenAPIV3Schema().getXKubernetesValidations();
    assertThat(root).hasSize(1);
    ValidationRule rule = root.get(0);
    assertThat(rule.getOptionalOldSelf()).isTrue();
    assertThat(rule.getFieldPath()).isEqualTo(".metadata.name");
    assertThat(V1.getSchema().getOpenAPIV3Schema().getProperties().get("metadata").getType())
        .as("metadata declared, so that the rule's fieldPath is valid")
        .isEqualTo("object");
    assertThat(rule.getRule())
        .startsWith("oldSelf.hasValue() ||")
        .contains("size(self.metadata.name) <= 45")
        .contains("'^[a-z]([-a-z0-9]*[a-z0-9])?$'");
    // <name>-backup, the CronJob, is the tightest: 52 characters at most.
    assertThat(45 + "-backup".length()).isEqualTo(52);
  }

  @Test
  void requestsMayNotExceedLimits() {
    for (JSONSchemaProps resources :
        List.of(specField("resources"), specField("backup").getProperties().get("resources"))) {
      assertThat(resources.getXKubernetesValidations())
          .extracting(ValidationRule::getFieldPath)
          .containsExactlyInAnyOrder(
              ".requests.cpu", ".requests.memory", ".requests.ephemeralStorage");
      assertThat(rules(resources))
          .allSatisfy(r -> assertThat(r).contains("quantity(string(self.requests."));
      assertThat(resources.getProperties().get("limits").getProperties().get("ephemeralStorage"))
          .as("ephemeral storage is a quantity checked by the schema")
          .satisfies(p -> assertThat(p.getPattern()).isEqualTo(ComputeResources.QUANTITY_PATTERN));
    }
  }

  @Test
  void backupJobsHaveDeadlinesWithDefaults() {
    JSONSchemaProps backup = specField("backup");
    JSONSchemaProps starting = backup.getProperties().get("startingDeadlineSeconds");
    JSONSchemaProps active = backup.getProperties().get("activeDeadlineSeconds");
    assertThat(starting.getDefault().asInt()).isEqualTo(86400);
    assertThat(starting.getMinimum()).isEqualTo(10.0);
    assertThat(active.getDefault().asInt()).isEqualTo(21600);
    assertThat(active.getMinimum()).isEqualTo(60.0);
    assertThat(starting.getDescription()).contains("startingDeadlineSeconds");
    assertThat(active.getDescription()).contains("activeDeadlineSeconds");
  }

  @Test
  void scheduleFieldsAreChecked() {
    JSONSchemaProps schedule = specField("backup").getProperties().get("schedule");
    assertThat(schedule.getPattern()).startsWith("^(@(yearly|");
    assertThat(schedule.getMaxLength()).isEqualTo(128L);
    assertThat(schedule.getXKubernetesValidations()).hasSize(2);
    assertThat(schedule.getXKubernetesValidations().get(0).getMessageExpression())
        .contains("the minute field", "the hour field", "the day-of-month field")
        .contains("the month field", "the day-of-week field");
    assertThat(schedule.getXKubernetesValidations().get(1).getMessageExpression())
        .contains("never runs");
  }

  @Test
  void imageAndStorageClassHavePatterns() {
    assertThat("mirror.example:5000/db/postgres:16.4").matches(javaRegex(specField("image")));
    assertThat("Postgres:16").doesNotMatch(javaRegex(specField("image")));
    assertThat("fast.ssd").matches(javaRegex(specField("storageClassName")));
    assertThat("Fast_SSD").doesNotMatch(javaRegex(specField("storageClassName")));
  }

  static String javaRegex(JSONSchemaProps field) {
    assertThat(field.getPattern()).as(field.getDescription()).isNotNull();
    return field.getPattern();
  }

  @Test
  void storageClassNameIsImmutableIncludingSettingOrUnsettingIt() {
    assertThat(rules(spec()))
        .singleElement()
        .asString()
        .contains("has(self.storageClassName) == has(oldSelf.storageClassName)")
        .contains("self.storageClassName == oldSelf.storageClassName");
    assertThat(spec().getXKubernetesValidations().get(0).getMessage())
        .startsWith("storageClassName is immutable");
  }

  @Test
  void replicasDefaultAndBounds() {
    JSONSchemaProps replicas = specField("replicas");
    assertThat(replicas.getDefault().asInt()).isEqualTo(1);
    assertThat(replicas.getMinimum()).isEqualTo(1.0);
    assertThat(replicas.getMaximum()).isEqualTo(5.0);
  }

  @Test
  void backupDefaults() {
    assertThat(specField("backupEnabled").getDefault().asBoolean()).isTrue();
    JSONSchemaProps backup = specField("backup");
    assertThat(backup.getDefault().isObject())
        .as("backup defaults to {} so its fields default")
        .isTrue();
    assertThat(backup.getProperties().get("schedule").getDefault().asText()).isEqualTo("0 2 * * *");
    JSONSchemaProps retention = backup.getProperties().get("retention");
    assertThat(retention.getDefault().asInt()).isEqualTo(7);
    assertThat(retention.getMinimum()).isEqualTo(1.0);
    assertThat(retention.getMaximum()).isEqualTo(365.0);
  }

  @Test
  void resourcesAreQuantitiesCheckedAtAdmission() {
    for (String kind : List.of("requests", "limits")) {
      for (String resource : List.of("cpu", "memory")) {
        JSONSchemaProps field =
            specField("resources").getProperties().get(kind).getProperties().get(resource);
        assertThat(field.getPattern()).as(kind + "." + resource).contains("Mi|Gi");
        assertThat(field.getXKubernetesIntOrString()).isTrue();
      }
    }
  }

  @Test
  void deletionPolicyDefaultsToRetain() {
    JSONSchemaProps policy = specField("deletionPolicy");
    assertThat(policy.getDefault().asText()).isEqualTo("Retain");
    assertThat(policy.getEnum())
        .extracting(Object::toString)
        .containsExactlyInAnyOrder("\"Retain\"", "\"Delete\"");
  }

  @Test
  void fieldsExplainThemselves() {
    for (String field : spec().getProperties().keySet()) {
      assertThat(specField(field).getDescription()).as("spec.%s description", field).isNotBlank();
    }
  }

  @Test
  void printerColumnsInKubectlOrder() {
    assertThat(V1.getAdditionalPrinterColumns())
        .extracting(
            CustomResourceColumnDefinition::getName,
            CustomResourceColumnDefinition::getJsonPath,
            CustomResourceColumnDefinition::getPriority)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("ENGINE", ".spec.engine", 0),
            org.assertj.core.groups.Tuple.tuple("VERSION", ".status.version", 0),
            org.assertj.core.groups.Tuple.tuple("REPLICAS", ".spec.replicas", 0),
            org.assertj.core.groups.Tuple.tuple("READY", ".status.readyReplicas", 0),
            org.assertj.core.groups.Tuple.tuple("STATUS", ".status.phase", 0),
            org.assertj.core.groups.Tuple.tuple("AGE", ".metadata.creationTimestamp", 0),
            org.assertj.core.groups.Tuple.tuple("PRIMARY", ".status.currentPrimary", 1),
            org.assertj.core.groups.Tuple.tuple("ENDPOINT", ".status.endpoint", 1));
  }

  @Test
  void scaleAndStatusSubresources() {
    assertThat(V1.getSubresources().getStatus()).isNotNull();
    assertThat(V1.getSubresources().getScale().getSpecReplicasPath()).isEqualTo(".spec.replicas");
    assertThat(V1.getSubresources().getScale().getStatusReplicasPath())
        .isEqualTo(".status.replicas");
  }

  @Test
  void hibernatedDefaultsToFalse() {
    assertThat(specField("hibernated").getType()).isEqualTo("boolean");
    assertThat(specField("hibernated").getDefault().asBoolean()).isFalse();
  }

  @Test
  void schedulingFieldsCarryTheCoreSchemasAndBoundedRules() {
    JSONSchemaProps affinity = specField("affinity");
    assertThat(affinity.getProperties())
        .containsKeys("nodeAffinity", "podAffinity", "podAntiAffinity");
    assertThat(specField("tolerations").getItems().getSchema().getProperties())
        .containsKeys("key", "operator", "value", "effect", "tolerationSeconds");
    assertThat(specField("tolerations").getMaxItems()).isEqualTo(32L);
    assertThat(rules(specField("tolerations"))).hasSize(1);
    assertThat(specField("topologySpreadConstraints").getMaxItems()).isEqualTo(8L);
    assertThat(rules(specField("topologySpreadConstraints"))).hasSize(1);
    assertThat(specField("nodeSelector").getAdditionalProperties().getSchema().getType())
        .isEqualTo("string");
    assertThat(specField("nodeSelector").getMaxProperties()).isEqualTo(32L);
    assertThat(specField("priorityClassName").getMaxLength()).isEqualTo(253L);
    assertThat(rules(specField("priorityClassName"))).hasSize(1);
  }
}
