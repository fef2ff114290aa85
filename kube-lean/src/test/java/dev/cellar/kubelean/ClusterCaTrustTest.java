package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;

/** The client trusts the API server's CA alone where its configuration names one. */
class ClusterCaTrustTest {
  /**
   * PEM certificates made once with openssl for these tests, valid for a hundred years: a cluster's
   * CA and its API server's certificate (EC P-256, kubernetes.default.svc), and the same name's
   * certificate from another CA.
   */
  static String pem(String name) throws IOException {
    try (InputStream in =
        ClusterCaTrustTest.class.getResourceAsStream("/cluster-ca/" + name + ".pem")) {
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }

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
    String ca = pem("cluster-ca");
    String server = pem("cluster-server");
    String other = pem("other-server");

    X509TrustManager trust = (X509TrustManager) ClusterCaTrust.trustManagers(withCa(ca))[0];

    assertThat(trust.getAcceptedIssuers()).containsExactly(x509(ca));
    trust.checkServerTrusted(new X509Certificate[] {x509(server), x509(ca)}, "ECDHE_ECDSA");
    assertThatThrownBy(
            () -> trust.checkServerTrusted(new X509Certificate[] {x509(other)}, "ECDHE_ECDSA"))
        .isInstanceOf(CertificateException.class);
  }

  @Test
  void aPublicCaOfTheJdksIsNotTrusted() throws Exception {
    X509TrustManager trust =
        (X509TrustManager) ClusterCaTrust.trustManagers(withCa(pem("cluster-ca")))[0];

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
