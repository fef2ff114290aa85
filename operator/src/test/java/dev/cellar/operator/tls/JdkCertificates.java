package dev.cellar.operator.tls;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.GeneralName;

/**
 * The JDK's reading of a certificate: the tests' reader, independent of the Bouncy Castle one the
 * operator reads with.
 */
public final class JdkCertificates {
  private JdkCertificates() {}

  /** The first certificate of a PEM text. */
  public static X509Certificate parse(String pem) {
    try {
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(
                  new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not a PEM certificate: " + e.getMessage(), e);
    }
  }

  /** The DNS names and IP addresses of a certificate's subjectAltName. */
  public static Set<String> dnsNames(X509Certificate cert) {
    Set<String> names = new HashSet<>();
    try {
      Collection<List<?>> sans = cert.getSubjectAlternativeNames();
      if (sans != null) {
        for (List<?> san : sans) {
          if (san.size() == 2
              && (Integer.valueOf(GeneralName.dNSName).equals(san.get(0))
                  || Integer.valueOf(GeneralName.iPAddress).equals(san.get(0)))) {
            names.add(String.valueOf(san.get(1)));
          }
        }
      }
    } catch (GeneralSecurityException e) {
      // no names
    }
    return names;
  }

  /** The common name of a certificate's subject, or empty. */
  public static Optional<String> commonName(X509Certificate cert) {
    X500Name subject = X500Name.getInstance(cert.getSubjectX500Principal().getEncoded());
    return java.util.Arrays.stream(subject.getRDNs(BCStyle.CN))
        .findFirst()
        .map(rdn -> rdn.getFirst().getValue().toString());
  }

  /** When Cellar renews the certificate, by its rule ({@link Certificates.Facts#renewal}). */
  public static Instant renewalTime(X509Certificate cert) {
    return new Certificates.Facts(
            cert.getNotBefore().toInstant(), cert.getNotAfter().toInstant(), Optional.empty())
        .renewal();
  }
}
