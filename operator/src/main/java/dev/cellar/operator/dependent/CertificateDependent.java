package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.IssuerRef;
import dev.cellar.operator.certmanager.Certificate;
import dev.cellar.operator.topology.Topology;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.workflow.CRDPresentActivationCondition;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A cert-manager Certificate {@code <name>-server} for the server certificate, when
 * spec.tls.issuerRef names an issuer: the names of Cellar's own certificate, issued into {@code
 * <name>-server-tls} with Cellar's labels and JOSDK's annotations (so Cellar's Secret informer maps
 * each renewal to the Database and the servers reload it at once). An optional dependent: active
 * only where cert-manager's CRD exists ({@link CertManagerPresent}); without it the status says
 * what is missing (TlsState).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class CertificateDependent extends OwnedChild<Certificate> {
  public CertificateDependent() {
    super(Certificate.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.certManagerCertificate();
  }

  @Override
  protected Certificate desired(Database db, Context<Database> context) {
    Topology topology = Topology.of(db);
    IssuerRef issuer = topology.certManagerIssuer().orElseThrow();
    List<String> names = topology.tlsDnsNames();
    Certificate certificate = new Certificate();
    certificate.setMetadata(metadata(db, Keys.Component.DATABASE));
    certificate.setSpec(
        new Certificate.Spec(
            topology.certManagerSecret(),
            new Certificate.SecretTemplate(
                Keys.labels(db, Keys.Component.DATABASE), secretAnnotations(db)),
            topology.primaryService(),
            names.stream().filter(n -> !isAddress(n)).toList(),
            names.stream().filter(CertificateDependent::isAddress).toList(),
            // As Cellar's own: servers present it, and replicas present it to their primary.
            List.of("server auth", "client auth", "digital signature", "key encipherment"),
            new Certificate.Issuer(issuer.getName(), issuer.getKind(), issuer.getGroup())));
    return certificate;
  }

  /**
   * The annotations that map a Secret of the credentials' informer to its Database (JOSDK's, as on
   * the Secrets Cellar writes itself: {@link IssuedCertificateSecret}), so that a renewal by
   * cert-manager is an event: the servers reload it at once.
   */
  private Map<String, String> secretAnnotations(Database db) {
    Certificate probe = new Certificate();
    probe.getMetadata().setAnnotations(new TreeMap<>());
    addSecondaryToPrimaryMapperAnnotations(probe, db);
    return probe.getMetadata().getAnnotations();
  }

  private static boolean isAddress(String name) {
    return name.matches("[0-9.]+|.*:.*");
  }

  /**
   * Whether cert-manager's Certificate CRD is installed: looked up on a reconcile, then again at
   * most once a minute, like the PodMonitor's ({@link
   * PodMonitorDependent.PrometheusOperatorPresent} says why).
   */
  public static final class CertManagerPresent
      extends CRDPresentActivationCondition<Certificate, Database> {
    /** How long the CRD's presence, either way, is taken as known (CRD_RECHECK_SECONDS). */
    public static Duration recheck() {
      return PodMonitorDependent.PrometheusOperatorPresent.recheck();
    }

    @Override
    protected boolean shouldCheckStateNow(CRDCheckState state) {
      return PodMonitorDependent.PrometheusOperatorPresent.shouldCheck(
          state.isCrdPresent(), state.getLastChecked(), LocalDateTime.now(), recheck());
    }
  }
}
