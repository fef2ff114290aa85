package dev.cellar.operator.tls;

import java.io.IOException;
import java.security.SecureRandom;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.generators.ECKeyPairGenerator;
import org.bouncycastle.crypto.params.ECKeyGenerationParameters;
import org.bouncycastle.crypto.params.ECNamedDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.bc.BcECContentSignerBuilder;

/**
 * P-256 keys and ECDSA signatures for the certificates Cellar issues, through Bouncy Castle's
 * lightweight API. The JDK's own P-256 code multiplies the base point without precomputed tables
 * and runs under C1 here; Bouncy Castle's curve uses a fixed-point comb, and makes a Database's CA
 * and server certificate in a third of the time (docs/performance.md, P-256 through Bouncy Castle).
 * Checking certificates stays with the JDK.
 */
final class P256 {
  private P256() {}

  private static final ASN1ObjectIdentifier CURVE_ID = SECObjectIdentifiers.secp256r1;
  private static final X9ECParameters CURVE = CustomNamedCurves.getByOID(CURVE_ID);

  /** Named, so that keys and certificates name the curve rather than spell out its parameters. */
  private static final ECNamedDomainParameters DOMAIN =
      new ECNamedDomainParameters(CURVE_ID, CURVE);

  /** ECDSA with SHA-256; its parameters are absent (RFC 5758). */
  private static final AlgorithmIdentifier SIGNATURE =
      new AlgorithmIdentifier(X9ObjectIdentifiers.ecdsa_with_SHA256);

  private static final AlgorithmIdentifier DIGEST =
      new AlgorithmIdentifier(NISTObjectIdentifiers.id_sha256);

  /** A key pair: the private key to sign with, the public key as a certificate carries it. */
  record Keys(ECPrivateKeyParameters privateKey, SubjectPublicKeyInfo publicKey) {
    /** The private key as PKCS#8 ("BEGIN PRIVATE KEY"), which OpenSSL, libpq and MariaDB read. */
    String privateKeyPem() throws IOException {
      PrivateKeyInfo info =
          new PrivateKeyInfo(
              new AlgorithmIdentifier(X9ObjectIdentifiers.id_ecPublicKey, CURVE_ID),
              new ECPrivateKey(
                  CURVE.getN().bitLength(), privateKey.getD(), publicKey.getPublicKeyData(), null));
      return Pem.write("PRIVATE KEY", info.getEncoded());
    }
  }

  static Keys generate(SecureRandom random) {
    ECKeyPairGenerator generator = new ECKeyPairGenerator();
    generator.init(new ECKeyGenerationParameters(DOMAIN, random));
    AsymmetricCipherKeyPair pair = generator.generateKeyPair();
    ECPublicKeyParameters publicKey = (ECPublicKeyParameters) pair.getPublic();
    return new Keys(
        (ECPrivateKeyParameters) pair.getPrivate(),
        new SubjectPublicKeyInfo(
            new AlgorithmIdentifier(X9ObjectIdentifiers.id_ecPublicKey, CURVE_ID),
            publicKey.getQ().getEncoded(false)));
  }

  /**
   * A PKCS#8 EC private key (a CA's), on the fast curve when it is P-256; another named curve is
   * read as Bouncy Castle's generic one and still signs.
   */
  static ECPrivateKeyParameters privateKey(String pem) throws IOException {
    if (!(PrivateKeyFactory.createKey(Pem.read(pem, "PRIVATE KEY"))
        instanceof ECPrivateKeyParameters key)) {
      throw new IOException("not an EC private key");
    }
    return key.getParameters() instanceof ECNamedDomainParameters named
            && CURVE_ID.equals(named.getName())
        ? new ECPrivateKeyParameters(key.getD(), DOMAIN)
        : key;
  }

  static ContentSigner signer(ECPrivateKeyParameters key) throws OperatorCreationException {
    return new BcECContentSignerBuilder(SIGNATURE, DIGEST).build(key);
  }
}
