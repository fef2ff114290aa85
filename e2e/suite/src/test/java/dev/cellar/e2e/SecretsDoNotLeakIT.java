package dev.cellar.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalClusterExtension;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Secrets never leak (issue #22): with Databases of every engine running, replicating, backing up
 * on demand, and one whose user-supplied credentials Secret lacks keys (an error path whose message
 * names the Secret), the generated passwords appear nowhere but in their Secrets: not in the
 * operator's log, not in any Event of the cluster, not in a Database (status included), and not in
 * the pods, StatefulSets, CronJobs, Jobs, ConfigMaps or Services (env values, args, scripts). Each
 * password is looked for as it is, base64-encoded and URL-encoded (the uri key).
 */
class SecretsDoNotLeakIT {
  @RegisterExtension static LocalClusterExtension clusterExtension = new LocalClusterExtension();

  static Cellar cellar;
  static String ns;

  /** The password of the user's own Secret, as unlikely to appear by chance as a generated one. */
  static final String USER_PASSWORD = "byo-Pa55word-7fQ2kLx9Vw";

  /** The password a rotation sets. */
  static final String ROTATED_PASSWORD = "rotated-Pa55word-Qm4zT8rYcN";

  @BeforeAll
  static void install() {
    cellar = Cellar.install("secrets-do-not-leak");
    ns = clusterExtension.newNamespace();
  }

  @AfterAll
  static void stop() {
    if (cellar != null) {
      cellar.close();
    }
  }

  static LocalCluster.Result kubectl(String... args) {
    String[] withNamespace = new String[args.length + 2];
    withNamespace[0] = "-n";
    withNamespace[1] = ns;
    System.arraycopy(args, 0, withNamespace, 2, args.length);
    return cellar.cluster.kubectl(withNamespace);
  }

  static String ok(String... args) {
    LocalCluster.Result result = kubectl(args);
    assertThat(result.exitCode())
        .as("kubectl " + String.join(" ", args) + "\n" + result.output())
        .isZero();
    return result.stdout();
  }

  static String database(String name, String engine, String version, int replicas) {
    return "apiVersion: cellar.dev/v1\nkind: Database\nmetadata:\n  name: "
        + name
        + "\nspec:\n  engine: "
        + engine
        + "\n  version: \""
        + version
        + "\"\n  storage: 1Gi\n  replicas: "
        + replicas
        + "\n";
  }

  @Test
  void generatedPasswordsAppearOnlyInTheirSecrets() throws IOException {
    Path manifests = Files.createTempFile("cellar-leak", ".yaml");
    Files.writeString(
        manifests,
        String.join(
            "---\n",
            database("leak-pg", "postgresql", "16", 2),
            database("leak-my", "mysql", "8.4", 2),
            database("leak-maria", "mariadb", "11.4", 1),
            // The user's own Secret, without the replication keys a replicated Database needs.
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: leak-byo-credentials\n"
                + "stringData:\n  username: app\n  password: "
                + USER_PASSWORD
                + "\n",
            database("leak-byo", "postgresql", "16", 2)));
    try {
      ok("apply", "-f", manifests.toString());
    } finally {
      // The manifest holds the user's password: a test about leaks leaves no copy in /tmp.
      Files.delete(manifests);
    }
    ok(
        "wait",
        "--for=condition=Ready",
        "db/leak-pg",
        "db/leak-my",
        "db/leak-maria",
        "--timeout=180s");
    // An on-demand backup of each engine: Jobs and their pods carry the dump's environment.
    for (String db : List.of("leak-pg", "leak-my", "leak-maria")) {
      ok("annotate", "db", db, "cellar.dev/backup-now=leak-check", "--overwrite");
    }
    await("on-demand backup Jobs and their pods")
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(
                        ok("get", "pods", "-l", "cellar.dev/backup-trigger=on-demand", "-o", "name")
                            .lines()
                            .count())
                    .isGreaterThanOrEqualTo(3));
    await("the user's incomplete Secret is reported")
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(
                        ok(
                            "get",
                            "db",
                            "leak-byo",
                            "-o",
                            "jsonpath={.status.conditions[?(@.type==\"Degraded\")].reason}"))
                    .isEqualTo("CredentialsIncomplete"));

    Set<String> passwords = new LinkedHashSet<>();
    for (String db : List.of("leak-pg", "leak-my", "leak-maria")) {
      passwords.addAll(passwords(db + "-credentials"));
    }
    // A rotation: the new password goes to the servers through pods/exec (on stdin); on kwok no
    // server answers, so it ends in CredentialsNotApplied with the error, a path that must not
    // carry the password either.
    String before = ok("get", "db", "leak-pg", "-o", "jsonpath={.status.credentials}");
    ok(
        "patch",
        "secret",
        "leak-pg-credentials",
        "--type=merge",
        "-p",
        "{\"stringData\":{\"password\":\"" + ROTATED_PASSWORD + "\"}}");
    await("the rotation is tried")
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                !ok("get", "db", "leak-pg", "-o", "jsonpath={.status.credentials}").equals(before)
                    || ok(
                            "get",
                            "db",
                            "leak-pg",
                            "-o",
                            "jsonpath={.status.conditions[?(@.type==\"Degraded\")].reason}")
                        .equals("CredentialsNotApplied"));
    passwords.add(ROTATED_PASSWORD);
    assertThat(passwords)
        .as("the generated passwords: each engine has an application and a replication one")
        .hasSizeGreaterThanOrEqualTo(6)
        .allSatisfy(p -> assertThat(p).hasSizeGreaterThanOrEqualTo(16));
    passwords.add(USER_PASSWORD);

    Map<String, String> places = new LinkedHashMap<>();
    places.put("the operator's log", cellar.log());
    places.put("Events (core/v1, all namespaces)", all("get", "events", "-A", "-o", "yaml"));
    places.put(
        "Events (events.k8s.io, all namespaces)",
        all("get", "events.events.k8s.io", "-A", "-o", "yaml"));
    places.put("the Databases, status included", ok("get", "databases", "-o", "yaml"));
    for (String kind :
        List.of(
            "pods",
            "statefulsets",
            "cronjobs",
            "jobs",
            "configmaps",
            "services",
            "networkpolicies")) {
      places.put(kind, ok("get", kind, "-o", "yaml"));
    }
    assertThat(places.get("the operator's log"))
        .as("the log has the reconciles")
        .contains("leak-pg");
    assertThat(places.get("Events (core/v1, all namespaces)"))
        .as("Events were recorded")
        .contains("leak-pg");
    assertThat(places.get("pods")).as("the pods were read").contains("secretKeyRef");

    for (String password : passwords) {
      // A set that tolerates equal forms (an alphanumeric password is its own URL encoding).
      Set<String> forms =
          new LinkedHashSet<>(
              List.of(
                  password,
                  Base64.getEncoder().encodeToString(password.getBytes(StandardCharsets.UTF_8)),
                  URLEncoder.encode(password, StandardCharsets.UTF_8)));
      places.forEach(
          (place, text) ->
              assertThat(forms)
                  .as("a password (%s...) found in %s", password.substring(0, 3), place)
                  .noneSatisfy(form -> assertThat(text).contains(form)));
    }
  }

  static String all(String... args) {
    LocalCluster.Result result = cellar.cluster.kubectl(args);
    assertThat(result.exitCode()).as(result.output()).isZero();
    return result.stdout();
  }

  /** Every value of the Secret whose key names a password, decoded. */
  static Set<String> passwords(String secret) {
    String data =
        ok(
            "get",
            "secret",
            secret,
            "-o",
            "go-template={{range $k, $v := .data}}{{$k}}={{$v}}\n{{end}}");
    Set<String> found = new LinkedHashSet<>();
    for (String line : data.lines().toList()) {
      int eq = line.indexOf('=');
      String key = line.substring(0, eq);
      if (key.contains("password")) {
        found.add(
            new String(Base64.getDecoder().decode(line.substring(eq + 1)), StandardCharsets.UTF_8));
      }
    }
    return found;
  }
}
