package dev.cellar.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cellar.api.v1.BackupRecord;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.InstanceStatus;
import dev.cellar.api.v1.Phase;
import dev.cellar.api.v1.TlsStatus;
import dev.cellar.testkit.PrometheusText;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OperatorMetricsTest {
  static Database db(String name, Phase phase) {
    Database db = new Database("shop", name, new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi"));
    if (phase != null) {
      DatabaseStatus status = new DatabaseStatus();
      status.setPhase(phase);
      db.setStatus(status);
    }
    return db;
  }

  @Test
  void countsDatabasesByPhaseAtScrapeTime() {
    OperatorMetrics metrics = new OperatorMetrics();
    List<Database> cache = new ArrayList<>(List.of(db("a", Phase.Ready), db("b", null)));
    metrics.countByPhase(cache::stream);

    Map<String, Double> first = PrometheusText.parse(metrics.scrape());
    assertThat(first).containsEntry("cellar_databases{phase=\"Ready\"}", 1.0);
    assertThat(first).containsEntry("cellar_databases{phase=\"None\"}", 1.0);
    assertThat(first).containsEntry("cellar_databases{phase=\"Failed\"}", 0.0);

    cache.add(db("c", Phase.Ready));
    cache.remove(1);
    Map<String, Double> second = PrometheusText.parse(metrics.scrape());
    assertThat(second).containsEntry("cellar_databases{phase=\"Ready\"}", 2.0);
    assertThat(second).containsEntry("cellar_databases{phase=\"None\"}", 0.0);
  }

  @Test
  void backupAgesCertificateExpiryAndLagPerDatabaseFromTheStatusAtScrapeTime() {
    Instant now = Instant.parse("2026-11-23T12:00:00Z");
    OperatorMetrics metrics = new OperatorMetrics(Clock.fixed(now, ZoneOffset.UTC));
    Database backedUp = db("orders", Phase.Ready);
    BackupRecord last = new BackupRecord();
    last.setCompletionTime("2026-11-23T11:00:00Z");
    backedUp.getStatus().setLastBackup(last);
    BackupRecord verified = new BackupRecord();
    verified.setCompletionTime("2026-11-22T12:00:00Z");
    backedUp.getStatus().setLastVerifiedBackup(verified);
    TlsStatus tls = new TlsStatus();
    tls.setNotAfter("2026-11-24T12:00:00Z");
    backedUp.getStatus().setTls(tls);
    backedUp
        .getStatus()
        .setInstances(
            List.of(
                new InstanceStatus("orders-0", "primary", true),
                new InstanceStatus("orders-1", "replica", true, 7L),
                new InstanceStatus("orders-2", "replica", false)));
    List<Database> cache = new ArrayList<>(List.of(backedUp, db("fresh", Phase.Provisioning)));
    metrics.countByPhase(cache::stream);

    Map<String, Double> samples = PrometheusText.parse(metrics.scrape());
    String orders = "{database=\"orders\",namespace=\"shop\"}";
    assertThat(samples)
        .containsEntry("cellar_database_last_backup_age_seconds" + orders, 3600.0)
        .containsEntry("cellar_database_last_verified_backup_age_seconds" + orders, 86400.0)
        .containsEntry("cellar_database_certificate_expires_in_seconds" + orders, 86400.0)
        .containsEntry(
            "cellar_database_replication_lag_seconds{database=\"orders\",namespace=\"shop\","
                + "pod=\"orders-1\"}",
            7.0);
    // Only a replica that said its lag has a sample: not the primary, not a silent replica.
    assertThat(samples.keySet())
        .filteredOn(k -> k.startsWith("cellar_database_replication_lag_seconds{"))
        .hasSize(1);
    // A Database without a backup has no sample (not a zero age).
    assertThat(samples.keySet()).noneMatch(k -> k.contains("fresh"));

    // Gone from the cache: gone from the scrape.
    cache.remove(0);
    assertThat(PrometheusText.parse(metrics.scrape()).keySet())
        .noneMatch(k -> k.startsWith("cellar_database_"));
  }

  @Test
  void timesWholeReconcilesAsAHistogramByOutcome() throws Exception {
    OperatorMetrics metrics = new OperatorMetrics();
    assertThat(metrics.timeControllerExecution(execution("reconcile", () -> "done")))
        .isEqualTo("done");
    assertThatThrownBy(() -> metrics.timeControllerExecution(failingReconcile()))
        .hasRootCauseMessage("boom");

    Map<String, Double> samples = PrometheusText.parse(metrics.scrape());
    assertThat(
            PrometheusText.sum(
                samples, "cellar_reconcile_duration_seconds_count", "outcome=\"success\""))
        .isEqualTo(1.0);
    assertThat(
            PrometheusText.sum(
                samples, "cellar_reconcile_duration_seconds_count", "outcome=\"failure\""))
        .isEqualTo(1.0);
    assertThat(samples.keySet())
        .anyMatch(k -> k.startsWith("cellar_reconcile_duration_seconds_bucket{"));
  }

  @Test
  void countsTheRunningReconcilesAndWaitsForThemToEnd() throws Exception {
    OperatorMetrics metrics = new OperatorMetrics();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<String> running =
          pool.submit(
              () ->
                  metrics.timeControllerExecution(
                      execution(
                          "reconcile",
                          () -> {
                            started.countDown();
                            release.await();
                            return "done";
                          })));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(metrics.reconciling()).isEqualTo(1);
      assertThat(metrics.awaitNoReconciles(Duration.ofMillis(50))).isFalse();

      release.countDown();
      assertThat(metrics.awaitNoReconciles(Duration.ofSeconds(10))).isTrue();
      assertThat(metrics.reconciling()).isZero();
      assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo("done");
    } finally {
      pool.shutdownNow();
    }
    // A failed reconcile ends too.
    assertThatThrownBy(() -> metrics.timeControllerExecution(failingReconcile()))
        .hasRootCauseMessage("boom");
    assertThat(metrics.reconciling()).isZero();
  }

  @Test
  void jvmMetricsAreThere() {
    Map<String, Double> samples = PrometheusText.parse(new OperatorMetrics().scrape());
    assertThat(PrometheusText.sum(samples, "jvm_memory_used_bytes")).isPositive();
    assertThat(PrometheusText.sum(samples, "jvm_threads_live_threads")).isPositive();
  }

  @Test
  void theReaderRefusesWhatIsNotPrometheusText() {
    assertThatThrownBy(() -> PrometheusText.parse("up 1\nnot a metric line\n"))
        .hasMessageContaining("line 2");
    assertThatThrownBy(() -> PrometheusText.parse("# TYPE up bogus\n"))
        .hasMessageContaining("line 1");
    assertThat(PrometheusText.parse("# HELP up it is\n# TYPE up gauge\nup{a=\"b\"} 1.5e3\n"))
        .containsEntry("up{a=\"b\"}", 1500.0);
  }

  /** A reconcile that fails with "boom". */
  static Metrics.ControllerExecution<String> failingReconcile() {
    return execution(
        "reconcile",
        () -> {
          throw new IllegalStateException("boom");
        });
  }

  interface Body<T> {
    T run() throws Exception;
  }

  static <T> Metrics.ControllerExecution<T> execution(String name, Body<T> body) {
    return new Metrics.ControllerExecution<>() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String controllerName() {
        return "databasereconciler";
      }

      @Override
      public String successTypeName(T result) {
        return "success";
      }

      @Override
      public ResourceID resourceID() {
        return new ResourceID("orders-db", "shop");
      }

      @Override
      public Map<String, Object> metadata() {
        return Map.of();
      }

      @Override
      public T execute() throws Exception {
        return body.run();
      }
    };
  }
}
