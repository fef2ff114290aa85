package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The exporter's account, Secret {@code <name>-monitoring}: created once with a random password and
 * never rewritten, kept or deleted with the data (deletionPolicy), whether or not the exporter runs
 * (the primary creates the account either way, so turning monitoring on needs no new password). A
 * Secret that already exists under that name is used as it is.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class MonitoringSecretDependent extends DatabaseChild<Secret>
    implements Creator<Secret, Database> {
  public static final String MONITORING_USER = "cellar_monitor";

  public MonitoringSecretDependent() {
    super(Secret.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.monitoringSecret();
  }

  @Override
  protected Secret desired(Database db, Context<Database> context) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put(Keys.Monitoring.USER, MONITORING_USER);
    values.put(Keys.Monitoring.PASSWORD, CredentialsSecretDependent.password());
    return new SecretBuilder()
        .withMetadata(dataMetadata(db, Keys.Component.DATABASE))
        .withType("Opaque")
        .withData(TlsServerSecretDependent.encode(values))
        .build();
  }

  @Override
  public Secret create(Secret desired, Database db, Context<Database> context) {
    // A Secret of that name without Cellar's labels is not in the informer: used as it is.
    return createOrTake(desired, db, context, existing -> existing);
  }
}
