package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Keys;
import dev.cellar.operator.Topology;
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
   * Whether the Prometheus Operator's PodMonitor CRD is installed: looked up on a reconcile, and
   * while absent again at most once a minute (one read, no write), so a Prometheus Operator
   * installed after Cellar is noticed without a restart. JOSDK registers the PodMonitor informer
   * only once the CRD is there: a cluster without the Prometheus Operator needs neither.
   */
  public static final class PrometheusOperatorPresent
      extends CRDPresentActivationCondition<PodMonitor, Database> {
    static final Duration RECHECK = Duration.ofMinutes(1);

    @Override
    protected boolean shouldCheckStateNow(CRDCheckState state) {
      if (state.isCrdPresent() == null || state.getLastChecked() == null) {
        return true;
      }
      return !state.isCrdPresent()
          && LocalDateTime.now().isAfter(state.getLastChecked().plus(RECHECK));
    }
  }
}
