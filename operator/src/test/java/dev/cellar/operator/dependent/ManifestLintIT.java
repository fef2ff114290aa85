package dev.cellar.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cellar.api.v1.BootstrapSpec;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.FromBackupSpec;
import dev.cellar.operator.storage.Quantities;
import dev.cellar.testkit.Prerequisites;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * kube-score (a third-party manifest linter, built from its Go module by {@code
 * e2e/cluster/build.sh tools}) over what users apply (deploy/operator, the Helm chart rendered) and
 * over every child the operator renders for each engine, from the desired-state builders without a
 * cluster (written to target/lint/). Any finding that {@code kube-score-exceptions.txt} (next to
 * this file's resources) does not list fails the build; an exception that matches nothing fails it
 * too, so the file stays short and true.
 *
 * <p>An integration test for when it runs (kube-score and helm are built beside the tests on a new
 * machine: see {@link dev.cellar.operator.deploy.HelmTemplateIT}).
 */
@Tag("tools")
class ManifestLintIT {
  static final Path ROOT = Path.of(System.getProperty("cellar.repo.root", ".."));
  static final Path OUT = Path.of("target/lint");
  static final Path EXCEPTIONS = Path.of("src/test/resources/kube-score-exceptions.txt");

  static Path kubeScore;
  static Path helm;

  @BeforeAll
  static void findTools() {
    Path tools = Path.of(System.getProperty("user.home"), ".cache/cellar/bin/tools");
    kubeScore =
        Optional.ofNullable(System.getenv("CELLAR_KUBE_SCORE"))
            .map(Path::of)
            .orElse(tools.resolve("kube-score"));
    helm =
        Optional.ofNullable(System.getenv("CELLAR_HELM"))
            .map(Path::of)
            .orElse(tools.resolve("helm"));
    Prerequisites.requireTool(kubeScore);
  }

  /**
   * One line of the exceptions file: check id, kind ({@code *}: any), object name (a glob), and
   * optionally words the finding's summary must contain (e.g. "egress"); the comment lines above it
   * say why.
   */
  record Excuse(
      String check, String kind, PathMatcher name, String pattern, String summary, int line) {
    boolean matches(Finding f) {
      return check.equals(f.check())
          && (kind.equals("*") || kind.equals(f.kind()))
          && name.matches(Path.of(f.name()))
          && f.summary().contains(summary);
    }
  }

  record Finding(String check, String kind, String name, String file, String summary) {
    @Override
    public String toString() {
      return check + " " + kind + " " + name + " (" + file + "): " + summary;
    }
  }

  static List<Excuse> exceptions() throws IOException {
    List<Excuse> list = new ArrayList<>();
    List<String> lines = Files.readAllLines(EXCEPTIONS);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split("\\s+", 4);
      assertThat(parts)
          .as("line %d: <check> <kind> <name glob> [summary words]", i + 1)
          .hasSizeGreaterThanOrEqualTo(3);
      // Every exception says why, in the comment lines just above it.
      int above = i - 1;
      while (above >= 0
          && !lines.get(above).isBlank()
          && !lines.get(above).strip().startsWith("#")) {
        above--; // a group of exceptions shares the comment above it
      }
      assertThat(above >= 0 && lines.get(above).strip().startsWith("#"))
          .as("line %d of %s has a comment above it saying why", i + 1, EXCEPTIONS)
          .isTrue();
      list.add(
          new Excuse(
              parts[0],
              parts[1],
              FileSystems.getDefault().getPathMatcher("glob:" + parts[2]),
              parts[2],
              parts.length > 3 ? parts[3] : "",
              i + 1));
    }
    return list;
  }

  /** The children of {@code db}, as the operator renders them. */
  static List<HasMetadata> children(Database db) {
    List<HasMetadata> children = new ArrayList<>();
    children.add(new CredentialsSecretDependent().desired(db, null));
    children.add(
        new ConfigMapDependent().desired(db, Optional.empty(), List.of(), Optional.empty()));
    children.add(new HeadlessServiceDependent().desired(db, null));
    children.add(new PrimaryServiceDependent().desired(db, null));
    children.add(new ReadOnlyServiceDependent().desired(db, null));
    children.add(DesiredStateTest.statefulSet(db, Optional.empty()));
    children.add(new PodDisruptionBudgetDependent().desired(db, null));
    children.add(NetworkPolicyDependent.desired(db));
    children.add(
        new BackupPvcDependent()
            .desired(db, Quantities.size(db.getSpec().getBackup().getStorage())));
    children.add(
        new BackupCronJobDependent()
            .desired(
                db,
                dev.cellar.operator.topology.Topology.of(db)
                    .image(
                        dev.cellar.operator.topology.Topology.of(db)
                            .versionDecision(Optional.empty()),
                        Optional.empty()),
                false));
    return children;
  }

  static Database database(String name, Engine engine, String version) {
    Database db = DesiredStateTest.db(engine, version);
    db.getMetadata().setName(name);
    db.getSpec().setReplicas(2);
    return db;
  }

  /** What the linter reads: one file per engine, one restored from a backup, and deploy/. */
  static List<Path> manifests() throws IOException, InterruptedException {
    Files.createDirectories(OUT);
    List<Path> files = new ArrayList<>();
    Map<String, Database> databases =
        new java.util.LinkedHashMap<>(
            Map.of(
                "postgresql", database("orders", Engine.POSTGRESQL, "16"),
                "mysql", database("inventory", Engine.MYSQL, "8.4"),
                "mariadb", database("sessions", Engine.MARIADB, "11.4")));
    Database restored = database("restored", Engine.POSTGRESQL, "16");
    restored
        .getSpec()
        .setBootstrap(
            new BootstrapSpec(
                new FromBackupSpec("orders", FromBackupSpec.BackupSource.VOLUME, "latest", null)));
    databases.put("postgresql-restored", restored);
    for (var e : databases.entrySet()) {
      Path file = OUT.resolve("children-" + e.getKey() + ".yaml");
      StringBuilder yaml = new StringBuilder();
      for (HasMetadata child : children(e.getValue())) {
        yaml.append(Serialization.asYaml(child));
      }
      Files.writeString(file, yaml.toString());
      files.add(file);
    }
    try (Stream<Path> deploy = Files.list(ROOT.resolve("deploy/operator"))) {
      deploy
          .filter(p -> p.toString().endsWith(".yaml"))
          .filter(p -> !p.getFileName().toString().equals("kustomization.yaml"))
          .sorted()
          .forEach(files::add);
    }
    if (Files.isExecutable(helm)) {
      Path chart = OUT.resolve("helm-chart.yaml");
      Files.writeString(
          chart,
          run(
              List.of(
                  helm.toString(),
                  "template",
                  "cellar",
                  ROOT.resolve("deploy/helm/cellar").toString(),
                  "-n",
                  "cellar-system")));
      files.add(chart);
    }
    return files;
  }

  static String run(List<String> command) throws IOException, InterruptedException {
    Path out = Files.createTempFile("lint", ".out");
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectErrorStream(false)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).as(command.get(0) + " finished").isTrue();
    String text = Files.readString(out, StandardCharsets.UTF_8);
    Files.delete(out);
    // kube-score exits 1 when it finds anything: the findings are judged below.
    assertThat(p.exitValue()).as(String.join(" ", command) + "\n" + text).isIn(0, 1);
    return text;
  }

  static List<Finding> lint(List<Path> files) throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                kubeScore.toString(),
                "score",
                "--output-format",
                "json",
                "--kubernetes-version",
                "v1.34"));
    files.forEach(f -> command.add(f.toString()));
    JsonNode report = new ObjectMapper().readTree(run(command));
    Files.writeString(OUT.resolve("kube-score.json"), report.toPrettyString());
    List<Finding> findings = new ArrayList<>();
    for (JsonNode object : report) {
      String kind = object.path("type_meta").path("kind").asText();
      String name = object.path("object_meta").path("name").asText();
      String file = Path.of(object.path("file_name").asText()).getFileName().toString();
      for (JsonNode check : object.path("checks")) {
        if (check.path("skipped").asBoolean() || check.path("grade").asInt() >= 10) {
          continue;
        }
        List<String> summaries = new ArrayList<>();
        check.path("comments").forEach(c -> summaries.add(c.path("summary").asText()));
        findings.add(
            new Finding(
                check.path("check").path("id").asText(),
                kind,
                name,
                file,
                String.join("; ", summaries)));
      }
    }
    return findings;
  }

  @Test
  void everyFindingIsAnExceptionWithAReason() throws Exception {
    List<Path> files = manifests();
    List<Finding> findings = lint(files);
    List<Excuse> exceptions = exceptions();
    List<Finding> unexcused =
        findings.stream().filter(f -> exceptions.stream().noneMatch(x -> x.matches(f))).toList();
    List<Excuse> unused =
        exceptions.stream().filter(x -> findings.stream().noneMatch(x::matches)).toList();
    Files.writeString(
        OUT.resolve("findings.txt"),
        String.join("\n", findings.stream().map(Finding::toString).toList()) + "\n");
    assertThat(unexcused)
        .as("kube-score findings not in %s (all findings: target/lint/findings.txt)", EXCEPTIONS)
        .isEmpty();
    assertThat(unused)
        .as("exceptions that match no finding any more: remove them")
        .extracting(x -> "line " + x.line() + ": " + x.check() + " " + x.kind() + " " + x.pattern())
        .isEmpty();
    // The linter saw what it should: every engine's StatefulSet and CronJob, the operator.
    assertThat(files).hasSizeGreaterThanOrEqualTo(6);
  }
}
