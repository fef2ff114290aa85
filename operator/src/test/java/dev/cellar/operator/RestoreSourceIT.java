package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.v1.BootstrapSpec;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.FromBackupSpec;
import dev.cellar.api.v1.FromBackupSpec.BackupSource;
import dev.cellar.api.v1.ObjectStoreSpec;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.backup.RestoreSource;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A restore whose source is not in the bucket (issue #69), on the local cluster with a real S3
 * server (MinIO, e2e/s3/s3-server) that the operator lists itself: a prefix with no dump of the
 * source, and a named dump that is not there (beside another of the same Database), each end Failed
 * with RestoreSourceMissing naming the source Database and where Cellar looked, with no
 * StatefulSet; the status is not rewritten while the source stays missing; once the dump is
 * uploaded, the Failed goes and the StatefulSet comes, with no change to the spec. Refused keys are
 * a cause of their own (RestoreFailed), mended by fixing the Secret; a store the operator cannot
 * reach holds nothing back (the pods try).
 */
@Tag("tools")
class RestoreSourceIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  static final Path S3_SERVER =
      LocalCluster.get().repoRootDir().resolve("e2e/s3/s3-server").toAbsolutePath();
  static final String BUCKET = "cellar-restore";

  /** The operator's next look at a restore held back, with the margin of a loaded machine. */
  static final Duration AFTER_RECHECK = RestoreSource.RECHECK.plusSeconds(15);

  static Path s3Dir;
  static final Map<String, String> s3Env = new HashMap<>();

  @BeforeAll
  static void startS3() throws IOException {
    s3Dir = Files.createTempDirectory("cellar-s3-restore-");
    long start = System.nanoTime();
    // Builds MinIO on the first run (cached under ~/.cache/cellar/bin), then starts it.
    for (String line : s3(S3_SERVER.toString(), "start").stdout().lines().toList()) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        s3Env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    assertThat(s3Env).containsKeys("S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");
    s3(S3_SERVER.toString(), "bucket", BUCKET);
    System.out.printf(
        "S3 server (MinIO) ready in %d ms%n", (System.nanoTime() - start) / 1_000_000);
  }

  @AfterAll
  static void stopS3() {
    if (s3Dir != null) {
      s3(S3_SERVER.toString(), "stop");
      LocalCluster.exec(List.of("rm", "-rf", s3Dir.toString()), s3Dir.getParent().toFile());
    }
  }

  /** Runs the S3 server's script with this class's server state; fails the test if it fails. */
  static LocalCluster.Result s3(String... command) {
    List<String> full = new ArrayList<>(List.of("env", "CELLAR_S3_DIR=" + s3Dir));
    full.addAll(List.of(command));
    LocalCluster.Result result = LocalCluster.exec(full, s3Dir.toFile());
    assertThat(result.exitCode()).as(String.join(" ", command) + "\n" + result.output()).isZero();
    return result;
  }

  /** Puts an object (not a real dump: on kwok no pod reads it) at KEY in the bucket. */
  static void upload(String key) throws IOException {
    Path file = Files.createTempFile(s3Dir, "dump", ".gz");
    Files.writeString(file, "not read on kwok");
    s3(S3_SERVER.toString(), "put", BUCKET, file.toString(), key);
  }

  String prefix(String scenario) {
    return "it/" + operator.getNamespace() + "/" + scenario;
  }

  void keys(String name, String secretKey) {
    Secret secret =
        new SecretBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .addToStringData("AWS_ACCESS_KEY_ID", s3Env.get("AWS_ACCESS_KEY_ID"))
            .addToStringData("AWS_SECRET_ACCESS_KEY", secretKey)
            .build();
    client
        .secrets()
        .inNamespace(operator.getNamespace())
        .resource(secret)
        .createOr(c -> c.update());
  }

  /** A Database restored from dump BACKUP of Database ledger, under PREFIX at ENDPOINT. */
  void restoring(String name, String endpoint, String prefix, String backup, String keys) {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.setBootstrap(
        new BootstrapSpec(
            new FromBackupSpec(
                "ledger",
                BackupSource.OBJECT_STORE,
                backup,
                new ObjectStoreSpec(endpoint, BUCKET, prefix, "us-east-1", keys))));
    operator.create(new Database(null, name, spec));
  }

  /** Waits until NAME is Failed with REASON in Degraded, and returns Degraded. */
  Condition awaitFailed(String name, String reason) {
    awaitPhase(name, Phase.Failed);
    Condition degraded = condition(get(name), Type.DEGRADED);
    assertThat(degraded.getReason()).as(describe(get(name))).isEqualTo(reason);
    assertThat(child(StatefulSet.class, name)).as("no StatefulSet while held back").isNull();
    assertThat(pods(name)).isEmpty();
    return degraded;
  }

  void awaitStatefulSet(String name, Duration atMost) {
    await(name + "'s StatefulSet, its restore no longer held back")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              assertThat(child(StatefulSet.class, name)).isNotNull();
              assertThat(get(name).getStatus().getPhase()).isNotEqualTo(Phase.Failed);
              assertThat(condition(get(name), Type.DEGRADED).getStatus()).isEqualTo("False");
            });
  }

  @Test
  void aDumpNotInTheBucketHoldsTheRestoreBackUntilItIsThere() throws IOException {
    String endpoint = s3Env.get("S3_ENDPOINT");
    keys("s3-keys", s3Env.get("AWS_SECRET_ACCESS_KEY"));
    keys("wrong-keys", "not-the-key");
    String named = "ledger-20260101T020000Z.sql.gz";
    // Another dump of ledger is there, not the one named.
    upload(prefix("named") + "/ledger-20250101T020000Z.sql.gz");
    long start = System.nanoTime();
    restoring("noprefix", endpoint, prefix("none"), "latest", "s3-keys");
    restoring("nodump", endpoint, prefix("named"), named, "s3-keys");
    restoring("badkeys", endpoint, prefix("named"), "ledger-20250101T020000Z.sql.gz", "wrong-keys");
    // Nothing answers on port 1: the operator cannot tell, so it holds nothing back.
    restoring("unreachable", "http://127.0.0.1:1", prefix("none"), "latest", "s3-keys");

    Condition noPrefix = awaitFailed("noprefix", "RestoreSourceMissing");
    assertThat(noPrefix.getMessage())
        .startsWith(
            "bootstrap.fromBackup: no dump of Database ledger in s3://"
                + BUCKET
                + "/"
                + prefix("none")
                + "/ at "
                + endpoint
                + " (its dumps are named ledger-<UTC timestamp>.sql.gz)");
    Condition noDump = awaitFailed("nodump", "RestoreSourceMissing");
    assertThat(noDump.getMessage())
        .startsWith(
            "bootstrap.fromBackup: no dump "
                + named
                + " of Database ledger in s3://"
                + BUCKET
                + "/"
                + prefix("named")
                + "/ at "
                + endpoint);
    long failed = System.nanoTime();
    System.out.printf(
        "restores from a missing dump Failed in %d ms: %s%n",
        (failed - start) / 1_000_000, noDump.getMessage());
    assertThat(awaitFailed("badkeys", "RestoreFailed").getMessage())
        .contains("refused the credentials in Secret wrong-keys")
        .doesNotContain("not-the-key");
    assertThat(hasEvent("noprefix", "RestoreSourceMissing")).isTrue();
    assertThat(hasEvent("nodump", "RestoreSourceMissing")).isTrue();
    awaitStatefulSet("unreachable", CONVERGE);
    // What the first reconciles add (the certificate's expiry in status.tls) written, the status
    // of a Database held back stays as it is.
    await().pollDelay(Duration.ofSeconds(5)).until(() -> true);
    String nodumpVersion = get("nodump").getMetadata().getResourceVersion();

    // The dump uploaded, the keys fixed: the restores go ahead at the next look, with no change
    // to their spec.
    upload(prefix("none") + "/ledger-20260102T020000Z.sql.gz");
    keys("wrong-keys", s3Env.get("AWS_SECRET_ACCESS_KEY"));
    awaitStatefulSet("noprefix", AFTER_RECHECK);
    awaitStatefulSet("badkeys", AFTER_RECHECK);

    // nodump, still missing, was looked at again meanwhile (every 30 s after its last reconcile,
    // the last of its first ones a few seconds after it Failed): not rewritten, no second Event.
    await("a recheck of nodump")
        .atMost(AFTER_RECHECK.plusSeconds(15))
        .until(() -> System.nanoTime() - failed > AFTER_RECHECK.toNanos());
    assertThat(get("nodump").getMetadata().getResourceVersion())
        .as("a Database whose source stays missing costs no write")
        .isEqualTo(nodumpVersion);
    assertThat(
            client.v1().events().inNamespace(operator.getNamespace()).list().getItems().stream()
                .filter(e -> "nodump".equals(e.getInvolvedObject().getName()))
                .filter(e -> "RestoreSourceMissing".equals(e.getReason())))
        .hasSize(1);
    upload(prefix("named") + "/" + named);
    long uploaded = System.nanoTime();
    awaitStatefulSet("nodump", AFTER_RECHECK);
    System.out.printf(
        "the named dump uploaded, its restore went ahead %d ms later%n",
        (System.nanoTime() - uploaded) / 1_000_000);
    assertThat(get("nodump").getSpec().getBootstrap().getFromBackup().getBackup()).isEqualTo(named);
  }
}
