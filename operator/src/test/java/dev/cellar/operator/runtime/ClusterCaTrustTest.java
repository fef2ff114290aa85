package dev.cellar.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cellar.operator.tls.Certificates;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;

/** The client trusts the API server's CA alone where its configuration names one. */
class ClusterCaTrustTest {
  static final Instant NOW = Instant.now();

  static X509Certificate x509(String pem) throws CertificateException {
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.UTF_8)));
  }

  static Config withCa(String pem) {
    return new ConfigBuilder(Config.empty())
        .withMasterUrl("https://127.0.0.1:6443")
        .withCaCertData(Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8)))
        .build();
  }

  @Test
  void aNamedCaIsTrustedAloneUnlessTheConfigurationAsksOtherwise() {
    Config named = withCa("-----BEGIN CERTIFICATE-----");
    assertThat(ClusterCaTrust.applies(named)).isTrue();

    Config none = new ConfigBuilder(Config.empty()).withMasterUrl("https://x:6443").build();
    assertThat(ClusterCaTrust.applies(none)).isFalse();

    Config trustAll = new ConfigBuilder(named).withTrustCerts(true).build();
    assertThat(ClusterCaTrust.applies(trustAll)).isFalse();

    Config store = new ConfigBuilder(named).withTrustStoreFile("/etc/trust.jks").build();
    assertThat(ClusterCaTrust.applies(store)).isFalse();
  }

  @Test
  void theApiServersCertificateIsTrustedAndOnlyWhatItsCaSigned() throws Exception {
    Certificates.Issued ca = Certificates.newCa("cluster-ca", NOW);
    Certificates.Issued server =
        Certificates.newServer(ca, List.of("kubernetes.default.svc"), NOW, Duration.ofDays(1));
    Certificates.Issued otherCa = Certificates.newCa("other-ca", NOW);
    Certificates.Issued other =
        Certificates.newServer(otherCa, List.of("kubernetes.default.svc"), NOW, Duration.ofDays(1));

    X509TrustManager trust =
        (X509TrustManager) ClusterCaTrust.trustManagers(withCa(ca.certificate()))[0];

    assertThat(trust.getAcceptedIssuers()).containsExactly(x509(ca.certificate()));
    trust.checkServerTrusted(
        new X509Certificate[] {x509(server.certificate()), x509(ca.certificate())}, "ECDHE_ECDSA");
    assertThatThrownBy(
            () ->
                trust.checkServerTrusted(
                    new X509Certificate[] {x509(other.certificate())}, "ECDHE_ECDSA"))
        .isInstanceOf(CertificateException.class);
  }

  @Test
  void aPublicCaOfTheJdksIsNotTrusted() throws Exception {
    Certificates.Issued ca = Certificates.newCa("cluster-ca", NOW);

    X509TrustManager trust =
        (X509TrustManager) ClusterCaTrust.trustManagers(withCa(ca.certificate()))[0];

    // fabric8's merge would accept every issuer of the JDK's store; this trusts one.
    assertThat(trust.getAcceptedIssuers()).hasSize(1);
  }

  @Test
  void aCaWithoutCertificatesLeavesFabric8sTrustAlone() {
    Config blank = new ConfigBuilder(Config.empty()).withMasterUrl("https://x:6443").build();
    blank.setCaCertData(" ");
    assertThat(ClusterCaTrust.applies(blank)).isFalse();
    assertThatThrownBy(() -> ClusterCaTrust.trustManagers(withCa("no certificate here\n")))
        .isInstanceOf(java.security.GeneralSecurityException.class);
  }
}
