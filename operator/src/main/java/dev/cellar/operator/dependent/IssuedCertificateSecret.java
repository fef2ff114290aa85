package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.credentials.CredentialsSecret;
import dev.cellar.operator.tls.Certificates;
import dev.cellar.operator.tls.TlsSecrets;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A Secret of type kubernetes.io/tls (tls.crt, tls.key, ca.crt) holding a certificate Cellar issues
 * with the Database's CA. Its desired state is the Secret as it is while its certificate is good
 * ({@link #replacementReason} empty), so a converged Database costs no write; otherwise a new
 * certificate. The status step schedules a reconcile at the renewal time.
 */
abstract class IssuedCertificateSecret extends OwnedChild<Secret> {
  IssuedCertificateSecret() {
    super(Secret.class);
  }

  /** Why the certificate in {@code values} (decoded) must be replaced; empty while it is good. */
  abstract Optional<String> replacementReason(
      Topology topology, Map<String, String> values, Certificates.Issued ca, Context<Database> ctx);

  /** A new certificate and key. */
  abstract Certificates.Issued issue(
      Topology topology, Certificates.Issued ca, Context<Database> context);

  @Override
  protected Secret desired(Database db, Context<Database> context) {
    Topology topology = Topology.of(db);
    Certificates.Issued ca =
        TlsSecrets.ca(topology, context)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "the CA Secret " + topology.caSecret() + " does not exist yet"));
    Map<String, String> data =
        getSecondaryResource(db, context)
            .filter(s -> good(topology, s, ca, context))
            .map(Secret::getData)
            .orElseGet(
                () -> {
                  Certificates.Issued issued = issue(topology, ca, context);
                  Map<String, String> values = new TreeMap<>();
                  values.put(Keys.Tls.CERTIFICATE, issued.certificate());
                  values.put(Keys.Tls.KEY, issued.privateKey());
                  values.put(Keys.Tls.CA_CERTIFICATE, ca.certificate());
                  return encode(values);
                });
    return new SecretBuilder()
        .withMetadata(metadata(db, Keys.Component.DATABASE))
        .withType(Keys.Tls.SECRET_TYPE)
        .withData(data)
        .build();
  }

  /**
   * Owned (it goes with the Database), and annotated with its Database like the credentials Secret:
   * they share the credentials' informer, whose secondary-to-primary mapping reads those
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
    return createOrTake(
        desired, db, context, existing -> super.update(existing, desired, db, context));
  }

  private boolean good(
      Topology topology, Secret secret, Certificates.Issued ca, Context<Database> context) {
    Map<String, String> values = CredentialsSecret.values(secret);
    if (values.get(Keys.Tls.CERTIFICATE) == null
        || values.get(Keys.Tls.KEY) == null
        || !ca.certificate().equals(values.get(Keys.Tls.CA_CERTIFICATE))
        || !Keys.Tls.SECRET_TYPE.equals(secret.getType())) {
      return false;
    }
    return replacementReason(topology, values, ca, context).isEmpty();
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
