package dev.cellar.operator.credentials;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import org.junit.jupiter.api.Test;

class CredentialsCheckTest {
  static Topology topology(Engine engine, String version) {
    return Topology.of(new Database("shop", "orders", new DatabaseSpec(engine, version, "1Gi")));
  }

  @Test
  void namesTheKeysThePodsReadAndTheSecretLacks() {
    Secret secret =
        new SecretBuilder().addToData("username", "YQ==").addToStringData("database", "b").build();
    assertThat(CredentialsCheck.problem(topology(Engine.POSTGRESQL, "16"), secret))
        .hasValueSatisfying(
            m ->
                assertThat(m)
                    .contains("orders-credentials", "lacks the key(s) password")
                    .doesNotContain("replication")
                    .doesNotContain("username"));
    assertThat(CredentialsCheck.problem(topology(Engine.MARIADB, "11.4"), secret))
        .hasValueSatisfying(m -> assertThat(m).contains("password, root-password"));
  }

  @Test
  void aCompleteSecretIsFine() {
    Secret secret =
        new SecretBuilder()
            .addToData("username", "YQ==")
            .addToData("password", "YQ==")
            .addToData("database", "YQ==")
            .build();
    assertThat(CredentialsCheck.problem(topology(Engine.POSTGRESQL, "16"), secret)).isEmpty();
  }
}
