package dev.cellar.operator.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.IssuerRef;
import dev.cellar.api.v1.TlsMode;
import dev.cellar.api.v1.TlsSpec;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** status.tls and the Degraded reasons of the server certificate, from its Secret. */
class TlsStateTest {
  static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  /** CRD_RECHECK_SECONDS unless set. */
  static final Duration MINUTE = Duration.ofMinutes(1);

  static Database db(TlsSpec tls) {
    Database db =
        new Database("shop", "orders-db", new DatabaseSpec(Engine.MARIADB, "11.4", "1Gi"));
    if (tls != null) {
      db.getSpec().setTls(tls);
    }
    return db;
  }

  static Secret secret(String certificate) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName("x")
        .endMetadata()
        .withData(
            Map.of(
                Keys.Tls.CERTIFICATE,
                Base64.getEncoder().encodeToString(certificate.getBytes(StandardCharsets.UTF_8))))
        .build();
  }

  static String certificate(Duration validity) {
    Certificates.Issued ca = Certificates.newCa("ca", NOW);
    return Certificates.newServer(ca, Topology.of(db(null)).tlsDnsNames(), NOW, validity)
        .certificate();
  }

  @Test
  void cellarsCertificateShowsItsExpiryAndRenewalAndIsLookedAtAgainAtTheRenewal() {
    Topology topology = Topology.of(db(null));
    TlsState state =
        TlsState.of(topology, Optional.of(secret(certificate(Duration.ofDays(90)))), NOW);
    assertThat(state.failure()).isEmpty();
    assertThat(state.status().orElseThrow().getSecretName()).isEqualTo("orders-db-tls");
    assertThat(state.status().orElseThrow().getNotAfter()).isEqualTo("2026-04-01T00:00:00Z");
    // (90 d + 5 min) * 2/3 after notBefore (5 min ago).
    Instant renewal = Instant.parse("2026-03-01T23:58:20Z");
    assertThat(state.status().orElseThrow().getRenewalTime()).isEqualTo(renewal.toString());
    assertThat(state.recheck()).contains(renewal);
    // The status depends on the certificate only: the same at any time before the renewal.
    assertThat(
            TlsState.of(
                    topology,
                    Optional.of(secret(certificate(Duration.ofDays(90)))),
                    NOW.plus(Duration.ofDays(30)))
                .status())
        .isEqualTo(state.status());
  }

  @Test
  void aCertificateNearItsExpiryThatWasNotRenewedIsDegraded() {
    Topology topology = Topology.of(db(null));
    Secret secret = secret(certificate(Duration.ofMinutes(55)));
    // 60 min of validity from notBefore: five sixths is 50 min, 45 min after NOW.
    TlsState before = TlsState.of(topology, Optional.of(secret), NOW.plus(Duration.ofMinutes(44)));
    assertThat(before.failure()).isEmpty();
    TlsState near = TlsState.of(topology, Optional.of(secret), NOW.plus(Duration.ofMinutes(46)));
    assertThat(near.failure().orElseThrow().reason()).isEqualTo(Reason.CERTIFICATE_EXPIRING);
    assertThat(near.failure().orElseThrow().message())
        .contains("orders-db-tls", "expires at 2026-01-01T00:55:00Z", "could not renew");
    assertThat(near.recheck()).contains(NOW.plus(Duration.ofMinutes(55)));
    TlsState expired = TlsState.of(topology, Optional.of(secret), NOW.plus(Duration.ofHours(1)));
    assertThat(expired.failure().orElseThrow().message()).contains("expired at");
  }

  @Test
  void aUsersCertificateSecretMissingOrUnreadableIsDegradedAndNotRenewedByCellar() {
    Topology topology = Topology.of(db(new TlsSpec(TlsMode.REQUIRED, "my-cert", false)));
    TlsState missing = TlsState.of(topology, Optional.empty(), NOW);
    assertThat(missing.failure().orElseThrow().reason()).isEqualTo(Reason.CERTIFICATE_INVALID);
    assertThat(missing.failure().orElseThrow().message())
        .contains("my-cert", "spec.tls.certificateSecret", "does not exist");
    assertThat(missing.recheck()).contains(NOW.plus(Duration.ofSeconds(30)));

    TlsState garbage = TlsState.of(topology, Optional.of(secret("junk")), NOW);
    assertThat(garbage.failure().orElseThrow().reason()).isEqualTo(Reason.CERTIFICATE_INVALID);

    TlsState good =
        TlsState.of(topology, Optional.of(secret(certificate(Duration.ofDays(90)))), NOW);
    assertThat(good.failure()).isEmpty();
    assertThat(good.status().orElseThrow().getSecretName()).isEqualTo("my-cert");
    assertThat(good.status().orElseThrow().getRenewalTime()).isNull();
  }

  @Test
  void cellarsOwnSecretNotCreatedYetIsNoFailure() {
    TlsState state = TlsState.of(Topology.of(db(null)), Optional.empty(), NOW);
    assertThat(state.failure()).isEmpty();
    assertThat(state.status().orElseThrow().getSecretName()).isEqualTo("orders-db-tls");
  }

  static Database certManaged() {
    TlsSpec tls = new TlsSpec();
    tls.setIssuerRef(new IssuerRef("company-ca"));
    return db(tls);
  }

  static dev.cellar.operator.certmanager.Certificate certificate(
      Instant created, String readyReason, String readyMessage) {
    var certificate = new dev.cellar.operator.certmanager.Certificate();
    certificate.getMetadata().setName("orders-db-server");
    certificate.getMetadata().setCreationTimestamp(created.toString());
    if (readyReason != null) {
      certificate.setStatus(
          new dev.cellar.operator.certmanager.Certificate.Status(
              List.of(
                  new ConditionBuilder()
                      .withType("Ready")
                      .withStatus("False")
                      .withReason(readyReason)
                      .withMessage(readyMessage)
                      .build()),
              null));
    }
    return certificate;
  }

  @Test
  void withoutCertManagerTheStatusSaysWhatIsMissing() {
    Topology topology = Topology.of(certManaged());
    assertThat(topology.serverCertificateSecret()).isEqualTo("orders-db-server-tls");
    assertThat(topology.issuesCertificate()).isFalse();
    TlsState state = TlsState.waitingForCertManager(topology, Optional.empty(), NOW, MINUTE);
    assertThat(state.failure().orElseThrow().reason()).isEqualTo(Reason.CERTIFICATE_INVALID);
    assertThat(state.failure().orElseThrow().message())
        .contains("spec.tls.issuerRef needs cert-manager")
        .contains("install cert-manager, or remove spec.tls.issuerRef");
    assertThat(state.status().orElseThrow().getSecretName()).isEqualTo("orders-db-server-tls");
    assertThat(state.recheck()).contains(NOW.plusSeconds(30));
  }

  @Test
  void withoutCertManagerAShorterCrdRecheckIsWhenToLookAgain() {
    Topology topology = Topology.of(certManaged());
    assertThat(
            TlsState.waitingForCertManager(topology, Optional.empty(), NOW, Duration.ofSeconds(2))
                .recheck())
        .contains(NOW.plusSeconds(2));
  }

  @Test
  void aCertificateBeingIssuedIsNoFailureUntilTheGraceIsOver() {
    Topology topology = Topology.of(certManaged());
    Instant created = NOW.minusSeconds(30);
    TlsState issuing =
        TlsState.waitingForCertManager(
            topology,
            Optional.of(
                Optional.of(
                    certificate(
                        created,
                        "DoesNotExist",
                        "Issuing certificate as Secret does not" + " exist"))),
            NOW,
            MINUTE);
    assertThat(issuing.failure()).isEmpty();
    assertThat(issuing.recheck()).contains(created.plus(TlsState.CERT_MANAGER_GRACE));
    // Not created yet (this reconcile's workflow creates it): no failure either.
    assertThat(
            TlsState.waitingForCertManager(topology, Optional.of(Optional.empty()), NOW, MINUTE)
                .failure())
        .isEmpty();
  }

  @Test
  void aCertificateLeftUnissuedIsNamedWithCertManagersWords() {
    Topology topology = Topology.of(certManaged());
    Instant created = NOW.minus(TlsState.CERT_MANAGER_GRACE).minusSeconds(1);
    TlsState stuck =
        TlsState.waitingForCertManager(
            topology,
            Optional.of(
                Optional.of(
                    certificate(
                        created, "Failed", "issuer.cert-manager.io \"company-ca\" not found"))),
            NOW,
            MINUTE);
    assertThat(stuck.failure().orElseThrow().message())
        .contains("cert-manager has not issued the server certificate")
        .contains("orders-db-server says Failed: issuer.cert-manager.io \"company-ca\" not found")
        .contains("kubectl describe certificate orders-db-server");
    TlsState silent =
        TlsState.waitingForCertManager(
            topology, Optional.of(Optional.of(certificate(created, null, null))), NOW, MINUTE);
    assertThat(silent.failure().orElseThrow().message())
        .contains("is cert-manager's controller running?");
  }
}
