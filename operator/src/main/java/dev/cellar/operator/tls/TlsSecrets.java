package dev.cellar.operator.tls;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Keys;
import dev.cellar.operator.Topology;
import dev.cellar.operator.credentials.CredentialsSecret;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Map;
import java.util.Optional;

/** Reading the TLS Secrets of a Database: from the informer cache, else from the API server. */
public final class TlsSecrets {
  private TlsSecrets() {}

  /** The Secret {@code name} in the Database's namespace, if it exists. */
  public static Optional<Secret> read(Topology topology, String name, Context<Database> context) {
    return CredentialsSecret.named(topology, name, context);
  }

  /** The Database's CA, from its CA Secret; empty when that Secret does not exist (yet). */
  public static Optional<Certificates.Issued> ca(Topology topology, Context<Database> context) {
    return read(topology, topology.caSecret(), context).map(s -> ca(topology, s));
  }

  /** The CA in {@code secret}; an error naming the Secret when it lacks a readable CA. */
  static Certificates.Issued ca(Topology topology, Secret secret) {
    Map<String, String> values = CredentialsSecret.values(secret);
    String cert = values.get(Keys.Tls.CA_CERTIFICATE);
    String key = values.get(Keys.Tls.CA_KEY);
    if (cert == null || key == null) {
      throw new IllegalStateException(
          "the CA Secret "
              + topology.caSecret()
              + " lacks "
              + Keys.Tls.CA_CERTIFICATE
              + " or "
              + Keys.Tls.CA_KEY
              + ": add them, or delete the Secret for Cellar to issue a new CA (clients must then"
              + " trust the new ca.crt)");
    }
    try {
      Certificates.parse(cert);
      Certificates.privateKey(key);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "the CA Secret "
              + topology.caSecret()
              + " holds no usable CA ("
              + e.getMessage()
              + "): fix it, or delete it for Cellar to issue a new CA",
          e);
    }
    return new Certificates.Issued(cert, key);
  }
}
