package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.Phase;
import dev.cellar.api.v1.TlsMode;
import dev.cellar.api.v1.TlsSpec;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.operator.tls.Certificates;
import dev.cellar.operator.tls.JdkCertificates;
import dev.cellar.operator.tls.TlsReload;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TLS on kwok, where no server runs: the CA and server certificate Secrets, the pods' mount and
 * settings, the credentials Secret's ca.crt and verifying uri, status.tls, a certificate of the
 * user's, and a renewal (a 2-minute validity) that the servers reload without a pod replaced (the
 * fake agent records what role.sh tls-reload would be asked). The servers themselves are proven in
 * the unit tests of the scripts and, for real, on the real node.
 */
class TlsIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  /** Each reload asked: "pod hash". */
  static final List<String> reloads = new CopyOnWriteArrayList<>();

  static final InstanceAgent FAKE =
      new InstanceAgent() {
        @Override
        public OptionalLong position(String namespace, String pod) {
          return OptionalLong.of(1);
        }

        @Override
        public Optional<String> promote(String namespace, String pod) {
          return Optional.of("not expected here");
        }

        @Override
        public OptionalLong demote(String namespace, String pod) {
          return OptionalLong.empty();
        }

        @Override
        public void restart(String namespace, String pod) {}

        @Override
        public Optional<String> applyCredentials(String namespace, String pod, String input) {
          return Optional.empty();
        }

        @Override
        public Optional<String> reloadTls(String namespace, String pod, String hash) {
          reloads.add(pod + " " + hash);
          return Optional.empty();
        }
      };

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client, FAKE);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  @BeforeAll
  static void shortValidity() {
    // Renewed 2/3 into 2 min 12 s (12 s backdated): about 76 s after each issue.
    System.setProperty(Certificates.VALIDITY_PROPERTY, "PT2M");
  }

  @AfterAll
  static void defaultValidity() {
    System.clearProperty(Certificates.VALIDITY_PROPERTY);
  }

  static String value(Secret secret, String key) {
    String data = secret.getData().get(key);
    return data == null
        ? null
        : new String(Base64.getDecoder().decode(data), StandardCharsets.UTF_8);
  }

  Secret secret(String name) {
    return client.secrets().inNamespace(operator.getNamespace()).withName(name).get();
  }

  static DatabaseSpec spec(Engine engine, String version, int replicas) {
    DatabaseSpec spec = new DatabaseSpec(engine, version, "1Gi");
    spec.setReplicas(replicas);
    spec.setBackupEnabled(false);
    return spec;
  }

  List<String> podUids(String db) {
    return client.pods().inNamespace(operator.getNamespace()).list().getItems().stream()
        .map(Pod::getMetadata)
        .filter(m -> m.getName().startsWith(db + "-"))
        .map(m -> m.getName() + "=" + m.getUid())
        .sorted()
        .toList();
  }

  @Test
  void aDatabaseServesACertificateOfItsOwnCaThatItsClientsVerifyAndItIsRenewedWithoutARestart()
      throws Exception {
    // Every version the credentials Secret goes through, from before the Database exists.
    List<String> credentialsVersions = new CopyOnWriteArrayList<>();
    var credentialsWatch =
        client
            .secrets()
            .inNamespace(operator.getNamespace())
            .withName("orders-credentials")
            .watch(
                new Watcher<Secret>() {
                  @Override
                  public void eventReceived(Action action, Secret secret) {
                    credentialsVersions.add(action + " " + value(secret, "ca.crt"));
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
    operator.create(new Database(null, "orders", spec(Engine.POSTGRESQL, "16", 2)));
    Database db = awaitPhase("orders", Phase.Ready);

    Secret ca = secret("orders-ca");
    Secret tls = secret("orders-tls");
    assertThat(ca.getData()).containsOnlyKeys("ca.crt", "ca.key");
    assertThat(tls.getType()).isEqualTo("kubernetes.io/tls");
    assertThat(tls.getData()).containsOnlyKeys("tls.crt", "tls.key", "ca.crt");
    assertThat(value(tls, "ca.crt")).isEqualTo(value(ca, "ca.crt"));
    X509Certificate caCert = JdkCertificates.parse(value(ca, "ca.crt"));
    X509Certificate cert = JdkCertificates.parse(value(tls, "tls.crt"));
    cert.verify(caCert.getPublicKey());
    String ns = operator.getNamespace();
    assertThat(JdkCertificates.dnsNames(cert))
        .contains(
            "orders",
            "orders." + ns + ".svc",
            "orders." + ns + ".svc.cluster.local",
            "orders-ro." + ns + ".svc.cluster.local",
            "orders-1.orders-headless." + ns + ".svc.cluster.local");
    // The CA stays with the data (deletionPolicy Retain: no owner); the certificate is owned.
    assertThat(ca.getMetadata().getOwnerReferences()).isEmpty();
    assertThat(tls.getMetadata().getOwnerReferences()).hasSize(1);

    // The pods mount it and serve it.
    StatefulSet sts = child(StatefulSet.class, "orders");
    Volume volume =
        sts.getSpec().getTemplate().getSpec().getVolumes().stream()
            .filter(
                v -> v.getSecret() != null && "orders-tls".equals(v.getSecret().getSecretName()))
            .findFirst()
            .orElseThrow();
    assertThat(volume.getSecret().getDefaultMode()).isEqualTo(0640);
    Container c = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getVolumeMounts())
        .anyMatch(
            m ->
                m.getName().equals(volume.getName()) && m.getMountPath().equals("/etc/cellar-tls"));
    assertThat(c.getArgs()).contains("ssl=on", "ssl_cert_file=/etc/cellar-tls/tls.crt");
    assertThat(c.getEnv())
        .extracting(EnvVar::getName, EnvVar::getValue)
        .contains(org.assertj.core.groups.Tuple.tuple("CELLAR_TLS_MODE", "enabled"));

    // The credentials Secret gains the CA and a uri that verifies the server; the password stays.
    String credentials = db.getStatus().getCredentialsSecret();
    await("ca.crt in the credentials Secret")
        .atMost(CONVERGE)
        .until(() -> value(secret(credentials), "ca.crt") != null);
    Secret creds = secret(credentials);
    assertThat(value(creds, "ca.crt")).isEqualTo(value(ca, "ca.crt"));
    // Created with it, in the reconcile that issued the CA: never patched to add it.
    credentialsWatch.close();
    assertThat(credentialsVersions).containsExactly("ADDED " + value(ca, "ca.crt"));
    assertThat(value(creds, "uri"))
        .isEqualTo(
            "postgresql://app:"
                + value(creds, "password")
                + "@orders."
                + ns
                + ".svc.cluster.local:5432/orders?sslmode=verify-full");

    // status.tls names the Secret, its expiry and its renewal.
    await("status.tls")
        .atMost(CONVERGE)
        .until(
            () ->
                get("orders").getStatus().getTls() != null
                    && get("orders").getStatus().getTls().getNotAfter() != null);
    assertThat(get("orders").getStatus().getTls().getSecretName()).isEqualTo("orders-tls");
    assertThat(Instant.parse(get("orders").getStatus().getTls().getNotAfter()))
        .isEqualTo(cert.getNotAfter().toInstant());

    // Renewed about 76 s after its issue: a new certificate of the same CA, the servers asked to
    // reload it, no pod replaced, the credentials untouched.
    List<String> uids = podUids("orders");
    String password = value(creds, "password");
    String first = value(tls, "tls.crt");
    await("the renewal")
        .atMost(Duration.ofSeconds(150))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> !value(secret("orders-tls"), "tls.crt").equals(first));
    String renewed = value(secret("orders-tls"), "tls.crt");
    JdkCertificates.parse(renewed).verify(caCert.getPublicKey());
    assertThat(value(secret("orders-ca"), "ca.crt")).isEqualTo(value(ca, "ca.crt"));
    String hash = TlsReload.sha256(renewed);
    await("both servers asked to reload")
        .atMost(CONVERGE)
        .untilAsserted(() -> assertThat(reloads).contains("orders-0 " + hash, "orders-1 " + hash));
    await("status.tls follows, with an Event")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(Instant.parse(get("orders").getStatus().getTls().getNotAfter()))
                  .isEqualTo(JdkCertificates.parse(renewed).getNotAfter().toInstant());
              assertThat(hasEvent("orders", "CertificateRenewed")).isTrue();
            });
    assertThat(podUids("orders")).as("no pod replaced").isEqualTo(uids);
    assertThat(value(secret(credentials), "password")).isEqualTo(password);
    assertThat(value(secret(credentials), "ca.crt")).isEqualTo(value(ca, "ca.crt"));
    assertThat(condition(get("orders"), Type.DEGRADED).getStatus()).isEqualTo("False");

    // Between renewals nothing is written: the Secrets and the status keep their versions.
    String tlsVersion = secret("orders-tls").getMetadata().getResourceVersion();
    String credsVersion = secret(credentials).getMetadata().getResourceVersion();
    String dbVersion = get("orders").getMetadata().getResourceVersion();
    await("no writes while converged")
        .during(Duration.ofSeconds(15))
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                secret("orders-tls").getMetadata().getResourceVersion().equals(tlsVersion)
                    && secret(credentials).getMetadata().getResourceVersion().equals(credsVersion)
                    && get("orders").getMetadata().getResourceVersion().equals(dbVersion));
    operator.delete(get("orders"));
  }

  /**
   * spec.tls.clientCertificates: Cellar issues the application user's certificate (its common name
   * the Secret's username, signed by the Database's CA, for clients only), the pods mount it and
   * are told to require it, and so does the PostgreSQL backup Job, which connects as that user.
   * Turned off, the Secret and the mounts go.
   */
  @Test
  void clientCertificatesAreIssuedForTheApplicationUserAndGoWhenTurnedOff() throws Exception {
    DatabaseSpec spec = spec(Engine.POSTGRESQL, "16", 1);
    spec.setBackupEnabled(true);
    spec.setTls(new TlsSpec(TlsMode.ENABLED, null, true));
    operator.create(new Database(null, "ledger", spec));
    awaitPhase("ledger", Phase.Ready);
    String credentials = get("ledger").getStatus().getCredentialsSecret();
    String user = value(secret(credentials), "username");
    await("the client certificate Secret")
        .atMost(CONVERGE)
        .until(() -> secret("ledger-client-tls") != null);
    Secret clientTls = secret("ledger-client-tls");
    assertThat(clientTls.getType()).isEqualTo("kubernetes.io/tls");
    String caPem = value(secret("ledger-ca"), "ca.crt");
    assertThat(value(clientTls, "ca.crt")).isEqualTo(caPem);
    X509Certificate cert = JdkCertificates.parse(value(clientTls, "tls.crt"));
    cert.verify(JdkCertificates.parse(caPem).getPublicKey());
    assertThat(JdkCertificates.commonName(cert)).contains(user);
    assertThat(cert.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2"); // clientAuth
    assertThat(cert.getSubjectAlternativeNames()).isNull();

    StatefulSet sts = child(StatefulSet.class, "ledger");
    Container database = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(database.getEnv())
        .anyMatch(
            e ->
                "CELLAR_TLS_CLIENT_CERTIFICATES".equals(e.getName())
                    && "required".equals(e.getValue()));
    assertThat(database.getVolumeMounts())
        .anyMatch(m -> "/etc/cellar-client-tls".equals(m.getMountPath()));
    assertThat(sts.getSpec().getTemplate().getSpec().getVolumes())
        .anyMatch(
            v ->
                v.getSecret() != null
                    && "ledger-client-tls".equals(v.getSecret().getSecretName())
                    && Integer.valueOf(0640).equals(v.getSecret().getDefaultMode()));
    var job = child(CronJob.class, "ledger-backup").getSpec().getJobTemplate().getSpec();
    var backup = job.getTemplate().getSpec();
    assertThat(backup.getVolumes())
        .anyMatch(
            v ->
                v.getSecret() != null && "ledger-client-tls".equals(v.getSecret().getSecretName()));
    assertThat(backup.getContainers().get(0).getEnv())
        .extracting(EnvVar::getName)
        .contains("PGSSLCERT", "PGSSLKEY", "PGSSLROOTCERT", "PGSSLMODE");

    edit("ledger", s -> s.setTls(new TlsSpec(TlsMode.ENABLED, null, false)));
    await("client certificates off")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(secret("ledger-client-tls")).isNull();
              StatefulSet off = child(StatefulSet.class, "ledger");
              assertThat(off.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                  .noneMatch(e -> "CELLAR_TLS_CLIENT_CERTIFICATES".equals(e.getName()));
              assertThat(
                      child(CronJob.class, "ledger-backup")
                          .getSpec()
                          .getJobTemplate()
                          .getSpec()
                          .getTemplate()
                          .getSpec()
                          .getVolumes())
                  .noneMatch(
                      v ->
                          v.getSecret() != null
                              && "ledger-client-tls".equals(v.getSecret().getSecretName()));
            });
  }

  /**
   * Secrets of Cellar's names that exist before their Database, without Cellar's labels (so not in
   * its informer): a new Database creates first and meets them as a conflict, then keeps the CA as
   * it is and issues its server certificate into the existing Secret.
   */
  @Test
  void secretsOfItsNamesThatExistAlreadyAreTakenOver() throws Exception {
    Certificates.Issued ca = Certificates.newCa("a CA made before its Database", Instant.now());
    operator.create(
        new SecretBuilder()
            .withNewMetadata()
            .withName("vault-ca")
            .endMetadata()
            .addToStringData("ca.crt", ca.certificate())
            .addToStringData("ca.key", ca.privateKey())
            .build());
    operator.create(
        new SecretBuilder()
            .withNewMetadata()
            .withName("vault-tls")
            .endMetadata()
            .withType("kubernetes.io/tls")
            .addToStringData("tls.crt", "not a certificate")
            .addToStringData("tls.key", "not a key")
            .build());
    operator.create(new Database(null, "vault", spec(Engine.POSTGRESQL, "16", 1)));
    awaitPhase("vault", Phase.Ready);
    assertThat(value(secret("vault-ca"), "ca.crt")).isEqualTo(ca.certificate());
    Secret server = secret("vault-tls");
    assertThat(value(server, "ca.crt")).isEqualTo(ca.certificate());
    JdkCertificates.parse(value(server, "tls.crt"))
        .verify(JdkCertificates.parse(ca.certificate()).getPublicKey());
  }

  @Test
  void requiredMariaDbRefusesPlainTransportAndAUsersCertificateIsUsedAsItIs() {
    // The user's certificate does not exist yet: Degraded names it.
    DatabaseSpec spec = spec(Engine.MARIADB, "11.4", 1);
    spec.setTls(new TlsSpec(TlsMode.REQUIRED, "shop-cert", false));
    operator.create(new Database(null, "shop", spec));
    await("Degraded names the missing Secret")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Database db = get("shop");
              assertThat(db.getStatus()).isNotNull();
              assertThat(condition(db, Type.DEGRADED).getReason()).isEqualTo("CertificateInvalid");
              assertThat(condition(db, Type.DEGRADED).getMessage())
                  .contains("shop-cert", "spec.tls.certificateSecret");
            });
    ConfigMap config = child(ConfigMap.class, "shop-config");
    assertThat(config.getData().get("cellar.cnf"))
        .contains("require_secure_transport = ON", "ssl_cert = /etc/cellar-tls/tls.crt");
    StatefulSet sts = child(StatefulSet.class, "shop");
    assertThat(sts.getSpec().getTemplate().getSpec().getVolumes())
        .anyMatch(v -> v.getSecret() != null && "shop-cert".equals(v.getSecret().getSecretName()));
    assertThat(secret("shop-ca")).as("no CA of Cellar's for a user's certificate").isNull();
    assertThat(secret("shop-tls")).isNull();

    // The user brings it (here issued by another CA); Degraded clears within the 30 s recheck.
    Certificates.Issued userCa = Certificates.newCa("user CA", Instant.now());
    Certificates.Issued cert =
        Certificates.newServer(userCa, List.of("shop"), Instant.now(), Duration.ofDays(30));
    client
        .secrets()
        .inNamespace(operator.getNamespace())
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("shop-cert")
                .endMetadata()
                .withType("kubernetes.io/tls")
                .withStringData(
                    Map.of(
                        "tls.crt", cert.certificate(),
                        "tls.key", cert.privateKey(),
                        "ca.crt", userCa.certificate()))
                .build())
        .create();
    awaitPhase("shop", Phase.Ready);
    await("status.tls from the user's Secret")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(get("shop").getStatus().getTls().getSecretName()).isEqualTo("shop-cert");
              assertThat(get("shop").getStatus().getTls().getRenewalTime()).isNull();
              assertThat(condition(get("shop"), Type.DEGRADED).getStatus()).isEqualTo("False");
            });
    String credentials = get("shop").getStatus().getCredentialsSecret();
    await("the user's CA in the credentials Secret")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(value(secret(credentials), "ca.crt")).isEqualTo(userCa.certificate());
              assertThat(value(secret(credentials), "uri")).endsWith("?ssl-mode=VERIFY_IDENTITY");
            });
    // Cellar never writes the user's Secret.
    assertThat(secret("shop-cert").getMetadata().getLabels()).isNullOrEmpty();

    // TLS off: no mount, the plain uri back, ca.crt gone; the password kept.
    String password = value(secret(credentials), "password");
    edit("shop", s -> s.setTls(new TlsSpec(TlsMode.DISABLED, null, false)));
    await("TLS off")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              StatefulSet off = child(StatefulSet.class, "shop");
              assertThat(off.getSpec().getTemplate().getSpec().getVolumes())
                  .noneMatch(v -> v.getSecret() != null);
              assertThat(child(ConfigMap.class, "shop-config").getData().get("cellar.cnf"))
                  .doesNotContain("ssl_cert");
              Secret creds = secret(credentials);
              assertThat(creds.getData()).doesNotContainKey("ca.crt");
              assertThat(value(creds, "uri")).doesNotContain("ssl-mode");
              assertThat(value(creds, "password")).isEqualTo(password);
              assertThat(get("shop").getStatus().getTls()).isNull();
            });
  }
}
