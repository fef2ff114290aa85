package dev.cellar.operator.tls;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.TlsStatus;
import dev.cellar.operator.certmanager.Certificate;
import dev.cellar.operator.credentials.CredentialsSecret;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.runtime.OperatorSettings;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * What the status says about the server certificate, from the Secret the pods mount: its expiry,
 * when Cellar renews it, and a failure when it is missing, unreadable, or near its expiry without a
 * renewal (five sixths into its validity: a certificate Cellar issued is renewed at two thirds, so
 * only a failed renewal, or a user's certificate nobody renews, gets there).
 *
 * @param status status.tls
 * @param failure what Degraded says, if anything
 * @param recheck when to look again: the renewal time, or the moment it becomes near expiry
 */
public record TlsState(
    Optional<TlsStatus> status, Optional<Failure> failure, Optional<Instant> recheck) {

  public static final TlsState NONE =
      new TlsState(Optional.empty(), Optional.empty(), Optional.empty());

  /** Observes the server certificate of {@code db}. */
  public static TlsState observe(Database db, Context<Database> context, Instant now) {
    Topology topology = Topology.of(db);
    if (!topology.tlsOn()) {
      return NONE;
    }
    String name = topology.serverCertificateSecret();
    Optional<Secret> secret = TlsSecrets.read(topology, name, context);
    if (secret.isEmpty() && name.equals(topology.certManagerSecret())) {
      // Looked at again when the Certificate's CRD is (CertificateDependent.CertManagerPresent).
      return waitingForCertManager(
          topology, certificate(context), now, OperatorSettings.ofProcess().crdRecheck());
    }
    return of(topology, secret, now);
  }

  /**
   * How long cert-manager may take to issue a new Certificate before the status says it has not: an
   * issuer answers in seconds, an ACME one in a minute or two.
   */
  static final Duration CERT_MANAGER_GRACE = Duration.ofMinutes(2);

  /**
   * cert-manager's Certificate, if its CRD is installed (an empty Optional inside) and Cellar's
   * informer runs for it; empty when cert-manager is not installed.
   */
  static Optional<Optional<Certificate>> certificate(Context<Database> context) {
    // JOSDK registers no event source for the type while its CRD is missing (the dependent's
    // activation condition), and then finds no Certificate rather than failing.
    if (context.eventSourceRetriever().getEventSourcesFor(Certificate.class).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(context.getSecondaryResource(Certificate.class));
  }

  /**
   * The server certificate cert-manager is to write does not exist: cert-manager is missing, or has
   * not issued it (yet). Within {@link #CERT_MANAGER_GRACE} of the Certificate's creation that is
   * normal; after, the status names cert-manager's own words (its Ready condition). Missing, it is
   * looked for again by the CRD's next look-up ({@code crdRecheck} after the last) if that comes
   * before the half minute a Secret to fix gets: nothing else reconciles the Database when
   * cert-manager is installed, so a shorter CRD_RECHECK_SECONDS would otherwise not be one.
   */
  static TlsState waitingForCertManager(
      Topology topology,
      Optional<Optional<Certificate>> certificate,
      Instant now,
      Duration crdRecheck) {
    String secret = topology.certManagerSecret();
    if (certificate.isEmpty()) {
      TlsState missing =
          failure(
              secret,
              now,
              Reason.CERTIFICATE_INVALID,
              "spec.tls.issuerRef needs cert-manager, but the API server does not serve its"
                  + " certificates.cert-manager.io: install cert-manager, or remove"
                  + " spec.tls.issuerRef for Cellar to issue the certificate");
      return crdRecheck.compareTo(USER_SECRET_RECHECK) < 0
          ? new TlsState(missing.status(), missing.failure(), Optional.of(now.plus(crdRecheck)))
          : missing;
    }
    String name = topology.certManagerCertificate();
    Optional<Instant> created =
        certificate
            .get()
            .map(c -> c.getMetadata().getCreationTimestamp())
            .flatMap(TlsState::instant);
    if (created.isEmpty() || now.isBefore(created.get().plus(CERT_MANAGER_GRACE))) {
      return new TlsState(
          Optional.of(new TlsStatus(secret, null, null)),
          Optional.empty(),
          Optional.of(created.orElse(now).plus(CERT_MANAGER_GRACE)));
    }
    String said =
        certificate
            .get()
            .flatMap(Certificate::ready)
            .map(c -> c.getReason() + ": " + c.getMessage())
            .orElse("it has no Ready condition: is cert-manager's controller running?");
    return failure(
        secret,
        now,
        Reason.CERTIFICATE_INVALID,
        "cert-manager has not issued the server certificate: the Certificate "
            + name
            + " says "
            + said
            + " (kubectl describe certificate "
            + name
            + " and its CertificateRequest say more)");
  }

  private static Optional<Instant> instant(String time) {
    try {
      return Optional.ofNullable(time).map(Instant::parse);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The state for {@code secret}, the server certificate Secret (if it exists). */
  static TlsState of(Topology topology, Optional<Secret> secret, Instant now) {
    String name = topology.serverCertificateSecret();
    boolean ours = topology.issuesCertificate();
    if (secret.isEmpty()) {
      if (ours) {
        // Being created with the CA in this reconcile's workflow.
        return new TlsState(
            Optional.of(new TlsStatus(name, null, null)), Optional.empty(), Optional.empty());
      }
      return failure(
          name,
          now,
          Reason.CERTIFICATE_INVALID,
          "the certificate Secret "
              + name
              + " (spec.tls.certificateSecret) does not exist: create it with tls.crt, tls.key and"
              + " ca.crt, or remove spec.tls.certificateSecret for Cellar to issue one");
    }
    String pem = CredentialsSecret.values(secret.get()).get(Keys.Tls.CERTIFICATE);
    Certificates.Facts cert;
    try {
      if (pem == null) {
        throw new IllegalArgumentException("it has no " + Keys.Tls.CERTIFICATE);
      }
      cert = Certificates.facts(pem);
    } catch (IllegalArgumentException e) {
      return failure(
          name,
          now,
          Reason.CERTIFICATE_INVALID,
          "the certificate Secret "
              + name
              + " holds no readable certificate ("
              + e.getMessage()
              + "): it needs tls.crt, tls.key and ca.crt in PEM");
    }
    Instant notBefore = cert.notBefore();
    Instant notAfter = cert.notAfter();
    Instant renewal = cert.renewal();
    Instant nearExpiry =
        notBefore.plus(Duration.between(notBefore, notAfter).multipliedBy(5).dividedBy(6));
    TlsStatus status = new TlsStatus(name, rfc3339(notAfter), ours ? rfc3339(renewal) : null);
    Optional<Failure> failure = Optional.empty();
    Optional<Instant> recheck;
    if (!now.isBefore(nearExpiry)) {
      String when = now.isBefore(notAfter) ? "expires at " : "expired at ";
      failure =
          Optional.of(
              new Failure(
                  Reason.CERTIFICATE_EXPIRING,
                  "the server certificate in "
                      + name
                      + " "
                      + when
                      + rfc3339(notAfter)
                      + (ours
                          ? " and Cellar could not renew it (see the operator's log and Events)"
                          : name.equals(topology.certManagerSecret())
                              ? " and cert-manager has not renewed it (kubectl describe"
                                  + " certificate "
                                  + topology.certManagerCertificate()
                                  + ")"
                              : ": renew it in the Secret (Cellar does not renew a certificate it"
                                  + " did not issue); the servers reload it without a restart")));
      recheck = now.isBefore(notAfter) ? Optional.of(notAfter) : Optional.empty();
    } else {
      recheck = Optional.of(ours && now.isBefore(renewal) ? renewal : nearExpiry);
    }
    return new TlsState(Optional.of(status), failure, recheck);
  }

  /**
   * A Secret to fix. A user's Secret is not watched (only Cellar's are cached): look again in half
   * a minute, a read each time, while it is wrong.
   */
  private static TlsState failure(String name, Instant now, Reason reason, String message) {
    return new TlsState(
        Optional.of(new TlsStatus(name, null, null)),
        Optional.of(new Failure(reason, message)),
        Optional.of(now.plus(USER_SECRET_RECHECK)));
  }

  static final Duration USER_SECRET_RECHECK = Duration.ofSeconds(30);

  /** How long until {@link #recheck}, at least a second. */
  public Optional<Duration> recheckAfter(Instant now) {
    return recheck.map(
        at -> {
          Duration d = Duration.between(now, at).plusSeconds(1);
          return d.isNegative() || d.isZero() ? Duration.ofSeconds(1) : d;
        });
  }

  static String rfc3339(Instant instant) {
    return instant.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
