package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.IssuerRef;
import dev.cellar.api.v1.Phase;
import dev.cellar.api.v1.TlsSpec;
import dev.cellar.operator.certmanager.Certificate;
import dev.cellar.operator.dependent.PodMonitorDependent;
import dev.cellar.operator.tls.Certificates;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.processing.dependent.workflow.CRDPresentActivationCondition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * spec.tls.issuerRef on kwok: without cert-manager the status says what is missing; once its
 * Certificate CRD is installed (a reduced one: no cert-manager controller is to be had here, so
 * this test writes what cert-manager would), Cellar creates the Certificate with its certificate's
 * names and labels, the pods mount the Secret cert-manager writes, the credentials Secret carries
 * that Secret's CA, and status.tls its expiry (a Certificate left unissued is TlsStateTest's). The
 * CRD is removed after. Cluster-wide, as MonitoringIT: every operator looks the CRD up, so this
 * class runs alone (operator/pom.xml).
 */
@Tag("cluster-wide")
class CertManagerIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client, KWOK_AGENT);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  static final String CRD_NAME = "certificates.cert-manager.io";

  /** cert-manager's Certificate CRD, reduced to what the API server needs to store. */
  static final String CERTIFICATE_CRD =
      """
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: certificates.cert-manager.io
      spec:
        group: cert-manager.io
        scope: Namespaced
        names: {plural: certificates, singular: certificate, kind: Certificate, listKind: CertificateList}
        versions:
          - name: v1
            served: true
            storage: true
            subresources: {status: {}}
            schema:
              openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
      """;

  /** As MonitoringIT's CRD: gone, and forgotten, before the next class. */
  @AfterAll
  static void removeCertificateCrd() {
    client.apiextensions().v1().customResourceDefinitions().withName(CRD_NAME).delete();
    await("Certificate CRD gone")
        .atMost(CONVERGE)
        .until(
            () ->
                client.apiextensions().v1().customResourceDefinitions().withName(CRD_NAME).get()
                    == null);
    CRDPresentActivationCondition.clearState();
  }

  static DatabaseSpec spec(String issuer) {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.setBackupEnabled(false);
    TlsSpec tls = new TlsSpec();
    tls.setIssuerRef(new IssuerRef(issuer, "ClusterIssuer", "cert-manager.io"));
    spec.setTls(tls);
    return spec;
  }

  String degraded(String name) {
    Database db = get(name);
    return db.getStatus() == null ? "" : condition(db, Type.DEGRADED).getMessage();
  }

  static String value(Secret secret, String key) {
    String data = secret.getData() == null ? null : secret.getData().get(key);
    return data == null
        ? null
        : new String(Base64.getDecoder().decode(data), StandardCharsets.UTF_8);
  }

  static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void certManagerIssuesTheServerCertificateWhenAskedAndTheStatusSaysWhatIsMissing() {
    // Forget what earlier classes in this JVM found about cert-manager's CRD.
    CRDPresentActivationCondition.clearState();
    String name = "issued";
    operator.create(new Database(null, name, spec("company-ca")));
    await("cert-manager named as missing")
        .atMost(CONVERGE)
        .untilAsserted(
            () ->
                assertThat(degraded(name))
                    .contains("spec.tls.issuerRef needs cert-manager")
                    .contains("certificates.cert-manager.io"));
    assertThat(
            child(StatefulSet.class, name).getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getSecret() != null)
                .map(v -> v.getSecret().getSecretName()))
        .contains(name + "-server-tls")
        .doesNotContain(name + "-tls");

    // cert-manager installed: noticed within the CRD's recheck (CRD_RECHECK_SECONDS, which
    // operator/pom.xml shortens), and the Certificate created.
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .resource(Serialization.unmarshal(CERTIFICATE_CRD, CustomResourceDefinition.class))
        .serverSideApply();
    await("the Certificate")
        .atMost(CONVERGE.plus(PodMonitorDependent.PrometheusOperatorPresent.recheck()))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> child(Certificate.class, name + "-server") != null);
    Certificate certificate = child(Certificate.class, name + "-server");
    String written = certificate.getMetadata().getResourceVersion();
    Certificate.Spec spec = certificate.getSpec();
    assertThat(spec.secretName()).isEqualTo(name + "-server-tls");
    assertThat(spec.issuerRef())
        .isEqualTo(new Certificate.Issuer("company-ca", "ClusterIssuer", "cert-manager.io"));
    assertThat(spec.commonName()).isEqualTo(name);
    String ns = operator.getNamespace();
    assertThat(spec.dnsNames())
        .contains(
            name, name + "-ro." + ns + ".svc.cluster.local", name + "-0." + name + "-headless")
        .doesNotContain("127.0.0.1");
    assertThat(spec.ipAddresses()).containsExactly("127.0.0.1");
    assertThat(spec.secretTemplate().labels())
        .containsEntry("app.kubernetes.io/instance", name)
        .containsEntry("app.kubernetes.io/managed-by", "cellar-operator");
    assertThat(spec.secretTemplate().annotations())
        .containsEntry("io.javaoperatorsdk/primary-name", name)
        .containsEntry("io.javaoperatorsdk/primary-namespace", operator.getNamespace());
    assertThat(certificate.getMetadata().getOwnerReferences()).singleElement();
    // Issuing: no complaint yet, and no Cellar CA or certificate of its own.
    await("cert-manager no longer named as missing")
        .atMost(CONVERGE)
        .until(() -> !degraded(name).contains("needs cert-manager"));
    assertThat(child(Secret.class, name + "-ca")).isNull();
    assertThat(child(Secret.class, name + "-tls")).isNull();

    // cert-manager writes the Secret (this test, in its place): the servers' certificate, the
    // credentials Secret's CA and status.tls follow it.
    Certificates.Issued ca = Certificates.newCa("company CA", Instant.now());
    Certificates.Issued server =
        Certificates.newServer(ca, List.of(name), Instant.now(), Duration.ofDays(30));
    client
        .secrets()
        .inNamespace(ns)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(name + "-server-tls")
                .withLabels(spec.secretTemplate().labels())
                .withAnnotations(spec.secretTemplate().annotations())
                .endMetadata()
                .withType("kubernetes.io/tls")
                .withData(
                    Map.of(
                        "tls.crt", base64(server.certificate()),
                        "tls.key", base64(server.privateKey()),
                        "ca.crt", base64(ca.certificate())))
                .build())
        .create();
    Database ready = awaitPhase(name, Phase.Ready);
    await("status.tls from cert-manager's Secret")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              Database db = get(name);
              assertThat(db.getStatus().getTls().getSecretName()).isEqualTo(name + "-server-tls");
              assertThat(db.getStatus().getTls().getNotAfter()).isNotNull();
              assertThat(
                      value(child(Secret.class, db.getStatus().getCredentialsSecret()), "ca.crt"))
                  .isEqualTo(ca.certificate());
            });
    assertThat(condition(ready, Type.DEGRADED).getStatus()).isEqualTo("False");
    // Converged: the Certificate was written once (the reconciles since changed nothing).
    assertThat(child(Certificate.class, name + "-server").getMetadata().getResourceVersion())
        .isEqualTo(written);
  }
}
