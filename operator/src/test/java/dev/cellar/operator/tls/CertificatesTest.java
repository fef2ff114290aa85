package dev.cellar.operator.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.operator.topology.Topology;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.junit.jupiter.api.Test;

/** The certificates Cellar issues: names, validity, signatures and when they are renewed. */
class CertificatesTest {
  static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  static Topology topology() {
    return Topology.of(
        new Database("shop", "orders-db", new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi")));
  }

  @Test
  void theNamesCoverTheServicesEveryPossiblePodAndEachDnsForm() {
    List<String> names = topology().tlsDnsNames();
    assertThat(names)
        .contains(
            "orders-db",
            "orders-db.shop",
            "orders-db.shop.svc",
            "orders-db.shop.svc.cluster.local",
            "orders-db-ro",
            "orders-db-ro.shop.svc.cluster.local",
            "orders-db-headless.shop.svc",
            "orders-db-0.orders-db-headless",
            "orders-db-0.orders-db-headless.shop.svc.cluster.local",
            "orders-db-4.orders-db-headless.shop.svc.cluster.local",
            "localhost",
            "127.0.0.1")
        .doesNotHaveDuplicates();
    // The primary host the pods and the credentials Secret use is among them.
    assertThat(names).contains(topology().primaryHost());
  }

  @Test
  void theCaIsASelfSignedCaForTenYears() throws Exception {
    Certificates.Issued ca = Certificates.newCa("cellar shop/orders-db CA", NOW);
    X509Certificate cert = JdkCertificates.parse(ca.certificate());
    assertThat(cert.getBasicConstraints()).isGreaterThanOrEqualTo(0);
    cert.verify(cert.getPublicKey());
    assertThat(cert.getSubjectX500Principal().getName()).contains("CN=cellar shop/orders-db CA");
    assertThat(cert.getNotAfter().toInstant()).isEqualTo(NOW.plus(Certificates.CA_VALIDITY));
    assertThat(ca.privateKey()).startsWith("-----BEGIN PRIVATE KEY-----");
  }

  @Test
  void theServerCertificateNamesEveryNameIsSignedByTheCaAndServesBothEnds() throws Exception {
    Certificates.Issued ca = Certificates.newCa("ca", NOW);
    List<String> names = topology().tlsDnsNames();
    Certificates.Issued server = Certificates.newServer(ca, names, NOW, Duration.ofDays(90));
    X509Certificate cert = JdkCertificates.parse(server.certificate());
    cert.verify(JdkCertificates.parse(ca.certificate()).getPublicKey());
    assertThat(JdkCertificates.dnsNames(cert)).containsExactlyInAnyOrderElementsOf(names);
    assertThat(cert.getBasicConstraints()).isEqualTo(-1);
    assertThat(cert.getExtendedKeyUsage())
        .containsExactlyInAnyOrder("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
    assertThat(cert.getSubjectX500Principal().getName()).contains("CN=orders-db");
    // Backdated a little for nodes whose clock lags; valid for the asked validity from now.
    assertThat(cert.getNotBefore().toInstant()).isEqualTo(NOW.minus(Duration.ofMinutes(5)));
    assertThat(cert.getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(90)));
    assertThat(cert.getSerialNumber().signum()).isPositive();
  }

  @Test
  void keysNameTheirCurveAndTheServerCertificateNamesItsCasKey() throws Exception {
    Certificates.Issued ca = Certificates.newCa("ca", NOW);
    Certificates.Issued server =
        Certificates.newServer(ca, topology().tlsDnsNames(), NOW, Duration.ofDays(90));
    X509Certificate caCert = JdkCertificates.parse(ca.certificate());
    X509Certificate cert = JdkCertificates.parse(server.certificate());
    for (X509Certificate c : List.of(caCert, cert)) {
      assertThat(c.getSigAlgName()).isEqualTo("SHA256withECDSA");
      assertThat(
              SubjectPublicKeyInfo.getInstance(c.getPublicKey().getEncoded())
                  .getAlgorithm()
                  .getParameters())
          .as("the curve named, not spelled out")
          .isEqualTo(SECObjectIdentifiers.secp256r1);
    }
    for (Certificates.Issued issued : List.of(ca, server)) {
      // What the JDK (and so the pods' OpenSSL through PKCS#8) reads back.
      java.security.PrivateKey key = Certificates.privateKey(issued.privateKey());
      assertThat(key.getAlgorithm()).isEqualTo("EC");
      assertThat(
              PrivateKeyInfo.getInstance(key.getEncoded()).getPrivateKeyAlgorithm().getParameters())
          .isEqualTo(SECObjectIdentifiers.secp256r1);
    }
    byte[] caKeyId =
        SubjectKeyIdentifier.getInstance(
                JcaX509ExtensionUtils.parseExtensionValue(
                    caCert.getExtensionValue(Extension.subjectKeyIdentifier.getId())))
            .getKeyIdentifier();
    byte[] issuerKeyId =
        AuthorityKeyIdentifier.getInstance(
                JcaX509ExtensionUtils.parseExtensionValue(
                    cert.getExtensionValue(Extension.authorityKeyIdentifier.getId())))
            .getKeyIdentifier();
    assertThat(issuerKeyId).isEqualTo(caKeyId);
    assertThat(cert.getIssuerX500Principal()).isEqualTo(caCert.getSubjectX500Principal());
  }

  @Test
  void aCertificateIsRenewedTwoThirdsIntoItsValidity() {
    Certificates.Issued ca = Certificates.newCa("ca", NOW);
    List<String> names = topology().tlsDnsNames();
    Certificates.Issued server = Certificates.newServer(ca, names, NOW, Duration.ofMinutes(55));
    X509Certificate cert = JdkCertificates.parse(server.certificate());
    // 5 min backdated + 55 min = 60 min; two thirds: 40 min after notBefore.
    Instant renewal = JdkCertificates.renewalTime(cert);
    assertThat(renewal).isEqualTo(NOW.minus(Duration.ofMinutes(5)).plus(Duration.ofMinutes(40)));
    assertThat(reason(server, ca, names, renewal.minusSeconds(1))).isEmpty();
    assertThat(reason(server, ca, names, renewal))
        .hasValueSatisfying(r -> assertThat(r).contains("due for renewal"));
  }

  @Test
  void aCertificateIsReplacedWhenItLacksANameOrIsNotTheCasOrItsKeyIsAnother() {
    Certificates.Issued ca = Certificates.newCa("ca", NOW);
    List<String> names = topology().tlsDnsNames();
    Certificates.Issued server =
        Certificates.newServer(ca, names.subList(0, 4), NOW, Duration.ofDays(90));
    assertThat(reason(server, ca, names, NOW))
        .hasValueSatisfying(r -> assertThat(r).contains("does not name orders-db-ro"));

    Certificates.Issued other = Certificates.newCa("other", NOW);
    Certificates.Issued foreign = Certificates.newServer(other, names, NOW, Duration.ofDays(90));
    assertThat(reason(foreign, ca, names, NOW))
        .hasValueSatisfying(r -> assertThat(r).contains("not signed by the Database's CA"));

    Certificates.Issued good = Certificates.newServer(ca, names, NOW, Duration.ofDays(90));
    Certificates.Issued mixed = new Certificates.Issued(good.certificate(), foreign.privateKey());
    assertThat(reason(mixed, ca, names, NOW))
        .hasValueSatisfying(r -> assertThat(r).contains("key does not match"));

    Certificates.Issued garbage = new Certificates.Issued("not a certificate", good.privateKey());
    assertThat(reason(garbage, ca, names, NOW))
        .hasValueSatisfying(r -> assertThat(r).contains("cannot be read"));

    // Read anew (not as issued here): an address in the names is read as an address.
    List<String> withAddress = new java.util.ArrayList<>(names);
    withAddress.add("127.0.0.1");
    Certificates.Issued addressed =
        Certificates.newServer(ca, withAddress, NOW, Duration.ofDays(90));
    withAddress.add("orders-db-extra");
    assertThat(reason(addressed, ca, withAddress, NOW))
        .hasValue("it does not name orders-db-extra");

    assertThat(reason(good, ca, names, NOW)).isEmpty();
  }

  @Test
  void theValidityComesFromTheEnvironmentOrIsNinetyDays() {
    assertThat(Certificates.validity(null)).isEqualTo(Duration.ofDays(90));
    assertThat(Certificates.validity(" ")).isEqualTo(Duration.ofDays(90));
    assertThat(Certificates.validity("PT10M")).isEqualTo(Duration.ofMinutes(10));
    assertThatThrownBy(() -> Certificates.validity("PT30S"))
        .hasMessageContaining("CELLAR_TLS_CERT_VALIDITY");
  }

  private static java.util.Optional<String> reason(
      Certificates.Issued server, Certificates.Issued ca, List<String> names, Instant now) {
    return Certificates.replacementReason(
        server.certificate(), server.privateKey(), ca.certificate(), names, now);
  }

  @Test
  void theMemosKeysTellTextsApart() {
    Certificates.Digest key = Certificates.digest("-----BEGIN CERTIFICATE-----abc", "key", "ca");

    assertThat(Certificates.digest("-----BEGIN CERTIFICATE-----abc", "key", "ca")).isEqualTo(key);
    // The same characters split otherwise, one character changed, a part missing or empty.
    assertThat(
            List.of(
                Certificates.digest("-----BEGIN CERTIFICATE-----ab", "ckey", "ca"),
                Certificates.digest("-----BEGIN CERTIFICATE-----abd", "key", "ca"),
                Certificates.digest("-----BEGIN CERTIFICATE-----abc", "key"),
                Certificates.digest("-----BEGIN CERTIFICATE-----abc", "key", "ca", ""),
                Certificates.digest("-----BEGIN CERTIFICATE-----abc", "key", null, "ca")))
        .doesNotContain(key)
        .doesNotHaveDuplicates();
  }
}
