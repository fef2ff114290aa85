package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Keys;
import dev.cellar.operator.Topology;
import dev.cellar.operator.credentials.CredentialsSecret;
import dev.cellar.operator.tls.Certificates;
import dev.cellar.operator.tls.TlsSecrets;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server certificate Secret {@code <name>-tls} (type kubernetes.io/tls: tls.crt, tls.key,
 * ca.crt) that the database pods mount, signed by the Database's CA. Its desired state is the
 * Secret as it is while its certificate is good (signed by the CA, naming every name of {@link
 * Topology#tlsDnsNames}, less than two thirds through its validity), so a converged Database costs
 * no write; otherwise a new certificate. The status step schedules a reconcile at the renewal time.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class TlsServerSecretDependent extends OwnedChild<Secret> {
  private static final Logger log = LoggerFactory.getLogger(TlsServerSecretDependent.class);

  public TlsServerSecretDependent() {
    super(Secret.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.tlsSecret();
  }

  @Override
  protected Secret desired(Database db, Context<Database> context) {
    Topology topology = Topology.of(db);
    Certificates.Issued ca =
        TlsSecrets.ca(topology, context)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "the CA Secret " + topology.caSecret() + " does not exist yet"));
    Optional<Secret> existing = getSecondaryResource(db, context);
    Map<String, String> data =
        existing
            .filter(s -> good(topology, s, ca))
            .map(Secret::getData)
            .orElseGet(() -> issue(topology, ca));
    return new SecretBuilder()
        .withMetadata(metadata(db, Keys.Component.DATABASE))
        .withType(Keys.Tls.SECRET_TYPE)
        .withData(data)
        .build();
  }

  /**
   * Owned (it goes with the Database), and annotated with its Database like the credentials Secret:
   * the two share the credentials' informer, whose secondary-to-primary mapping reads those
   * annotations (JOSDK puts them only on children it does not own).
   */
  @Override
  protected void addReferenceHandlingMetadata(Secret desired, Database db) {
    super.addReferenceHandlingMetadata(desired, db);
    addSecondaryToPrimaryMapperAnnotations(desired, db);
  }

  /**
   * A Secret of that name that the informer does not map to the Database (written before it was
   * annotated) is taken over: updated to the desired state rather than created again.
   */
  @Override
  public Secret create(Secret desired, Database db, Context<Database> context) {
    Topology topology = Topology.of(db);
    Secret existing =
        context
            .getClient()
            .secrets()
            .inNamespace(topology.namespace())
            .withName(topology.tlsSecret())
            .get();
    return existing == null
        ? super.create(desired, db, context)
        : super.update(existing, desired, db, context);
  }

  private static boolean good(Topology topology, Secret secret, Certificates.Issued ca) {
    Map<String, String> values = CredentialsSecret.values(secret);
    String cert = values.get(Keys.Tls.CERTIFICATE);
    String key = values.get(Keys.Tls.KEY);
    if (cert == null
        || key == null
        || !ca.certificate().equals(values.get(Keys.Tls.CA_CERTIFICATE))
        || !Keys.Tls.SECRET_TYPE.equals(secret.getType())) {
      return false;
    }
    Optional<String> reason =
        Certificates.replacementReason(
            cert, key, ca.certificate(), topology.tlsDnsNames(), Instant.now());
    reason.ifPresent(
        r -> log.info("renewing the server certificate {}: {}", topology.tlsSecret(), r));
    return reason.isEmpty();
  }

  private static Map<String, String> issue(Topology topology, Certificates.Issued ca) {
    Certificates.Issued server =
        Certificates.newServer(
            ca, topology.tlsDnsNames(), Instant.now(), Certificates.serverValidity());
    Map<String, String> values = new TreeMap<>();
    values.put(Keys.Tls.CERTIFICATE, server.certificate());
    values.put(Keys.Tls.KEY, server.privateKey());
    values.put(Keys.Tls.CA_CERTIFICATE, ca.certificate());
    return encode(values);
  }

  /** Secret data, base64: JOSDK compares Secrets by their data. */
  static Map<String, String> encode(Map<String, String> values) {
    Map<String, String> data = new TreeMap<>();
    values.forEach(
        (k, v) ->
            data.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
    return data;
  }
}
