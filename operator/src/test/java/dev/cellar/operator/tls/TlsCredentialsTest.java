package dev.cellar.operator.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.Keys.Credentials;
import dev.cellar.api.v1.Engine;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.engine.EngineProfiles;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The credentials Secret's uri follows spec.tls only while it is the one Cellar wrote. */
class TlsCredentialsTest {
  static Map<String, String> values(String uri) {
    Map<String, String> values = new HashMap<>();
    values.put(Credentials.USERNAME, "app");
    values.put(Credentials.PASSWORD, "s3cret");
    values.put(Credentials.HOST, "orders.shop.svc.cluster.local");
    values.put(Credentials.PORT, "5432");
    values.put(Credentials.DATABASE, "orders");
    values.put(Credentials.URI, uri);
    return values;
  }

  @Test
  void postgresUriVerifiesTheServerWhenTlsIsOn() {
    EngineProfile pg = EngineProfiles.of(Engine.POSTGRESQL);
    String plain = "postgresql://app:s3cret@orders.shop.svc.cluster.local:5432/orders";
    String verified = plain + "?sslmode=verify-full";
    assertThat(TlsCredentials.wantedUri(pg, values(plain), true)).contains(verified);
    assertThat(TlsCredentials.wantedUri(pg, values(verified), true)).contains(verified);
    assertThat(TlsCredentials.wantedUri(pg, values(verified), false)).contains(plain);
  }

  @Test
  void mysqlFamilyUriAsksForIdentityVerification() {
    EngineProfile mariadb = EngineProfiles.of(Engine.MARIADB);
    Map<String, String> v = values("mysql://app:s3cret@orders.shop.svc.cluster.local:5432/orders");
    assertThat(TlsCredentials.wantedUri(mariadb, v, true))
        .contains(
            "mysql://app:s3cret@orders.shop.svc.cluster.local:5432/orders?ssl-mode=VERIFY_IDENTITY");
  }

  @Test
  void aUriCellarDidNotWriteOrWhosePasswordChangedIsLeftAlone() {
    EngineProfile pg = EngineProfiles.of(Engine.POSTGRESQL);
    // The user's own uri (another host) and a uri still holding an older password.
    assertThat(
            TlsCredentials.wantedUri(
                pg, values("postgresql://app:s3cret@pgbouncer:6432/orders"), true))
        .isEmpty();
    assertThat(
            TlsCredentials.wantedUri(
                pg, values("postgresql://app:old@orders.shop.svc.cluster.local:5432/orders"), true))
        .isEmpty();
    Map<String, String> incomplete = values("postgresql://x");
    incomplete.remove(Credentials.PASSWORD);
    assertThat(TlsCredentials.wantedUri(pg, incomplete, true)).isEmpty();
  }
}
