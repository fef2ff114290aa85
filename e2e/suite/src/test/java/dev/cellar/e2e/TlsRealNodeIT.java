package dev.cellar.e2e;

import static dev.cellar.e2e.RealNodeIT.apply;
import static dev.cellar.e2e.RealNodeIT.client;
import static dev.cellar.e2e.RealNodeIT.database;
import static dev.cellar.e2e.RealNodeIT.kubectl;
import static dev.cellar.e2e.RealNodeIT.newNamespace;
import static dev.cellar.e2e.RealNodeIT.ok;
import static dev.cellar.e2e.RealNodeIT.phase;
import static dev.cellar.e2e.RealNodeIT.seconds;
import static dev.cellar.e2e.RealNodeIT.secretValue;
import static dev.cellar.e2e.RealNodeIT.timings;
import static dev.cellar.e2e.RealNodeIT.waitReady;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.e2e.RealNodeIT.Engine;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * TLS on real servers (issue #19), beyond what {@link RealNodeIT}'s scenario shows: a renewal, and
 * client certificates.
 *
 * <p>A server certificate renewed: the operator runs with a 3-minute validity, so it renews each
 * Database's certificate two minutes after issuing it. For PostgreSQL and MariaDB with 2 replicas,
 * every pod's server (asked with {@code openssl s_client}, as a client sees it) first serves the
 * certificate of the {@code <name>-tls} Secret, then a new one, without a pod replaced or
 * restarted; afterwards a client verifying the CA of the credentials Secret still connects through
 * {@code <name>} and {@code <name>-ro}, and a row written after the renewal reaches the replica
 * (replication goes on).
 *
 * <p>The two scenarios run at once (junit-platform.properties): the renewal's wait leaves the
 * machine idle for about a minute. Shares {@link RealNodeIT}'s lifecycle; the local cluster only
 * (the validity is a setting of the operator process).
 */
@SharesRealNode
class TlsRealNodeIT {
  static final List<String> PODS = List.of("orders-0", "orders-1");

  /** Short enough to renew within the test, long enough for the Databases to become Ready. */
  static final String VALIDITY = "PT3M";

  @RegisterExtension static final TestWatcher cleanUpPassed = RealNodeIT.cleanUpPassed;

  @BeforeAll
  static void up() {
    RealNodeIT.realNode("tls-real-node", Map.of("CELLAR_TLS_CERT_VALIDITY", VALIDITY));
  }

  @AfterAll
  static void down() throws IOException {
    RealNodeIT.cleanUp();
  }

  /** One Database under test: its namespace, engine and what was seen before the renewal. */
  record Subject(String ns, Engine engine, Map<String, String> pods, String served) {}

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void certificatesAreRenewedAndReloadedWhileClientsKeepConnecting() {
    long start = System.nanoTime();
    // Both engines at once: the renewal is a matter of time, which they then share.
    Map<String, Engine> namespaces = new LinkedHashMap<>();
    for (Engine engine : List.of(RealNodeIT.postgresql(), RealNodeIT.mariadb())) {
      String ns = newNamespace(engine.name() + "-renewal");
      apply(ns, database("orders", engine, 2, false));
      namespaces.put(ns, engine);
    }
    List<Subject> subjects =
        namespaces.entrySet().stream().map(e -> before(e.getKey(), e.getValue())).toList();
    timings.add("TLS renewal: both Databases Ready and verified in " + seconds(start) + " s");

    for (Subject s : subjects) {
      await(s.engine().name() + ": every server serves a renewed certificate")
          .atMost(Duration.ofMinutes(6))
          .pollInterval(Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                for (String pod : PODS) {
                  assertThat(served(s.ns(), s.engine(), pod))
                      .as(pod + " serves a certificate other than the first")
                      .isNotEqualTo(s.served())
                      .isNotEmpty();
                }
              });
      timings.add(
          "TLS renewal: " + s.engine().name() + " reloaded everywhere at " + seconds(start) + " s");
      assertThat(pods(s.ns()))
          .as("no pod replaced or restarted by the renewal (uid and restarts)")
          .isEqualTo(s.pods());
      assertThat(verifiedClient(s.ns(), s.engine()))
          .as("a client verifying the CA still connects, primary and replicas")
          .isEqualTo("tls-ok\ntls-ok");
      assertThat(client(s.ns(), s.engine(), "orders", "write", s.engine().writeRow(), false))
          .isEmpty();
      String db = secretValue(s.ns(), "orders-credentials", "database");
      await(s.engine().name() + ": the row written after the renewal on the replica")
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofSeconds(2))
          .until(
              () ->
                  "real"
                      .equals(
                          client(
                                  s.ns(),
                                  s.engine(),
                                  "orders",
                                  "read-replica",
                                  s.engine().readRow().command("orders-ro", db),
                                  false)
                              .strip()));
      assertThat(phase(s.ns(), "orders")).isEqualTo("Ready");
    }
    timings.add("TLS renewal: checked after in " + seconds(start) + " s");
  }

  /**
   * spec.tls.clientCertificates, PostgreSQL and MariaDB with 2 replicas: through {@code <name>} and
   * {@code <name>-ro}, the application user with its password and TLS but no certificate is
   * refused, and with the certificate of {@code <name>-client-tls} gets in. PostgreSQL's backup
   * Job, which connects as that user, writes its dump with the certificate.
   */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void clientCertificatesAreRequiredOfTheApplicationUser() {
    long start = System.nanoTime();
    Map<String, Engine> namespaces = new LinkedHashMap<>();
    for (Engine engine : List.of(RealNodeIT.postgresql(), RealNodeIT.mariadb())) {
      String ns = newNamespace(engine.name() + "-client-cert");
      boolean pg = engine.name().equals("postgresql");
      apply(ns, database("orders", engine, 2, pg) + "  tls:\n    clientCertificates: true\n");
      namespaces.put(ns, engine);
    }
    namespaces.forEach((ns, engine) -> waitReady(ns, "orders"));
    timings.add("client certificates: both Databases Ready in " + seconds(start) + " s");
    namespaces.forEach(
        (ns, engine) -> {
          boolean pg = engine.name().equals("postgresql");
          String connect =
              pg
                  ? "c() { psql \"host=$1."
                      + ns
                      + ".svc.cluster.local dbname=$DB_NAME user=$DB_USER sslmode=verify-full"
                      + " sslrootcert=/tmp/ca.crt connect_timeout=10 ${2:+sslcert=/tmp/c.crt"
                      + " sslkey=/tmp/c.key}\" -tAc \"SELECT 'cert-ok'\"; }; export"
                      + " PGPASSWORD=$DB_PASSWORD; "
                  : "c() { MYSQL_PWD=$DB_PASSWORD mariadb -h $1."
                      + ns
                      + ".svc.cluster.local -u \"$DB_USER\" --ssl --ssl-ca=/tmp/ca.crt"
                      + " --ssl-verify-server-cert --connect-timeout=10 ${2:+--ssl-cert=/tmp/c.crt"
                      + " --ssl-key=/tmp/c.key} -N -B -e \"SELECT 'cert-ok'\"; }; ";
          String script =
              "printf '%s\\n' \"$DB_CA\" >/tmp/ca.crt; printf '%s\\n' \"$DB_CLIENT_CERT\""
                  + " >/tmp/c.crt; printf '%s\\n' \"$DB_CLIENT_KEY\" >/tmp/c.key; chmod 600"
                  + " /tmp/c.key; "
                  + connect
                  + "for h in orders orders-ro; do if c $h 2>/tmp/err; then echo $h-nocert-accepted;"
                  + " else echo $h-nocert-refused; fi; c $h with-cert | sed \"s/^/$h-/\"; done";
          String out = client(ns, engine, "orders", "client-cert", script, false);
          assertThat(out.lines())
              .as(engine.name() + ": no certificate refused, the certificate accepted")
              .contains(
                  "orders-nocert-refused",
                  "orders-cert-ok",
                  "orders-ro-nocert-refused",
                  "orders-ro-cert-ok")
              .noneMatch(l -> l.endsWith("nocert-accepted"));
          if (pg) {
            long backup = System.nanoTime();
            ok("create", "job", "-n", ns, "--from=cronjob/orders-backup", "backup-now");
            ok("wait", "-n", ns, "--for=condition=Complete", "job/backup-now", "--timeout=180s");
            assertThat(ok("logs", "-n", ns, "job/backup-now").stdout())
                .contains("backup written: pvc://orders-backups/orders-");
            timings.add(
                "client certificates: postgresql backup Job with the certificate in "
                    + seconds(backup)
                    + " s");
          }
        });
    timings.add("client certificates: checked in " + seconds(start) + " s");
  }

  /**
   * Waits for the Database to be Ready with every server serving its Secret's certificate, checks
   * that a verifying client connects, and keeps what it saw.
   */
  static Subject before(String ns, Engine engine) {
    waitReady(ns, "orders");
    Instant notAfter =
        Instant.parse(
            ok("get", "db", "-n", ns, "orders", "-o", "jsonpath={.status.tls.notAfter}")
                .stdout()
                .strip());
    assertThat(notAfter)
        .as("status.tls.notAfter, from the 3-minute validity")
        .isBefore(Instant.now().plus(Duration.ofMinutes(4)));
    String[] first = new String[1];
    await(engine.name() + ": every server serves the Secret's certificate")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(3))
        .untilAsserted(
            () -> {
              first[0] = fingerprint(secretValue(ns, "orders-tls", "tls\\.crt"));
              for (String pod : PODS) {
                assertThat(served(ns, engine, pod)).as(pod).isEqualTo(first[0]);
              }
            });
    assertThat(verifiedClient(ns, engine)).isEqualTo("tls-ok\ntls-ok");
    return new Subject(ns, engine, pods(ns), first[0]);
  }

  /** The SHA-256 fingerprint of the certificate POD's server hands a client, as openssl has it. */
  static String served(String ns, Engine engine, String pod) {
    boolean pg = engine.name().equals("postgresql");
    String command =
        "openssl s_client -connect 127.0.0.1:"
            + (pg ? "5432 -starttls postgres" : "3306 -starttls mysql")
            + " </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256";
    String out =
        kubectl("exec", "-n", ns, pod, "-c", "database", "--", "bash", "-c", command).stdout();
    return out.strip().replaceFirst("(?i)^sha256 Fingerprint=", "");
  }

  /** What openssl prints as the fingerprint of the PEM certificate, from the Secret. */
  static String fingerprint(String pem) throws GeneralSecurityException {
    X509Certificate cert =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(
                    new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(cert.getEncoded());
    return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
  }

  /** Connects to {@code orders} and {@code orders-ro} with full verification of the server. */
  static String verifiedClient(String ns, Engine engine) {
    String script =
        engine.name().equals("postgresql")
            ? "printf '%s\\n' \"$DB_CA\" >/tmp/ca.crt; export PGPASSWORD=$DB_PASSWORD;"
                + " for h in orders orders-ro; do psql \"host=$h."
                + ns
                + ".svc.cluster.local dbname=$DB_NAME user=$DB_USER sslmode=verify-full"
                + " sslrootcert=/tmp/ca.crt connect_timeout=10\" -tAc \"SELECT 'tls-ok'\"; done"
            : "printf '%s\\n' \"$DB_CA\" >/tmp/ca.crt;"
                + " for h in orders orders-ro; do MYSQL_PWD=$DB_PASSWORD mariadb -h $h."
                + ns
                + ".svc.cluster.local -u \"$DB_USER\" --ssl --ssl-ca=/tmp/ca.crt"
                + " --ssl-verify-server-cert --connect-timeout=10 -N -B -e \"SELECT 'tls-ok'\"; done";
    return client(ns, engine, "orders", "verify", script, false).strip();
  }

  /** Each database pod's uid and restart count. */
  static Map<String, String> pods(String ns) {
    Map<String, String> pods = new LinkedHashMap<>();
    for (String pod : PODS) {
      pods.put(
          pod,
          ok(
                  "get",
                  "pod",
                  "-n",
                  ns,
                  pod,
                  "-o",
                  "jsonpath={.metadata.uid} {.status.containerStatuses[*].restartCount}")
              .stdout()
              .strip());
    }
    return pods;
  }
}
