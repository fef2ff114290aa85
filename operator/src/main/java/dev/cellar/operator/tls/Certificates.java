package dev.cellar.operator.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.ASN1IA5String;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertException;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.bc.BcX509ExtensionUtils;
import org.bouncycastle.crypto.macs.SipHash128;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;

/**
 * Issues and inspects the certificates of a Database: a CA of its own and a server certificate
 * signed by it. Keys are ECDSA P-256 (fast to make, read by every OpenSSL-based server and client);
 * keys are made and signatures written with Bouncy Castle's lightweight API ({@link P256}), checked
 * with the JDK's own provider; no security provider is registered. PEM out, PEM in.
 */
public final class Certificates {
  private Certificates() {}

  /** The CA lives long: replacing it means every client fetching the new ca.crt. */
  public static final Duration CA_VALIDITY = Duration.ofDays(3650);

  /** The default validity of a server certificate; renewed at two thirds of it. */
  public static final Duration DEFAULT_SERVER_VALIDITY = Duration.ofDays(90);

  /**
   * Server certificates start this long before they are issued (a tenth of a short validity at
   * most), so a node whose clock is a little behind the operator's accepts them.
   */
  static final Duration BACKDATE = Duration.ofMinutes(5);

  /** The environment variable that shortens the server certificates' validity (tests). */
  public static final String VALIDITY_ENV = "CELLAR_TLS_CERT_VALIDITY";

  private static final SecureRandom RANDOM = new SecureRandom();

  /** A certificate and its private key, both PEM. */
  public record Issued(String certificate, String privateKey) {}

  /**
   * The validity of new server certificates: {@code CELLAR_TLS_CERT_VALIDITY} (an ISO-8601 duration
   * such as P90D or PT10M, at least one minute) or 90 days.
   */
  public static Duration serverValidity() {
    return validity(System.getProperty(VALIDITY_PROPERTY, System.getenv(VALIDITY_ENV)));
  }

  /** The system property that wins over {@link #VALIDITY_ENV} (tests in one JVM). */
  public static final String VALIDITY_PROPERTY = "cellar.tls.certificateValidity";

  /** How far a server certificate is backdated: {@link #BACKDATE}, at most a tenth of it. */
  static Duration backdate(Duration validity) {
    Duration tenth = validity.dividedBy(10);
    return tenth.compareTo(BACKDATE) < 0 ? tenth : BACKDATE;
  }

  static Duration validity(String value) {
    if (value == null || value.isBlank()) {
      return DEFAULT_SERVER_VALIDITY;
    }
    Duration parsed = Duration.parse(value.trim());
    if (parsed.compareTo(Duration.ofMinutes(1)) < 0) {
      throw new IllegalArgumentException(VALIDITY_ENV + " must be at least PT1M: " + value);
    }
    return parsed;
  }

  /** A new self-signed CA named {@code commonName}. */
  public static Issued newCa(String commonName, Instant now) {
    try {
      P256.Keys keys = P256.generate(RANDOM);
      X500Name subject = name(commonName);
      X509v3CertificateBuilder builder =
          new X509v3CertificateBuilder(
              subject,
              serial(),
              Date.from(now.minus(BACKDATE)),
              Date.from(now.plus(CA_VALIDITY)),
              subject,
              keys.publicKey());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      builder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      builder.addExtension(
          Extension.subjectKeyIdentifier,
          false,
          new BcX509ExtensionUtils().createSubjectKeyIdentifier(keys.publicKey()));
      X509CertificateHolder cert = builder.build(P256.signer(keys.privateKey()));
      return new Issued(pem(cert), keys.privateKeyPem());
    } catch (IOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot issue a CA: " + e, e);
    }
  }

  /**
   * A new server certificate for {@code dnsNames} (the first is its common name), signed by {@code
   * ca}, valid from a few minutes ago for {@code validity}. Usable for TLS servers and clients (a
   * replica presents it when the primary asks for client certificates).
   */
  public static Issued newServer(Issued ca, List<String> dnsNames, Instant now, Duration validity) {
    return issue(
        ca,
        dnsNames.get(0),
        dnsNames,
        new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth},
        now,
        validity);
  }

  /**
   * A new client certificate for the database user {@code user} (its common name, which
   * PostgreSQL's clientcert=verify-full compares with the user name), signed by {@code ca}, for
   * clients only. No subjectAltName: a user name need not be a DNS name.
   */
  public static Issued newClient(Issued ca, String user, Instant now, Duration validity) {
    return issue(
        ca, user, List.of(), new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth}, now, validity);
  }

  private static Issued issue(
      Issued ca,
      String commonName,
      List<String> dnsNames,
      KeyPurposeId[] purposes,
      Instant now,
      Duration validity) {
    try {
      X509CertificateHolder caCert = holder(ca.certificate());
      ECPrivateKeyParameters caKey = P256.privateKey(ca.privateKey());
      P256.Keys keys = P256.generate(RANDOM);
      Instant notBefore = now.minus(backdate(validity));
      X509v3CertificateBuilder builder =
          new X509v3CertificateBuilder(
              caCert.getSubject(),
              serial(),
              Date.from(notBefore),
              Date.from(now.plus(validity)),
              name(commonName),
              keys.publicKey());
      BcX509ExtensionUtils ext = new BcX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(
          Extension.keyUsage,
          true,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes));
      if (!dnsNames.isEmpty()) {
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(
                dnsNames.stream().map(Certificates::generalName).toArray(GeneralName[]::new)));
      }
      builder.addExtension(
          Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.publicKey()));
      builder.addExtension(
          Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCert));
      X509CertificateHolder cert = builder.build(P256.signer(caKey));
      Issued issued = new Issued(pem(cert), keys.privateKeyPem());
      // What the checks would find, known here: the next reconcile need not verify it again.
      Instant from = cert.getNotBefore().toInstant();
      Instant to = cert.getNotAfter().toInstant();
      CHECKED.put(
          digest(
              issued.certificate(),
              issued.privateKey(),
              ca.certificate(),
              String.join(",", dnsNames)),
          new Checked(Optional.empty(), renewal(from, to), to));
      return issued;
    } catch (IOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot issue a certificate for " + commonName + ": " + e, e);
    }
  }

  /** The first certificate of a PEM text, as Bouncy Castle reads it. */
  private static X509CertificateHolder holder(String pem) throws IOException {
    return new X509CertificateHolder(Pem.read(pem, "CERTIFICATE"));
  }

  /** The common name of a certificate's subject, or empty. */
  private static Optional<String> commonName(X500Name subject) {
    return java.util.Arrays.stream(subject.getRDNs(BCStyle.CN))
        .findFirst()
        .map(rdn -> rdn.getFirst().getValue().toString());
  }

  private static Instant renewal(Instant from, Instant to) {
    return from.plus(Duration.between(from, to).multipliedBy(2).dividedBy(3));
  }

  /** What Cellar reads of a certificate once parsed: when it is valid, and whom it names. */
  public record Facts(Instant notBefore, Instant notAfter, Optional<String> commonName) {
    /** When a certificate Cellar issued is renewed: two thirds into its validity. */
    public Instant renewal() {
      return Certificates.renewal(notBefore, notAfter);
    }
  }

  /**
   * The facts of the first certificate of a PEM text; {@link IllegalArgumentException} when it
   * holds none. Remembered by the text: the status, the reload of the pods and the CA's check read
   * every Database's certificates on every reconcile, and parsing them was 4.5 % of the operator's
   * CPU while 500 Databases converged (the JDK's own cache of parsed certificates holds 750, fewer
   * than such a namespace has). The facts are small; the parsed certificates are not kept, nor the
   * PEM texts, each a new string decoded from its Secret on every read: remembered by their digest,
   * not by themselves (about 3 KB a Database at 1,000: docs/performance.md, Certificates checked
   * once).
   */
  public static Facts facts(String pem) {
    return FACTS.get(digest(pem), () -> facts(read(pem)));
  }

  private static Facts facts(X509CertificateHolder cert) {
    return new Facts(
        cert.getNotBefore().toInstant(),
        cert.getNotAfter().toInstant(),
        commonName(cert.getSubject()));
  }

  private static final Memo<Digest, Facts> FACTS = new Memo<>(8192);

  /**
   * Why the server certificate {@code certificate} (PEM) must be replaced, for a Database whose
   * names are {@code dnsNames} and whose CA is {@code caCertificate}; empty when it is still good.
   */
  public static Optional<String> replacementReason(
      String certificate,
      String privateKey,
      String caCertificate,
      List<String> dnsNames,
      Instant now) {
    Checked checked =
        CHECKED.get(
            digest(certificate, privateKey, caCertificate, String.join(",", dnsNames)),
            () -> check(certificate, privateKey, caCertificate, dnsNames));
    if (checked.problem().isPresent()) {
      return checked.problem();
    }
    if (!now.isBefore(checked.renewal())) {
      return Optional.of("it is due for renewal (it expires " + checked.expiry() + ")");
    }
    return Optional.empty();
  }

  /**
   * What the checks of a certificate found, apart from the time: its problem if any, else when it
   * is renewed. The checks (its signature verified, a probe signed with its key) are P-256
   * operations that every reconcile of every Database repeated for an unchanged Secret: a fifth of
   * the operator's CPU while 500 Databases converged (docs/performance.md, Certificates checked
   * once). Remembered by a digest of what was checked.
   */
  private record Checked(Optional<String> problem, Instant renewal, Instant expiry) {}

  private static final Memo<Digest, Checked> CHECKED = new Memo<>(8192);

  private static Checked check(
      String certificate, String privateKey, String caCertificate, List<String> dnsNames) {
    X509CertificateHolder cert;
    X509CertificateHolder ca;
    PublicKey publicKey;
    PublicKey caKey;
    try {
      cert = read(certificate);
      ca = read(caCertificate);
      publicKey = KEYS.getPublicKey(cert.getSubjectPublicKeyInfo());
      caKey = KEYS.getPublicKey(ca.getSubjectPublicKeyInfo());
      privateKey(privateKey);
    } catch (RuntimeException | IOException e) {
      return problem("it cannot be read (" + e.getMessage() + ")");
    }
    try {
      if (!cert.isSignatureValid(new JcaContentVerifierProviderBuilder().build(caKey))) {
        return problem("it is not signed by the Database's CA");
      }
    } catch (CertException | OperatorCreationException | RuntimeException e) {
      return problem("it is not signed by the Database's CA");
    }
    if (!keyMatches(publicKey, privateKey)) {
      return problem("its key does not match it");
    }
    Set<String> names = dnsNames(cert);
    List<String> missing = dnsNames.stream().filter(n -> !names.contains(n)).toList();
    if (!missing.isEmpty()) {
      return problem("it does not name " + String.join(", ", missing));
    }
    Instant notAfter = cert.getNotAfter().toInstant();
    return new Checked(
        Optional.empty(), renewal(cert.getNotBefore().toInstant(), notAfter), notAfter);
  }

  /** Public keys as the JDK's providers read them (Bouncy Castle's are not registered). */
  private static final JcaPEMKeyConverter KEYS = new JcaPEMKeyConverter();

  private static Checked problem(String problem) {
    return new Checked(Optional.of(problem), Instant.MAX, Instant.MAX);
  }

  /**
   * The memos' key for the parts: SipHash-128 of the parts, each preceded by its length (no two
   * lists give the same bytes), under a key drawn at each start: without it, nobody can make two
   * texts share a key. SHA-256, which these keys were before, was 2.8 % of the operator's CPU while
   * 500 Databases converged: C1, the operator's only compiler, has no intrinsic for it
   * (docs/performance.md, Certificates checked once). A key is two longs, not a string.
   */
  static Digest digest(String... parts) {
    SipHash128 mac = new SipHash128();
    mac.init(DIGEST_KEY);
    byte[] length = new byte[Integer.BYTES];
    for (String part : parts) {
      byte[] bytes = part == null ? new byte[0] : part.getBytes(StandardCharsets.UTF_8);
      ByteBuffer.wrap(length).putInt(bytes.length);
      mac.update(length, 0, length.length);
      mac.update(bytes, 0, bytes.length);
    }
    byte[] out = new byte[mac.getMacSize()];
    mac.doFinal(out, 0);
    ByteBuffer read = ByteBuffer.wrap(out);
    return new Digest(read.getLong(), read.getLong());
  }

  /** A memo's key: the 128 bits of {@link #digest}. */
  record Digest(long high, long low) {}

  private static final KeyParameter DIGEST_KEY = digestKey();

  private static KeyParameter digestKey() {
    byte[] key = new byte[16];
    new SecureRandom().nextBytes(key);
    return new KeyParameter(key);
  }

  /** An IPv4 address among a certificate's names. */
  private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");

  /** A DNS name, or an IP address (such as 127.0.0.1, for clients inside the pod). */
  private static GeneralName generalName(String name) {
    return IPV4.matcher(name).matches() || name.contains(":")
        ? new GeneralName(GeneralName.iPAddress, name)
        : new GeneralName(GeneralName.dNSName, name);
  }

  /** The DNS names and IP addresses of a certificate's subjectAltName, as the JDK writes them. */
  private static Set<String> dnsNames(X509CertificateHolder cert) {
    Set<String> names = new HashSet<>();
    GeneralNames sans =
        GeneralNames.fromExtensions(cert.getExtensions(), Extension.subjectAlternativeName);
    for (GeneralName name : sans == null ? new GeneralName[0] : sans.getNames()) {
      if (name.getTagNo() == GeneralName.dNSName) {
        names.add(ASN1IA5String.getInstance(name.getName()).getString());
      } else if (name.getTagNo() == GeneralName.iPAddress) {
        try {
          names.add(
              InetAddress.getByAddress(ASN1OctetString.getInstance(name.getName()).getOctets())
                  .getHostAddress());
        } catch (UnknownHostException e) {
          // not an address: no name
        }
      }
    }
    return names;
  }

  /**
   * The first certificate of a PEM text, as Bouncy Castle reads it: what the operator reads of a
   * certificate. The JDK's {@code CertificateFactory} keeps the last 750 certificates it parsed,
   * decoded (about 5 KB each), which Cellar never asks for again: 3.7 MB of the live heap from 375
   * Databases on (docs/performance.md, Certificates checked once).
   */
  private static X509CertificateHolder read(String pem) {
    try {
      return holder(pem);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not a PEM certificate: " + e.getMessage(), e);
    }
  }

  /** A PKCS#8 private key ("BEGIN PRIVATE KEY"), EC. */
  static PrivateKey privateKey(String pem) {
    try {
      return KeyFactory.getInstance("EC")
          .generatePrivate(new PKCS8EncodedKeySpec(Pem.read(pem, "PRIVATE KEY")));
    } catch (GeneralSecurityException | IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("not a PKCS#8 EC private key", e);
    }
  }

  private static boolean keyMatches(PublicKey publicKey, String privateKeyPem) {
    try {
      PrivateKey key = privateKey(privateKeyPem);
      byte[] probe = "cellar".getBytes(StandardCharsets.US_ASCII);
      var signer = java.security.Signature.getInstance("SHA256withECDSA");
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      var verifier = java.security.Signature.getInstance("SHA256withECDSA");
      verifier.initVerify(publicKey);
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  private static X500Name name(String commonName) {
    // A common name is at most 64 characters (RFC 5280); the SANs carry the full names.
    String cn = commonName.length() > 64 ? commonName.substring(0, 64) : commonName;
    return new X500NameBuilder(BCStyle.INSTANCE)
        .addRDN(BCStyle.O, "cellar")
        .addRDN(BCStyle.CN, cn)
        .build();
  }

  private static String pem(X509CertificateHolder cert) throws IOException {
    return Pem.write("CERTIFICATE", cert.getEncoded());
  }
}
