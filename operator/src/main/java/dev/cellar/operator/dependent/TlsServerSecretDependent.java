package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.tls.Certificates;
import dev.cellar.operator.topology.Topology;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server certificate Secret {@code <name>-tls} that the database pods mount, signed by the
 * Database's CA. It is good while it is signed by the CA, names every name of {@link
 * Topology#tlsDnsNames} and is less than two thirds through its validity.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class TlsServerSecretDependent extends IssuedCertificateSecret {
  private static final Logger log = LoggerFactory.getLogger(TlsServerSecretDependent.class);

  @Override
  protected String childName(Topology topology) {
    return topology.tlsSecret();
  }

  @Override
  Optional<String> replacementReason(
      Topology topology,
      Map<String, String> values,
      Certificates.Issued ca,
      Context<Database> ctx) {
    Optional<String> reason =
        Certificates.replacementReason(
            values.get(Keys.Tls.CERTIFICATE),
            values.get(Keys.Tls.KEY),
            ca.certificate(),
            topology.tlsDnsNames(),
            Instant.now());
    reason.ifPresent(
        r -> log.info("renewing the server certificate {}: {}", topology.tlsSecret(), r));
    return reason;
  }

  @Override
  Certificates.Issued issue(Topology topology, Certificates.Issued ca, Context<Database> context) {
    return Certificates.newServer(
        ca, topology.tlsDnsNames(), Instant.now(), Certificates.serverValidity());
  }
}
