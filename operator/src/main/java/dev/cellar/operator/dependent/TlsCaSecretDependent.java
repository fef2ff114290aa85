package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.tls.Certificates;
import dev.cellar.operator.tls.TlsSecrets;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Map;

/**
 * The Database's CA Secret {@code <name>-ca} (ca.crt, ca.key): created once and never rewritten,
 * like the credentials, and kept or deleted with them (deletionPolicy), so a recreated Database
 * keeps the CA its clients trust. A Secret that already exists under that name is used as it is (a
 * CA of the user's own).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class TlsCaSecretDependent extends DatabaseChild<Secret>
    implements Creator<Secret, Database> {

  public TlsCaSecretDependent() {
    super(Secret.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.caSecret();
  }

  @Override
  protected Secret desired(Database db, Context<Database> context) {
    Certificates.Issued ca = TlsSecrets.newCa(db, context);
    return new SecretBuilder()
        .withMetadata(dataMetadata(db, Keys.Component.DATABASE))
        .withType("Opaque")
        .withData(
            IssuedCertificateSecret.encode(
                Map.of(
                    Keys.Tls.CA_CERTIFICATE, ca.certificate(), Keys.Tls.CA_KEY, ca.privateKey())))
        .build();
  }

  @Override
  public Secret create(Secret desired, Database db, Context<Database> context) {
    // A Secret of that name without Cellar's labels is not in the informer: used as it is.
    return createOrTake(desired, db, context, existing -> existing);
  }
}
