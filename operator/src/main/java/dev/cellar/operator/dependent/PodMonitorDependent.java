package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.prometheus.PodMonitor;
import dev.cellar.operator.runtime.OperatorSettings;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.workflow.CRDPresentActivationCondition;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;

/**
 * A PodMonitor {@code <name>} for the Prometheus Operator: scrape the port {@code metrics} of the
 * Database's pods every 30 s. An optional dependent: active only where the PodMonitor CRD exists
 * ({@link PrometheusOperatorPresent}), and wanted only while spec.monitoring is on.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class PodMonitorDependent extends OwnedChild<PodMonitor> {
  static final String INTERVAL = "30s";

  public PodMonitorDependent() {
    super(PodMonitor.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.podMonitor();
  }

  @Override
  protected PodMonitor desired(Database db, Context<Database> context) {
    PodMonitor monitor = new PodMonitor();
    monitor.setMetadata(metadata(db, Keys.Component.DATABASE));
    monitor.setSpec(
        new PodMonitor.Spec(
            new LabelSelectorBuilder()
                .withMatchLabels(Keys.selector(db, Keys.Component.DATABASE))
                .build(),
            List.of(new PodMonitor.Endpoint(Keys.Monitoring.PORT_NAME, "/metrics", INTERVAL))));
    return monitor;
  }

  /**
   * Whether the Prometheus Operator's PodMonitor CRD is installed: looked up on a reconcile, then
   * again at most once a minute (one read, shared by every Database; no write), either way. JOSDK
   * registers the PodMonitor informer only while the CRD is there, so a cluster without the
   * Prometheus Operator needs neither; a Prometheus Operator installed after Cellar is noticed
   * without a restart. JOSDK's default never looks again once the CRD was seen: a CRD removed later
   * (the Prometheus Operator uninstalled) then failed every Database's reconcile with the API
   * server's bare "Not Found" until Cellar restarted. Looking again deregisters the informer within
   * a minute instead. The minute is the setting CRD_RECHECK_SECONDS ({@link #recheck}).
   */
  public static final class PrometheusOperatorPresent
      extends CRDPresentActivationCondition<PodMonitor, Database> {
    /**
     * How long a CRD's presence, either way, is taken as known: JOSDK makes this condition from its
     * class name, so the interval comes from the process's settings.
     */
    public static Duration recheck() {
      return OperatorSettings.ofProcess().crdRecheck();
    }

    @Override
    protected boolean shouldCheckStateNow(CRDCheckState state) {
      return shouldCheck(
          state.isCrdPresent(), state.getLastChecked(), LocalDateTime.now(), recheck());
    }

    static boolean shouldCheck(
        Boolean present, LocalDateTime lastChecked, LocalDateTime now, Duration recheck) {
      return present == null || lastChecked == null || now.isAfter(lastChecked.plus(recheck));
    }
  }
}
