package dev.cellar.operator.runtime;

import dev.cellar.api.v1.BackupRecord;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.Phase;
import dev.cellar.api.v1.TlsStatus;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * What {@code /metrics} shows: JOSDK's metrics without per-resource tags (their cardinality would
 * grow with the number of Databases), JVM memory, GC, threads and CPU, and Cellar's own: {@code
 * cellar_databases{phase}} counted from the operator's cache at scrape time, and {@code
 * cellar_reconcile_duration_seconds}, a histogram of whole reconciles (workflow and status); per
 * Database (labels namespace, database), from its status at scrape time: {@code
 * cellar_database_last_backup_age_seconds}, {@code
 * cellar_database_last_verified_backup_age_seconds} and {@code
 * cellar_database_certificate_expires_in_seconds}; per replica (labels namespace, database, pod),
 * from {@code status.instances}: {@code cellar_database_replication_lag_seconds}.
 */
public final class OperatorMetrics implements Metrics {
  /** The phase label of a Database that has no status yet. */
  static final String NO_PHASE = "None";

  private final PrometheusMeterRegistry registry;
  private final Metrics josdk;
  private final Clock clock;

  /** The Databases of the operator's cache, once the controller is registered. */
  private volatile Supplier<Stream<Database>> databases = Stream::empty;

  private final MultiGauge lastBackupAge;
  private final MultiGauge lastVerifiedBackupAge;
  private final MultiGauge certificateExpiry;
  private final MultiGauge replicationLag;

  /** Reconciles running now: the shutdown says how many it waits for. */
  private final AtomicInteger reconciling = new AtomicInteger();

  /** Notified when the last running reconcile ends. */
  private final Object noReconciles = new Object();

  public OperatorMetrics() {
    this(Clock.systemUTC());
  }

  OperatorMetrics(Clock clock) {
    this.clock = clock;
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.lastBackupAge =
        MultiGauge.builder("cellar.database.last.backup.age")
            .description("Seconds since status.lastBackup completed, per Database")
            .baseUnit("seconds")
            .register(registry);
    this.lastVerifiedBackupAge =
        MultiGauge.builder("cellar.database.last.verified.backup.age")
            .description("Seconds since status.lastVerifiedBackup completed, per Database")
            .baseUnit("seconds")
            .register(registry);
    this.certificateExpiry =
        MultiGauge.builder("cellar.database.certificate.expires.in")
            .description(
                "Seconds until the server certificate expires (status.tls.notAfter), per"
                    + " Database; negative once expired")
            .baseUnit("seconds")
            .register(registry);
    this.replicationLag =
        MultiGauge.builder("cellar.database.replication.lag")
            .description(
                "How far each replica is behind its primary, as its server last said"
                    + " (status.instances[].replicationLagSeconds, polled every 30 s)")
            .baseUnit("seconds")
            .register(registry);
    this.josdk = MicrometerMetrics.withoutPerResourceMetrics(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  /**
   * The Prometheus text exposition of every meter. The per-Database gauges are computed now from
   * the statuses in the cache: no API call and no write.
   */
  public String scrape() {
    refreshDatabaseGauges();
    return registry.scrape();
  }

  private void refreshDatabaseGauges() {
    List<Database> all;
    try (Stream<Database> stream = databases.get()) {
      all = stream.toList();
    } catch (RuntimeException e) {
      all = List.of(); // the cache is not there before start
    }
    Instant now = clock.instant();
    List<MultiGauge.Row<?>> backups = new ArrayList<>();
    List<MultiGauge.Row<?>> verified = new ArrayList<>();
    List<MultiGauge.Row<?>> expiry = new ArrayList<>();
    List<MultiGauge.Row<?>> lag = new ArrayList<>();
    for (Database db : all) {
      DatabaseStatus status = db.getStatus();
      if (status == null) {
        continue;
      }
      Tags tags =
          Tags.of(
              "namespace", db.getMetadata().getNamespace(), "database", db.getMetadata().getName());
      completed(status.getLastBackup())
          .ifPresent(t -> backups.add(MultiGauge.Row.of(tags, secondsBetween(t, now))));
      completed(status.getLastVerifiedBackup())
          .ifPresent(t -> verified.add(MultiGauge.Row.of(tags, secondsBetween(t, now))));
      Optional.ofNullable(status.getTls())
          .map(TlsStatus::getNotAfter)
          .flatMap(OperatorMetrics::instant)
          .ifPresent(t -> expiry.add(MultiGauge.Row.of(tags, secondsBetween(now, t))));
      Optional.ofNullable(status.getInstances()).stream()
          .flatMap(List::stream)
          .filter(i -> i.getReplicationLagSeconds() != null)
          .forEach(
              i ->
                  lag.add(
                      MultiGauge.Row.of(
                          tags.and("pod", i.getName()), i.getReplicationLagSeconds())));
    }
    lastBackupAge.register(backups, true);
    lastVerifiedBackupAge.register(verified, true);
    certificateExpiry.register(expiry, true);
    replicationLag.register(lag, true);
  }

  private static Optional<Instant> completed(BackupRecord record) {
    return Optional.ofNullable(record)
        .map(BackupRecord::getCompletionTime)
        .flatMap(OperatorMetrics::instant);
  }

  private static Optional<Instant> instant(String time) {
    try {
      return Optional.of(Instant.parse(time));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static double secondsBetween(Instant from, Instant to) {
    return Duration.between(from, to).toMillis() / 1000.0;
  }

  /** One gauge per phase, each counting the Databases in {@code databases} at scrape time. */
  void countByPhase(Supplier<Stream<Database>> databases) {
    this.databases = databases;
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
    reconciling.incrementAndGet();
    try {
      T result = josdk.timeControllerExecution(execution);
      outcome = "success";
      return result;
    } finally {
      reconcileEnded();
      sample.stop(
          Timer.builder("cellar.reconcile.duration")
              .description("Whole reconciles of a Database: the workflow and the status")
              .tag("outcome", outcome)
              .publishPercentileHistogram()
              .register(registry));
    }
  }

  /** How many reconciles are running now. */
  public int reconciling() {
    return reconciling.get();
  }

  /** Waits until no reconcile runs, for at most {@code limit}; whether none runs. */
  public boolean awaitNoReconciles(Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    synchronized (noReconciles) {
      while (reconciling.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        noReconciles.wait(Math.max(1, left / 1_000_000));
      }
    }
    return true;
  }

  private void reconcileEnded() {
    if (reconciling.decrementAndGet() == 0) {
      synchronized (noReconciles) {
        noReconciles.notifyAll();
      }
    }
  }

  @Override
  public void eventReceived(Event event, Map<String, Object> metadata) {
    josdk.eventReceived(event, metadata);
  }

  @Override
  public void reconciliationSubmitted(
      HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
    josdk.reconciliationSubmitted(resource, retryInfo, metadata);
  }

  @Override
  public void reconciliationStarted(HasMetadata resource, Map<String, Object> metadata) {
    josdk.reconciliationStarted(resource, metadata);
  }

  @Override
  public void reconciliationFailed(
      HasMetadata resource,
      RetryInfo retryInfo,
      Exception exception,
      Map<String, Object> metadata) {
    josdk.reconciliationFailed(resource, retryInfo, exception, metadata);
  }

  @Override
  public void reconciliationSucceeded(HasMetadata resource, Map<String, Object> metadata) {
    josdk.reconciliationSucceeded(resource, metadata);
  }

  @Override
  public void reconciliationFinished(
      HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
    josdk.reconciliationFinished(resource, retryInfo, metadata);
  }

  @Override
  public void cleanupDone(ResourceID resourceID, Map<String, Object> metadata) {
    josdk.cleanupDone(resourceID, metadata);
  }
}
