package dev.cellar.operator.credentials;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The credentials Secret the pods read, and its values. */
public final class CredentialsSecret {
  private CredentialsSecret() {}

  /** Where one reconcile keeps what it read, so the steps that need the Secret read it once. */
  private static final String CONTEXT_KEY = CredentialsSecret.class.getName();

  private record Read(Optional<Secret> secret) {}

  /**
   * The credentials Secret as the pods will read it: Cellar's own from the informer cache, a Secret
   * the user brought (without Cellar's labels, so not cached) read from the API server, once per
   * reconcile (the password rotation and the status both look at it).
   */
  public static Optional<Secret> read(Topology topology, Context<Database> context) {
    var shared = context.managedWorkflowAndDependentResourceContext();
    Optional<Read> earlier = shared.get(CONTEXT_KEY, Read.class);
    if (earlier.isPresent()) {
      return earlier.get().secret();
    }
    Optional<Secret> secret = lookUp(topology, context);
    shared.put(CONTEXT_KEY, new Read(secret));
    return secret;
  }

  private static Optional<Secret> lookUp(Topology topology, Context<Database> context) {
    return named(topology, topology.credentialsSecret(), context);
  }

  /**
   * The Secret {@code name} in the Database's namespace, if it exists: from the informer cache,
   * else from the API server (a Secret the user brings is not in the cache).
   */
  public static Optional<Secret> named(Topology topology, String name, Context<Database> context) {
    return context.getSecondaryResources(Secret.class).stream()
        .filter(s -> s.getMetadata().getName().equals(name))
        .findFirst()
        .or(
            () ->
                Optional.ofNullable(
                    context
                        .getClient()
                        .secrets()
                        .inNamespace(topology.namespace())
                        .withName(name)
                        .get()));
  }

  /** Every value of {@code secret}, decoded: data, then stringData (which wins, as on write). */
  public static Map<String, String> values(Secret secret) {
    Map<String, String> values = new LinkedHashMap<>();
    Optional.ofNullable(secret.getData())
        .orElse(Map.of())
        .forEach(
            (k, v) ->
                values.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
    Optional.ofNullable(secret.getStringData()).orElse(Map.of()).forEach(values::put);
    return values;
  }
}
