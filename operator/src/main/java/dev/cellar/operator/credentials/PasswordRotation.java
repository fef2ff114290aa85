package dev.cellar.operator.credentials;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Keys;
import dev.cellar.api.names.Keys.Credentials;
import dev.cellar.api.v1.CredentialsStatus;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.facts.PodFacts;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.operator.primary.PodRoles;
import dev.cellar.operator.runtime.OperatorSettings;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the database servers' passwords in step with the credentials Secret. The official images
 * read their password variables only when they initialise an empty data directory, so a password
 * changed in the Secret would otherwise reach the pods' environment (at their next start) but never
 * the database. When the Secret's application and replication passwords differ from those recorded
 * in {@code status.credentials.appliedHash}, they are applied in the running servers with {@code
 * role.sh credentials} through pods/exec: the primary first (ALTER ROLE/USER), then each ready
 * replica (its own accounts where the engine keeps them per server, and the password it replicates
 * with). No pod restarts. Until every server has them, the hash stays and Degraded says why.
 */
public final class PasswordRotation {
  private static final Logger log = LoggerFactory.getLogger(PasswordRotation.class);

  /**
   * How soon to try again after a failure (nothing else would trigger a reconcile): the setting
   * CREDENTIALS_RETRY_SECONDS, 30 s unless set.
   */
  static Duration retry() {
    return OperatorSettings.ofProcess().credentialsRetry();
  }

  /** The Secret's keys that are applied in the servers, in the order the script reads them. */
  static final List<String> APPLIED_KEYS =
      List.of(
          Credentials.USERNAME,
          Credentials.PASSWORD,
          Credentials.REPLICATION_USER,
          Credentials.REPLICATION_PASSWORD);

  private PasswordRotation() {}

  /**
   * What the step found.
   *
   * @param applied the credentials status to record, empty to keep the previous one
   * @param failure why the Secret's passwords are not (all) in the servers, if they are not
   */
  public record Outcome(Optional<CredentialsStatus> applied, Optional<Failure> failure) {
    public static final Outcome NONE = new Outcome(Optional.empty(), Optional.empty());

    /** When to look again: a failed rotation is retried. */
    public Optional<Duration> recheck() {
      return failure.map(f -> retry());
    }
  }

  public static Outcome run(Database db, Context<Database> context, InstanceAgent agent) {
    Topology topology = Topology.of(db);
    return CredentialsSecret.read(topology, context)
        .map(
            secret ->
                run(
                    db,
                    secret,
                    List.copyOf(context.getSecondaryResources(Pod.class)),
                    agent,
                    Instant.now()))
        .orElse(Outcome.NONE);
  }

  static Outcome run(Database db, Secret secret, List<Pod> pods, InstanceAgent agent, Instant now) {
    Topology topology = Topology.of(db);
    if (CredentialsCheck.problem(topology, secret).isPresent()) {
      // Degraded names the missing keys already; nothing can be applied without them.
      return Outcome.NONE;
    }
    Map<String, String> values = CredentialsSecret.values(secret);
    String hash = hash(secret, values);
    Optional<CredentialsStatus> previous =
        Optional.ofNullable(db.getStatus()).map(DatabaseStatus::getCredentials);
    Optional<String> appliedHash = previous.map(CredentialsStatus::getAppliedHash);
    if (appliedHash.filter(hash::equals).isPresent()) {
      return Outcome.NONE;
    }
    String primary = topology.primaryPod();
    Optional<Pod> primaryPod =
        pods.stream()
            .filter(p -> p.getMetadata().getName().equals(primary))
            .filter(PodFacts::ready)
            .findFirst();
    if (appliedHash.isEmpty()) {
      // Servers that started from this Secret hold its passwords (the images set them when they
      // initialise): recorded once the primary runs.
      return primaryPod.isPresent()
          ? new Outcome(Optional.of(new CredentialsStatus(hash, null)), Optional.empty())
          : Outcome.NONE;
    }
    if (primaryPod.isEmpty()) {
      // Applied once it runs again; until then Available says why nothing serves.
      return Outcome.NONE;
    }
    String input = input(values);
    List<String> done = new ArrayList<>();
    List<Pod> order = new ArrayList<>();
    order.add(primaryPod.get());
    pods.stream()
        .filter(p -> !p.getMetadata().getName().equals(primary))
        .filter(PodFacts::ready)
        .filter(p -> Keys.ROLE_REPLICA.equals(PodRoles.roleOf(p).orElse(null)))
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
        .forEach(order::add);
    for (Pod pod : order) {
      String name = pod.getMetadata().getName();
      Optional<String> failed = agent.applyCredentials(topology.namespace(), name, input);
      if (failed.isPresent()) {
        String message =
            "the passwords of Secret "
                + topology.credentialsSecret()
                + " changed, but applying them in "
                + name
                + " failed: "
                + failed.get()
                + (done.isEmpty() ? "" : " (applied in " + String.join(", ", done) + ")")
                + "; retried every "
                + retry().toSeconds()
                + " s. Clients that use the new passwords are refused there until it succeeds;"
                + " see kubectl logs "
                + name;
        log.warn("{}/{}: {}", topology.namespace(), db.getMetadata().getName(), message);
        return new Outcome(
            Optional.empty(), Optional.of(new Failure(Reason.CREDENTIALS_NOT_APPLIED, message)));
      }
      done.add(name);
    }
    log.info(
        "{}/{}: the credentials Secret's passwords are applied in {}",
        topology.namespace(),
        db.getMetadata().getName(),
        done);
    return new Outcome(
        Optional.of(new CredentialsStatus(hash, now.truncatedTo(ChronoUnit.SECONDS).toString())),
        Optional.empty());
  }

  /** What role.sh credentials reads on stdin: one key=value line per applied key. */
  static String input(Map<String, String> values) {
    StringBuilder input = new StringBuilder();
    for (String key : APPLIED_KEYS) {
      String value = values.get(key);
      if (value != null) {
        input.append(key).append('=').append(value).append('\n');
      }
    }
    return input.toString();
  }

  /**
   * The applied keys' values, hashed with HMAC-SHA256 under the Secret's uid: the status shows
   * whether the servers are in step without offering the passwords to a dictionary attack.
   */
  static String hash(Secret secret, Map<String, String> values) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      String key = Optional.ofNullable(secret.getMetadata().getUid()).orElse("cellar");
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      for (String k : APPLIED_KEYS) {
        mac.update(values.getOrDefault(k, "").getBytes(StandardCharsets.UTF_8));
        mac.update((byte) 0);
      }
      return HexFormat.of().formatHex(mac.doFinal()).substring(0, 16);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
    }
  }
}
