package dev.cellar.operator.credentials;

import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Whether the credentials Secret holds every key the pods and backup Jobs read. A Secret the user
 * brought is used as it is, so a missing key would otherwise surface only as a pod that cannot
 * start. The keys required are exactly those the engine profile's non-optional Secret references
 * name, so the check cannot drift from what the pods read.
 */
public final class CredentialsCheck {
  private CredentialsCheck() {}

  /** What is wrong with {@code secret} for {@code topology}'s pods, if anything. */
  public static Optional<String> problem(Topology topology, Secret secret) {
    String name = topology.credentialsSecret();
    var profile = topology.profile();
    Map<String, String> data = Optional.ofNullable(secret.getData()).orElse(Map.of());
    Map<String, String> stringData = Optional.ofNullable(secret.getStringData()).orElse(Map.of());
    var missing = new TreeSet<String>();
    Stream.concat(
            profile.env(name, topology.wantedVersion()).stream(), profile.dumpEnv(name).stream())
        .map(EnvVar::getValueFrom)
        .filter(Objects::nonNull)
        .map(EnvVarSource::getSecretKeyRef)
        .filter(Objects::nonNull)
        .filter(ref -> !Boolean.TRUE.equals(ref.getOptional()))
        .map(SecretKeySelector::getKey)
        .filter(key -> !data.containsKey(key) && !stringData.containsKey(key))
        .forEach(missing::add);
    if (missing.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "Secret "
            + name
            + " lacks the key(s) "
            + String.join(", ", missing)
            + " that the database pods read; add them (kubectl edit secret "
            + name
            + ") or delete the Secret so that Cellar generates one");
  }
}
