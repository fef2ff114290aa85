package dev.cellar.operator.tls;

import dev.cellar.api.names.Keys;
import dev.cellar.api.names.Keys.Credentials;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.credentials.CredentialsSecret;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.guard.WriteBudget;
import dev.cellar.operator.runtime.PatchByName;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The credentials Secret's part of TLS: {@code ca.crt}, the CA that signs the servers' certificate,
 * and a {@code uri} that verifies the server. The Secret is otherwise never rewritten (its
 * passwords are the user's once created): only these two keys are patched, only in Cellar's own
 * Secret (a user's Secret is theirs), the uri only while it is one Cellar wrote (built from the
 * Secret's own user, password, host, port and database, with or without the TLS query), and the
 * patch tests that the password is still the one the uri was built from, so a concurrent password
 * change is never lost.
 */
public final class TlsCredentials {
  private TlsCredentials() {}

  /**
   * How soon to look again when the CA could not be read yet. A user's certificate Secret is not
   * watched, and the status reads it later in the same reconcile: created in between, the status
   * says all is well while ca.crt is still missing, and no event would come to add it.
   */
  static final Duration CA_PENDING_RECHECK = Duration.ofSeconds(5);

  /**
   * Patches ca.crt and the uri of {@code db}'s credentials Secret when they differ; a recheck when
   * TLS is on but its CA cannot be read yet.
   */
  public static Optional<Duration> sync(Database db, Context<Database> context) {
    Topology topology = Topology.of(db);
    Optional<Secret> secret = CredentialsSecret.read(topology, context);
    if (secret.isEmpty() || !ours(secret.get())) {
      return Optional.empty();
    }
    Map<String, String> values = CredentialsSecret.values(secret.get());
    Optional<String> ca = wantedCa(topology, context);
    if (topology.tlsOn() && ca.isEmpty()) {
      // Cellar's CA Secret is being created, or the user's certificate Secret is missing.
      return Optional.of(CA_PENDING_RECHECK);
    }
    String uri = values.get(Credentials.URI);
    String wantedUri = wantedUri(topology.profile(), values, topology.tlsOn()).orElse(uri);
    if (Objects.equals(values.get(Credentials.CA_CERTIFICATE), ca.orElse(null))
        && Objects.equals(uri, wantedUri)) {
      return Optional.empty();
    }
    List<String> ops = new ArrayList<>();
    Map<String, String> data = Optional.ofNullable(secret.get().getData()).orElse(Map.of());
    if (data.containsKey(Credentials.PASSWORD)) {
      ops.add(op("test", Credentials.PASSWORD, data.get(Credentials.PASSWORD)));
    }
    if (ca.isPresent()) {
      ops.add(op("add", Credentials.CA_CERTIFICATE, encode(ca.get())));
    } else if (data.containsKey(Credentials.CA_CERTIFICATE)) {
      ops.add("{\"op\":\"remove\",\"path\":\"/data/" + pointer(Credentials.CA_CERTIFICATE) + "\"}");
    }
    if (wantedUri != null && !wantedUri.equals(uri) && data.containsKey(Credentials.URI)) {
      ops.add(op("test", Credentials.URI, data.get(Credentials.URI)));
      ops.add(op("replace", Credentials.URI, encode(wantedUri)));
    }
    WriteBudget.spend(db, "Secret " + topology.credentialsSecret() + " (ca.crt, uri)");
    PatchByName.send(
        context.getClient(),
        Secret.class,
        topology.namespace(),
        topology.credentialsSecret(),
        PatchType.JSON,
        "[" + String.join(",", ops) + "]");
    return Optional.empty();
  }

  /**
   * The uri Cellar would write for the Secret's values, with or without TLS; empty when the
   * Secret's uri is not one Cellar wrote (the user's own, kept as it is).
   */
  static Optional<String> wantedUri(
      EngineProfile profile, Map<String, String> values, boolean tls) {
    String user = values.get(Credentials.USERNAME);
    String password = values.get(Credentials.PASSWORD);
    String host = values.get(Credentials.HOST);
    String port = values.get(Credentials.PORT);
    String database = values.get(Credentials.DATABASE);
    String uri = values.get(Credentials.URI);
    if (Objects.isNull(user)
        || Objects.isNull(password)
        || Objects.isNull(host)
        || Objects.isNull(port)
        || Objects.isNull(database)
        || Objects.isNull(uri)) {
      return Optional.empty();
    }
    String plain = profile.uri(user, password, host, port, database, false);
    String verified = profile.uri(user, password, host, port, database, true);
    if (!uri.equals(plain) && !uri.equals(verified)) {
      return Optional.empty();
    }
    return Optional.of(tls ? verified : plain);
  }

  /** The CA clients verify the servers with: the Database's own, or the user's Secret's ca.crt. */
  private static Optional<String> wantedCa(Topology topology, Context<Database> context) {
    if (!topology.tlsOn()) {
      return Optional.empty();
    }
    String from =
        topology.issuesCertificate() ? topology.caSecret() : topology.serverCertificateSecret();
    return TlsSecrets.read(topology, from, context)
        .map(CredentialsSecret::values)
        .map(v -> v.get(Keys.Tls.CA_CERTIFICATE));
  }

  private static boolean ours(Secret secret) {
    return Keys.OPERATOR.equals(
        Optional.ofNullable(secret.getMetadata().getLabels())
            .map(l -> l.get(Keys.MANAGED_BY))
            .orElse(null));
  }

  private static String op(String op, String key, String value) {
    return "{\"op\":\""
        + op
        + "\",\"path\":\"/data/"
        + pointer(key)
        + "\",\"value\":\""
        + value
        + "\"}";
  }

  /** A JSON pointer token: ~ and / escaped (keys such as ca.crt need neither, but be exact). */
  private static String pointer(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }

  private static String encode(String value) {
    return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
  }
}
