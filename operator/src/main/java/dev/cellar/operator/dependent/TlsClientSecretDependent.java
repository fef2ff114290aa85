package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.names.Keys.Credentials;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.credentials.CredentialsSecret;
import dev.cellar.operator.tls.Certificates;
import dev.cellar.operator.topology.Topology;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application user's client certificate Secret {@code <name>-client-tls}, when
 * spec.tls.clientCertificates asks for one: signed by the Database's CA, its common name the
 * credentials Secret's username (PostgreSQL's clientcert=verify-full compares the two). It is good
 * while it is signed by the CA, names the current user and is less than two thirds through its
 * validity; a renamed user gets a new one. Clients mount it; so do PostgreSQL backup Jobs, which
 * connect as that user.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class TlsClientSecretDependent extends IssuedCertificateSecret {
  private static final Logger log = LoggerFactory.getLogger(TlsClientSecretDependent.class);

  @Override
  protected String childName(Topology topology) {
    return topology.clientTlsSecret();
  }

  @Override
  Optional<String> replacementReason(
      Topology topology,
      Map<String, String> values,
      Certificates.Issued ca,
      Context<Database> ctx) {
    String cert = values.get(Keys.Tls.CERTIFICATE);
    Optional<String> reason =
        Certificates.replacementReason(
            cert, values.get(Keys.Tls.KEY), ca.certificate(), List.of(), Instant.now());
    if (reason.isEmpty()) {
      String user = user(topology, ctx);
      if (!Objects.equals(Certificates.facts(cert).commonName().orElse(null), user)) {
        reason = Optional.of("it does not name the user " + user);
      }
    }
    reason.ifPresent(
        r -> log.info("renewing the client certificate {}: {}", topology.clientTlsSecret(), r));
    return reason;
  }

  @Override
  Certificates.Issued issue(Topology topology, Certificates.Issued ca, Context<Database> context) {
    return Certificates.newClient(
        ca, user(topology, context), Instant.now(), Certificates.serverValidity());
  }

  /** The application user, from the credentials Secret (Cellar's or the user's). */
  private static String user(Topology topology, Context<Database> context) {
    return CredentialsSecret.read(topology, context)
        .map(CredentialsSecret::values)
        .map(v -> v.get(Credentials.USERNAME))
        .filter(u -> !u.isBlank())
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "the credentials Secret "
                        + topology.credentialsSecret()
                        + " has no username yet, which the client certificate names"));
  }
}
