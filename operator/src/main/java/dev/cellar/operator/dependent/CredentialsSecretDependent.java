package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.names.Keys.Credentials;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.tls.TlsSecrets;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The credentials Secret: created once with random passwords and never rewritten. A Secret that
 * already exists under its name (the user's own, or one retained from a deleted Database) is used
 * as it is.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class CredentialsSecretDependent extends DatabaseChild<Secret>
    implements Creator<Secret, Database> {
  public static final String APP_USER = "app";
  public static final String REPLICATION_USER = "replicator";
  static final int PASSWORD_LENGTH = 32;
  private static final String ALPHABET =
      "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  public CredentialsSecretDependent() {
    super(Secret.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.credentialsSecret();
  }

  /** This informer is every Secret dependent's (the workflow's useEventSourceWithName). */
  @Override
  protected Set<String> informerNames(Topology topology) {
    return Set.of(
        topology.credentialsSecret(),
        topology.monitoringSecret(),
        topology.caSecret(),
        topology.tlsSecret(),
        topology.clientTlsSecret());
  }

  @Override
  protected Secret desired(Database db, Context<Database> context) {
    Topology topology = Topology.of(db);
    EngineProfile profile = topology.profile();
    String password = password();
    String host = topology.primaryHost();
    String port = String.valueOf(profile.port());
    Map<String, String> values = new LinkedHashMap<>();
    values.put(Credentials.USERNAME, APP_USER);
    values.put(Credentials.PASSWORD, password);
    values.put(Credentials.ROOT_PASSWORD, password());
    values.put(Credentials.DATABASE, topology.databaseName());
    values.put(Credentials.REPLICATION_USER, REPLICATION_USER);
    values.put(Credentials.REPLICATION_PASSWORD, password());
    values.put(Credentials.HOST, host);
    values.put(Credentials.PORT, port);
    values.put(
        Credentials.URI,
        profile.uri(
            APP_USER, password, host, port, topology.databaseName(), EngineProfile.tlsOn(db)));
    Map<String, String> data = new LinkedHashMap<>();
    // data, not stringData: JOSDK compares Secrets by their data.
    values.forEach(
        (k, v) ->
            data.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
    return new SecretBuilder()
        .withMetadata(dataMetadata(db, Keys.Component.DATABASE))
        .withType("Opaque")
        .withData(data)
        .build();
  }

  @Override
  public Secret create(Secret desired, Database db, Context<Database> context) {
    // With TLS on, the CA clients verify with from the start: patched in later, it cost a write.
    TlsSecrets.caForNewCredentials(db, context)
        .ifPresent(
            ca ->
                desired
                    .getData()
                    .put(
                        Credentials.CA_CERTIFICATE,
                        Base64.getEncoder().encodeToString(ca.getBytes(StandardCharsets.UTF_8))));
    // The informer sees only Cellar's Secrets; a user's Secret of that name is used as it is.
    return createOrTake(desired, db, context, existing -> existing);
  }

  static String password() {
    StringBuilder password = new StringBuilder(PASSWORD_LENGTH);
    for (int i = 0; i < PASSWORD_LENGTH; i++) {
      password.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return password.toString();
  }
}
