package dev.cellar.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class RedactorTest {
  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  static Secret credentials() {
    return new SecretBuilder()
        .withNewMetadata()
        .withName("orders-credentials")
        .addToAnnotations(
            Redactor.LAST_APPLIED, "{\"data\":{\"password\":\"" + b64("s3cr3t-Pa55") + "\"}}")
        .endMetadata()
        .addToData("username", b64("orders"))
        .addToData("password", b64("s3cr3t-Pa55"))
        .addToData("root-password", b64("r00t-Pa55word"))
        .addToData("uri", b64("postgresql://orders:s3cr3t-Pa55@orders:5432/orders"))
        .addToStringData("replication-password", "repl-Pa55word")
        .build();
  }

  @Test
  void secretsKeepTheirKeysAndLoseEveryValue() {
    Secret original = credentials();
    Secret redacted = new Redactor().secret(original);
    assertThat(redacted.getData())
        .containsOnlyKeys("username", "password", "root-password", "uri")
        .allSatisfy((k, v) -> assertThat(v).isEqualTo(Redactor.REDACTED));
    assertThat(redacted.getStringData()).containsEntry("replication-password", "REDACTED");
    assertThat(redacted.getMetadata().getAnnotations())
        .containsEntry(Redactor.LAST_APPLIED, "REDACTED");
    // The original is untouched.
    assertThat(original.getData().get("password")).isEqualTo(b64("s3cr3t-Pa55"));
    String yaml = Serialization.asYaml(redacted);
    assertThat(yaml).doesNotContain(b64("s3cr3t-Pa55"), "s3cr3t-Pa55", b64("orders"));
  }

  @Test
  void secretValuesAreScrubbedFromAnyTextButNamesAndShortValuesStay() {
    Redactor redactor = new Redactor();
    redactor.remember(credentials());
    String log =
        "connecting as orders with s3cr3t-Pa55 to postgresql://orders:s3cr3t-Pa55@orders:5432/orders"
            + " root r00t-Pa55word repl repl-Pa55word";
    assertThat(redactor.text(log))
        .isEqualTo("connecting as orders with REDACTED to REDACTED root REDACTED repl REDACTED");
  }

  @Test
  void literalSecretLookingEnvValuesInPodsAreRedactedReferencesStay() {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("p")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("c")
            .addNewEnv()
            .withName("AWS_SECRET_ACCESS_KEY")
            .withValue("literal-key-value")
            .endEnv()
            .addNewEnv()
            .withName("POSTGRES_PASSWORD")
            .withNewValueFrom()
            .withNewSecretKeyRef()
            .withName("orders-credentials")
            .withKey("password")
            .endSecretKeyRef()
            .endValueFrom()
            .endEnv()
            .addNewEnv()
            .withName("PGDATA")
            .withValue("/var/lib/postgresql/data")
            .endEnv()
            .endContainer()
            .endSpec()
            .build();
    Redactor redactor = new Redactor();
    Pod copy = redactor.object(pod);
    var env = copy.getSpec().getContainers().get(0).getEnv();
    assertThat(env.get(0).getValue()).isEqualTo("REDACTED");
    assertThat(env.get(1).getValueFrom().getSecretKeyRef().getKey()).isEqualTo("password");
    assertThat(env.get(2).getValue()).isEqualTo("/var/lib/postgresql/data");
    assertThat(redactor.text("key literal-key-value")).isEqualTo("key REDACTED");
    assertThat(pod.getSpec().getContainers().get(0).getEnv().get(0).getValue())
        .isEqualTo("literal-key-value");
  }
}
