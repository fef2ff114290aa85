package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.v1.CredentialsStatus;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Password rotation on kwok, where no server runs: the database side is a fake agent that records
 * what {@code role.sh credentials} would be given (the script itself runs against real servers in
 * ReplicationIT, and in real pods in RealNodeIT). A changed password in the credentials Secret is
 * applied in the primary, then the replica, without touching a pod; a server that refuses it leaves
 * the Database Degraded with its name until a retry succeeds.
 */
class PasswordRotationIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  /** Each call: "pod input". */
  static final List<String> calls = new CopyOnWriteArrayList<>();

  /** Pods whose server refuses (the fake's failure). */
  static final Set<String> refusing = new CopyOnWriteArraySet<>();

  static final InstanceAgent FAKE =
      new InstanceAgent() {
        @Override
        public OptionalLong position(String namespace, String pod) {
          return OptionalLong.of(1);
        }

        @Override
        public Optional<String> promote(String namespace, String pod) {
          return Optional.of("not expected here");
        }

        @Override
        public OptionalLong demote(String namespace, String pod) {
          return OptionalLong.empty();
        }

        @Override
        public void restart(String namespace, String pod) {}

        @Override
        public Optional<String> applyCredentials(String namespace, String pod, String input) {
          calls.add(pod + " " + input);
          return refusing.contains(pod)
              ? Optional.of("ERROR 1045: Access denied for user 'root'")
              : Optional.empty();
        }
      };

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client, FAKE);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  void setPassword(String secret, String password) {
    client
        .secrets()
        .inNamespace(operator.getNamespace())
        .withName(secret)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"data\":{\"password\":\""
                + Base64.getEncoder().encodeToString(password.getBytes(StandardCharsets.UTF_8))
                + "\"}}");
  }

  Optional<CredentialsStatus> credentials(String name) {
    return Optional.ofNullable(get(name).getStatus()).map(s -> s.getCredentials());
  }

  List<String> podUids() {
    return client.pods().inNamespace(operator.getNamespace()).list().getItems().stream()
        .map(Pod::getMetadata)
        .map(m -> m.getName() + "=" + m.getUid())
        .sorted()
        .toList();
  }

  @Test
  void aChangedPasswordIsAppliedInEveryServerWithoutRestartingPods() {
    DatabaseSpec spec = new DatabaseSpec(Engine.MARIADB, "11.4", "1Gi");
    spec.setReplicas(2);
    spec.setBackupEnabled(false);
    operator.create(new Database(null, "shop", spec));
    Database db = awaitPhase("shop", Phase.Ready);
    // Servers that started from the Secret hold its passwords: recorded, nothing applied.
    await("the first hash")
        .atMost(CONVERGE)
        .until(() -> credentials("shop").map(CredentialsStatus::getAppliedHash).isPresent());
    String first = credentials("shop").get().getAppliedHash();
    assertThat(credentials("shop").get().getLastRotationTime()).isNull();
    assertThat(calls).isEmpty();
    String secret = db.getStatus().getCredentialsSecret();
    List<String> uids = podUids();

    setPassword(secret, "rotated-1");
    await("the new password applied")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(credentials("shop").get().getAppliedHash()).isNotEqualTo(first);
              assertThat(credentials("shop").get().getLastRotationTime()).isNotNull();
            });
    // The primary first, then the replica; the values on stdin, with the Secret's keys.
    assertThat(calls).hasSize(2);
    assertThat(calls.get(0)).startsWith("shop-0 ").contains("password=rotated-1\n");
    assertThat(calls.get(1)).startsWith("shop-1 ").contains("replication-user=replicator\n");
    assertThat(podUids()).as("no pod replaced").isEqualTo(uids);
    assertThat(hasEvent("shop", "CredentialsApplied")).isTrue();
    assertThat(condition(get("shop"), Type.DEGRADED).getStatus()).isEqualTo("False");
    // Converged: nothing applied again.
    await()
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(10))
        .until(() -> calls.size() == 2);

    // The replica's server refuses: Degraded names it, and the hash stays the old one.
    String second = credentials("shop").get().getAppliedHash();
    refusing.add("shop-1");
    setPassword(secret, "rotated-2");
    await("Degraded names the server")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              var degraded = condition(get("shop"), Type.DEGRADED);
              assertThat(degraded.getStatus()).isEqualTo("True");
              assertThat(degraded.getReason()).isEqualTo("CredentialsNotApplied");
              assertThat(degraded.getMessage())
                  .contains("applying them in shop-1 failed")
                  .contains("Access denied")
                  .contains("applied in shop-0")
                  .doesNotContain("rotated-2");
            });
    assertThat(credentials("shop").get().getAppliedHash()).isEqualTo(second);

    // Once it accepts, the retry applies them and Degraded clears.
    refusing.clear();
    await("the retry")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(credentials("shop").get().getAppliedHash()).isNotEqualTo(second);
              assertThat(condition(get("shop"), Type.DEGRADED).getStatus()).isEqualTo("False");
            });
    assertThat(podUids()).as("no pod replaced").isEqualTo(uids);
    assertThat(get("shop").getStatus().toString()).doesNotContain("rotated-");
  }
}
