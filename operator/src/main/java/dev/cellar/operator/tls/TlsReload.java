package dev.cellar.operator.tls;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.credentials.CredentialsSecret;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A renewed server certificate taken up by the running servers without a restart. The kubelet
 * replaces the mounted files within a minute or two of the Secret's change; then {@code role.sh
 * tls-reload <sha256 of tls.crt>} in each pod checks that its files are the new ones and has the
 * server reload them (PostgreSQL: pg_reload_conf; MariaDB: FLUSH SSL; MySQL: ALTER INSTANCE RELOAD
 * TLS). Only pods whose server started before the certificate was issued are asked, and only within
 * {@link #WINDOW} of its issue, so an idle Database costs no call. Which pod reloaded which
 * certificate is kept in memory only: after an operator restart a pod may reload once more, which
 * is harmless.
 */
public final class TlsReload {
  private static final Logger log = LoggerFactory.getLogger(TlsReload.class);

  /** How long after a certificate's issue the pods are asked to reload it. */
  static final Duration WINDOW = Duration.ofMinutes(10);

  /** How soon to ask again while a pod still has the old files. */
  static final Duration RETRY = Duration.ofSeconds(10);

  /** Pod uid to the certificate hash its server reloaded. */
  private static final Map<String, String> RELOADED = new ConcurrentHashMap<>();

  private TlsReload() {}

  /** When to look again, if some pod has not reloaded the current certificate yet. */
  public record Outcome(Optional<Duration> recheck) {
    public static final Outcome NONE = new Outcome(Optional.empty());
  }

  public static Outcome run(Database db, Context<Database> context, InstanceAgent agent) {
    Topology topology = Topology.of(db);
    if (!topology.tlsOn()) {
      return Outcome.NONE;
    }
    Optional<String> pem =
        TlsSecrets.read(topology, topology.serverCertificateSecret(), context)
            .map(CredentialsSecret::values)
            .map(v -> v.get(Keys.Tls.CERTIFICATE));
    if (pem.isEmpty()) {
      return Outcome.NONE;
    }
    Certificates.Facts cert;
    try {
      cert = Certificates.facts(pem.get());
    } catch (IllegalArgumentException e) {
      return Outcome.NONE; // the status says so
    }
    Instant issued = issued(cert, topology.issuesCertificate());
    Instant now = Instant.now();
    if (now.isAfter(issued.plus(WINDOW))) {
      return Outcome.NONE;
    }
    // Computed for the first pod that predates the certificate: a new Database's pods never do.
    String hash = null;
    boolean pending = false;
    for (Pod pod : context.getSecondaryResources(Pod.class)) {
      Optional<Instant> started = started(pod);
      String uid = pod.getMetadata().getUid();
      // startedAt has whole seconds: a pod started in the second of the issue (a new Database's)
      // mounted the new files already.
      if (started.isEmpty() || !started.get().plusSeconds(1).isBefore(issued)) {
        continue;
      }
      if (hash == null) {
        hash = sha256(pem.get());
      }
      if (hash.equals(RELOADED.get(uid))) {
        continue;
      }
      String name = pod.getMetadata().getName();
      Optional<String> failure = agent.reloadTls(topology.namespace(), name, hash);
      if (failure.isEmpty()) {
        RELOADED.put(uid, hash);
        log.info("{} reloaded the renewed server certificate", name);
      } else {
        pending = true;
        log.info("{} has not reloaded the renewed server certificate yet: {}", name, failure.get());
      }
    }
    return pending ? new Outcome(Optional.of(RETRY)) : Outcome.NONE;
  }

  /**
   * When a certificate was issued: Cellar backdates its own by {@link Certificates#backdate} of its
   * validity, which the certificate's span (validity plus backdate) gives back.
   */
  static Instant issued(Certificates.Facts cert, boolean ours) {
    Instant notBefore = cert.notBefore();
    if (!ours) {
      return notBefore;
    }
    Duration span = Duration.between(notBefore, cert.notAfter());
    // span = validity + backdate, backdate = min(BACKDATE, validity / 10).
    Duration backdate =
        span.dividedBy(11).compareTo(Certificates.BACKDATE) < 0
            ? span.dividedBy(11)
            : Certificates.BACKDATE;
    return notBefore.plus(backdate);
  }

  /** When the database container's current run started, if it runs. */
  static Optional<Instant> started(Pod pod) {
    return Optional.ofNullable(pod.getStatus())
        .map(s -> s.getContainerStatuses())
        .flatMap(
            statuses ->
                statuses.stream()
                    .filter(c -> ChildNames.DATABASE_CONTAINER.equals(c.getName()))
                    .findFirst())
        .map(ContainerStatus::getState)
        .map(s -> s.getRunning())
        .map(r -> r.getStartedAt())
        .flatMap(
            at -> {
              try {
                return Optional.of(Instant.parse(at));
              } catch (RuntimeException e) {
                return Optional.empty();
              }
            });
  }

  /** The hex SHA-256 of a PEM text, as sha256sum prints it for the mounted file. */
  public static String sha256(String pem) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(pem.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
