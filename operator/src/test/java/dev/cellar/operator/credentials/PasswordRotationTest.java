package dev.cellar.operator.credentials;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PasswordRotationTest {
  static Secret secret(String uid, Map<String, String> data) {
    SecretBuilder b =
        new SecretBuilder().withNewMetadata().withName("s").withUid(uid).endMetadata();
    data.forEach(
        (k, v) ->
            b.addToData(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
    return b.build();
  }

  static final Map<String, String> VALUES =
      Map.of(
          "username", "app",
          "password", "p1",
          "replication-user", "replicator",
          "replication-password", "r1",
          "root-password", "root1",
          "uri", "postgresql://app:p1@orders:5432/app");

  @Test
  void theHashFollowsTheAppliedKeysOnly() {
    Secret s = secret("uid-1", VALUES);
    String hash = PasswordRotation.hash(s, CredentialsSecret.values(s));
    assertThat(hash).hasSize(16).matches("[0-9a-f]+").doesNotContain("p1");
    // Stable, and blind to the keys that are not applied in the servers.
    Map<String, String> otherUri = new java.util.HashMap<>(VALUES);
    otherUri.put("uri", "changed");
    otherUri.put("root-password", "changed");
    Secret s2 = secret("uid-1", otherUri);
    assertThat(PasswordRotation.hash(s2, CredentialsSecret.values(s2))).isEqualTo(hash);
    // A changed password or replication password changes it.
    for (String key : new String[] {"password", "replication-password"}) {
      Map<String, String> changed = new java.util.HashMap<>(VALUES);
      changed.put(key, "new");
      Secret s3 = secret("uid-1", changed);
      assertThat(PasswordRotation.hash(s3, CredentialsSecret.values(s3))).isNotEqualTo(hash);
    }
    // Keyed by the Secret's uid: the same passwords elsewhere hash otherwise.
    Secret other = secret("uid-2", VALUES);
    assertThat(PasswordRotation.hash(other, CredentialsSecret.values(other))).isNotEqualTo(hash);
  }

  @Test
  void theScriptGetsTheAppliedKeysAsLines() {
    assertThat(PasswordRotation.input(VALUES))
        .isEqualTo(
            "username=app\npassword=p1\nreplication-user=replicator\nreplication-password=r1\n");
  }

  @Test
  void stringDataWinsOverData() {
    Secret s = secret("u", Map.of("password", "old"));
    s.setStringData(Map.of("password", "new"));
    assertThat(CredentialsSecret.values(s)).containsEntry("password", "new");
  }
}
