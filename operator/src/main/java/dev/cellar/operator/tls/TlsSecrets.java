package dev.cellar.operator.tls;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.credentials.CredentialsSecret;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** Reading the TLS Secrets of a Database: from the informer cache, else from the API server. */
public final class TlsSecrets {
  private TlsSecrets() {}

  /** Where one reconcile keeps the CA it issues. */
  private static final String NEW_CA_KEY = TlsSecrets.class.getName() + ".newCa";

  /**
   * The CA that a new CA Secret is created with: issued once per reconcile, so that the credentials
   * Secret, created in parallel in the same reconcile, carries its ca.crt from the start instead of
   * being patched right after (a write per Database).
   */
  public static Certificates.Issued newCa(Database db, Context<Database> context) {
    var shared = context.managedWorkflowAndDependentResourceContext();
    synchronized (shared) {
      Optional<Certificates.Issued> issued = shared.get(NEW_CA_KEY, Certificates.Issued.class);
      if (issued.isPresent()) {
        return issued.get();
      }
      Topology topology = Topology.of(db);
      Certificates.Issued ca =
          Certificates.newCa(
              "cellar " + topology.namespace() + "/" + db.getMetadata().getName() + " CA",
              Instant.now());
      shared.put(NEW_CA_KEY, ca);
      return ca;
    }
  }

  /**
   * The ca.crt to create a new credentials Secret with: the CA Secret's in the cache, else the one
   * this reconcile issues; the user's certificate Secret's when the user brings one. Only a first
   * guess: {@link TlsCredentials#sync} corrects it when the CA Secret turns out to hold another
   * (one the user made under that name, which the cache does not hold).
   */
  public static Optional<String> caForNewCredentials(Database db, Context<Database> context) {
    Topology topology = Topology.of(db);
    if (!topology.tlsOn()) {
      return Optional.empty();
    }
    if (!topology.issuesCertificate()) {
      return read(topology, topology.serverCertificateSecret(), context)
          .map(s -> CredentialsSecret.values(s).get(Keys.Tls.CA_CERTIFICATE));
    }
    return context.getSecondaryResources(Secret.class).stream()
        .filter(s -> s.getMetadata().getName().equals(topology.caSecret()))
        .findFirst()
        .map(s -> CredentialsSecret.values(s).get(Keys.Tls.CA_CERTIFICATE))
        .or(() -> Optional.of(newCa(db, context).certificate()));
  }

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
      Certificates.facts(cert);
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
