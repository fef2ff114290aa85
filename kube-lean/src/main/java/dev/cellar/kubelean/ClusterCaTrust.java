package dev.cellar.kubelean;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.internal.CertUtils;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The client trusts the API server's CA alone where its configuration names one, as kubectl does.
 * fabric8 merges that CA into the JDK's trust store, and its trust managers then hold the JDK's 140
 * or so certificates, decoded, for the life of the client: about 100 ms at start and 1.7 MB of heap
 * (docs/performance.md, The API server's CA alone) for certificates the API server never presents.
 * A configuration that trusts every certificate, or names a trust store of its own, keeps fabric8's
 * trust as it is.
 */
final class ClusterCaTrust {
  private ClusterCaTrust() {}

  /** Whether {@code config} names a CA, and nothing that asks for fabric8's own trust. */
  static boolean applies(Config config) {
    return !config.isTrustCerts()
        && config.getTrustStoreFile() == null
        && (named(config.getCaCertData()) || named(config.getCaCertFile()));
  }

  private static boolean named(String value) {
    return value != null && !value.isBlank();
  }

  /** Replaces {@code builder}'s trust with the configured CA alone, where {@link #applies}. */
  static void apply(Config config, HttpClient.Builder builder) {
    if (!applies(config)) {
      return;
    }
    try {
      builder.sslContext(SSLUtils.keyManagers(config), trustManagers(config));
    } catch (IOException | GeneralSecurityException e) {
      // fabric8 read the same files a moment ago; if they cannot be read now, its trust stands.
    }
  }

  /** Trust managers that trust the certificates of the configured CA and no others. */
  static TrustManager[] trustManagers(Config config) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    Collection<? extends Certificate> certificates;
    try (InputStream in =
        CertUtils.getInputStreamFromDataOrFile(config.getCaCertData(), config.getCaCertFile())) {
      certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
    }
    if (certificates.isEmpty()) {
      throw new GeneralSecurityException("no certificate in the configured CA");
    }
    int i = 0;
    for (Certificate certificate : certificates) {
      store.setCertificateEntry("cluster-ca-" + i++, certificate);
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    return factory.getTrustManagers();
  }
}
