package dev.cellar.operator.runtime;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.Phase;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * What {@code /metrics} shows: JOSDK's metrics without per-resource tags (their cardinality would
 * grow with the number of Databases), JVM memory, GC, threads and CPU, and Cellar's own: {@code
 * cellar_databases{phase}} counted from the operator's cache at scrape time, and {@code
 * cellar_reconcile_duration_seconds}, a histogram of whole reconciles (workflow and status).
 */
public final class OperatorMetrics implements Metrics {
  /** The phase label of a Database that has no status yet. */
  static final String NO_PHASE = "None";

  private final PrometheusMeterRegistry registry;
  private final Metrics josdk;

  public OperatorMetrics() {
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.josdk = MicrometerMetrics.withoutPerResourceMetrics(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  /** The Prometheus text exposition of every meter. */
  public String scrape() {
    return registry.scrape();
  }

  /** One gauge per phase, each counting the Databases in {@code databases} at scrape time. */
  void countByPhase(Supplier<Stream<Database>> databases) {
    for (String phase :
        Stream.concat(Stream.of(Phase.values()).map(Phase::name), Stream.of(NO_PHASE)).toList()) {
      Gauge.builder("cellar.databases", () -> count(databases, phase))
          .description("Databases by status.phase (None: not reconciled yet)")
          .tag("phase", phase)
          .register(registry);
    }
  }

  private static long count(Supplier<Stream<Database>> databases, String phase) {
    try (Stream<Database> all = databases.get()) {
      return all.filter(db -> phaseOf(db).equals(phase)).count();
    } catch (RuntimeException e) {
      return 0; // the cache is not there before start
    }
  }

  static String phaseOf(Database db) {
    return Optional.ofNullable(db.getStatus())
        .map(DatabaseStatus::getPhase)
        .map(Phase::name)
        .orElse(NO_PHASE);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void controllerRegistered(Controller<? extends HasMetadata> controller) {
    josdk.controllerRegistered(controller);
    if (controller.getConfiguration().getResourceClass() == Database.class) {
      Controller<Database> databases = (Controller<Database>) controller;
      countByPhase(() -> databases.getEventSourceManager().getControllerEventSource().list());
    }
  }

  @Override
  public <T> T timeControllerExecution(ControllerExecution<T> execution) throws Exception {
    if (!"reconcile".equals(execution.name())) {
      return josdk.timeControllerExecution(execution);
    }
    Timer.Sample sample = Timer.start(registry);
    String outcome = "failure";
    try {
      T result = josdk.timeControllerExecution(execution);
      outcome = "success";
      return result;
    } finally {
      sample.stop(
          Timer.builder("cellar.reconcile.duration")
              .description("Whole reconciles of a Database: the workflow and the status")
              .tag("outcome", outcome)
              .publishPercentileHistogram()
              .register(registry));
    }
  }

  @Override
  public void receivedEvent(Event event, Map<String, Object> metadata) {
    josdk.receivedEvent(event, metadata);
  }

  @Override
  public void reconcileCustomResource(
      HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
    josdk.reconcileCustomResource(resource, retryInfo, metadata);
  }

  @Override
  public void failedReconciliation(
      HasMetadata resource, Exception exception, Map<String, Object> metadata) {
    josdk.failedReconciliation(resource, exception, metadata);
  }

  @Override
  public void reconciliationExecutionStarted(HasMetadata resource, Map<String, Object> metadata) {
    josdk.reconciliationExecutionStarted(resource, metadata);
  }

  @Override
  public void reconciliationExecutionFinished(HasMetadata resource, Map<String, Object> metadata) {
    josdk.reconciliationExecutionFinished(resource, metadata);
  }

  @Override
  public void cleanupDoneFor(ResourceID resourceID, Map<String, Object> metadata) {
    josdk.cleanupDoneFor(resourceID, metadata);
  }

  @Override
  public void finishedReconciliation(HasMetadata resource, Map<String, Object> metadata) {
    josdk.finishedReconciliation(resource, metadata);
  }

  @Override
  public <T extends Map<?, ?>> T monitorSizeOf(T map, String name) {
    return josdk.monitorSizeOf(map, name);
  }
}
