package dev.cellar.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/reference.md documents every field of the Database CRD, and no field the CRD lacks: a field
 * added to the API fails here until the page has an entry for it, and a field removed fails here
 * until the page stops naming it. A field's entry is its dotted path in backticks, with {@code []}
 * for the items of a list ({@code spec.networkPolicy.clients[].podSelector}). Fields that pass a
 * core/v1 type to the pods unchanged are documented as a whole: their sub-fields are Kubernetes',
 * and listing them would copy core/v1's reference.
 */
class ReferenceDocTest {
  static final Path CRD =
      DeployManifestsTest.ROOT.resolve("deploy/crd/databases.cellar.dev-v1.yml");
  static final Path PAGE = DeployManifestsTest.ROOT.resolve("docs/reference.md");

  /** The fields whose type is core/v1's, passed to the database pods as the user wrote them. */
  static final Set<String> PASSED_THROUGH =
      Set.of("spec.affinity", "spec.tolerations", "spec.topologySpreadConstraints");

  /** A path the page names: backticks around spec. or status. and nothing but a path. */
  static final Pattern NAMED_PATH = Pattern.compile("`((?:spec|status)\\.[A-Za-z0-9_.\\[\\]]+)`");

  static JSONSchemaProps schema() throws IOException {
    CustomResourceDefinition crd =
        Serialization.unmarshal(Files.readString(CRD), CustomResourceDefinition.class);
    return crd.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema();
  }

  /**
   * The path of every field under spec and status, in the CRD's order. With {@code documented}, the
   * walk does not descend into a field whose sub-fields are not Cellar's to document: one that
   * keeps unknown fields, or one of {@link #PASSED_THROUGH}.
   */
  static List<String> paths(JSONSchemaProps root, boolean documented) {
    List<String> paths = new ArrayList<>();
    for (String top : List.of("spec", "status")) {
      descend(top, root.getProperties().get(top), documented, paths);
    }
    return paths;
  }

  private static void descend(
      String path, JSONSchemaProps field, boolean documented, List<String> paths) {
    if (documented
        && (PASSED_THROUGH.contains(path)
            || Boolean.TRUE.equals(field.getXKubernetesPreserveUnknownFields()))) {
      return;
    }
    add(path + ".", field.getProperties(), documented, paths);
    if (field.getItems() != null && field.getItems().getSchema() != null) {
      add(path + "[].", field.getItems().getSchema().getProperties(), documented, paths);
    }
  }

  private static void add(
      String prefix, Map<String, JSONSchemaProps> fields, boolean documented, List<String> paths) {
    if (fields == null) {
      return;
    }
    for (Map.Entry<String, JSONSchemaProps> field : fields.entrySet()) {
      String path = prefix + field.getKey();
      paths.add(path);
      descend(path, field.getValue(), documented, paths);
    }
  }

  /** The spec and status paths the page names in backticks. */
  static Set<String> named(String page) {
    Set<String> named = new TreeSet<>();
    Matcher m = NAMED_PATH.matcher(page);
    while (m.find()) {
      named.add(m.group(1));
    }
    return named;
  }

  @Test
  void theWalkFindsNestedFieldsListItemsAndStatus() throws IOException {
    List<String> documented = paths(schema(), true);
    assertThat(documented)
        .contains(
            "spec.engine",
            "spec.backup.objectStore.credentialsSecret",
            "spec.networkPolicy.clients[].podSelector.matchExpressions[].operator",
            "status.conditions",
            "status.instances[].replicationLagSeconds")
        .containsAll(PASSED_THROUGH)
        .doesNotContain("spec.affinity.podAntiAffinity", "spec.tolerations[].key");
    assertThat(paths(schema(), false))
        .contains("spec.affinity.podAntiAffinity", "spec.tolerations[].key");
  }

  @Test
  void everyFieldOfTheCrdHasAnEntryInTheReference() throws IOException {
    String page = Files.readString(PAGE);
    List<String> missing = new ArrayList<>();
    for (String path : paths(schema(), true)) {
      if (!page.contains("`" + path + "`")) {
        missing.add(path);
      }
    }
    assertThat(missing)
        .withFailMessage("%s has no entry (its path in backticks) for the fields %s", PAGE, missing)
        .isEmpty();
  }

  @Test
  void everyPathTheReferenceNamesIsAFieldOfTheCrd() throws IOException {
    Set<String> named = named(Files.readString(PAGE));
    assertThat(named).as("paths named in %s", PAGE).contains("spec.engine", "status.phase");
    Set<String> unknown = new TreeSet<>(named);
    unknown.removeAll(new HashSet<>(paths(schema(), false)));
    assertThat(unknown)
        .withFailMessage("%s names these paths, which are no field of the CRD: %s", PAGE, unknown)
        .isEmpty();
  }
}
