package dev.cellar.operator;

import dev.cellar.api.v1.Database;
import dev.cellar.kubelean.StartupHeap;
import dev.cellar.operator.runtime.ApiServerWait;
import dev.cellar.operator.runtime.ErrorMessages;
import dev.cellar.operator.runtime.LogFormats;
import dev.cellar.operator.runtime.OperatorHttpServer;
import dev.cellar.operator.runtime.OperatorMetrics;
import dev.cellar.operator.runtime.OperatorSettings;
import dev.cellar.operator.wiring.ApiServer;
import dev.cellar.operator.wiring.LeanInformers;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the settings, the client, the reconciler, metrics and the HTTP server, and starts. With
 * {@code dev.cellar.operator.wiring}, the one place that uses the client and JVM tuning of the
 * kube-lean module: the client, the Databases' informer and the heap's bounds while it fills.
 */
public final class CellarOperator {
  public static final String LEASE = "cellar-operator";

  /** Set by the shutdown hook: losing the Lease is then expected, not a reason to exit. */
  private static final AtomicBoolean STOPPING = new AtomicBoolean();

  private CellarOperator() {}

  /** The system property that sizes the JDK's common pool; read once, when it first starts. */
  static final String COMMON_POOL_PARALLELISM =
      "java.util.concurrent.ForkJoinPool.common.parallelism";

  public static void main(String[] args) throws IOException, InterruptedException {
    // The JDK's HTTP client completes each asynchronous request (every request fabric8 sends) on
    // CompletableFuture's default executor, which starts a new thread per task when the common
    // pool has fewer than two workers, as on one or two cores: 9,787 threads in 115 s while 500
    // Databases converged (docs/performance.md, Fewer threads). Two workers reuse their threads
    // instead (more cores have more by default). Set before anything starts the pool; -D on the
    // command line wins.
    if (System.getProperty(COMMON_POOL_PARALLELISM) == null
        && Runtime.getRuntime().availableProcessors() <= 2) {
      System.setProperty(COMMON_POOL_PARALLELISM, "2");
    }
    if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println(OperatorSettings.HELP);
      return;
    }
    OperatorSettings settings;
    try {
      settings = OperatorSettings.ofProcess();
    } catch (OperatorSettings.InvalidSetting e) {
      System.err.println("cellar-operator: " + e.getMessage());
      System.exit(2);
      return;
    }
    LogFormats.apply(settings.logFormat());
    Logger log = LoggerFactory.getLogger(CellarOperator.class);
    if (java.util.concurrent.ForkJoinPool.getCommonPoolParallelism() < 2) {
      log.warn(
          "the JDK's common pool has {} worker(s): each request to the API server completes on a"
              + " new thread (set -D{}=2)",
          java.util.concurrent.ForkJoinPool.getCommonPoolParallelism(),
          COMMON_POOL_PARALLELISM);
    }
    KubernetesClient client = ApiServer.client();
    OperatorMetrics metrics = new OperatorMetrics();
    Operator operator = create(client, settings, metrics);
    OperatorHttpServer http =
        settings.httpPort() > 0
            ? OperatorHttpServer.start(settings.httpPort(), operator, metrics)
            : null;
    // SIGTERM (a rolling update, kubectl delete pod): stop the informers and give up the Lease.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  STOPPING.set(true);
                  drain(metrics, log);
                  operator.stop();
                  log.info("stopped");
                  if (http != null) {
                    http.close();
                  }
                },
                "cellar-shutdown"));
    // A roomier old generation while the informers fill the caches.
    StartupHeap heap = StartupHeap.loosen();
    // Until the API server answers: live (a restart would not help) but not ready.
    ApiServerWait.until(
        client, HasMetadata.getApiVersion(Database.class), HasMetadata.getPlural(Database.class));
    try {
      operator.start();
    } catch (RuntimeException e) {
      // One line, and an exit: a half-started operator must not keep answering /healthz.
      log.error(
          "cannot start: {}. Check that the API server at {} answers and that the CRD is installed"
              + " (kubectl apply -f deploy/crd/)",
          ErrorMessages.oneLine(e),
          client.getMasterUrl());
      System.exit(1);
    }
    heap.restore();
    log.info(
        "Cellar operator started against {}; namespaces: {}; leader election: {}",
        client.getMasterUrl(),
        settings.watchNamespaces().isEmpty() ? "all" : settings.watchNamespaces(),
        settings.leaderElection());
  }

  /**
   * How long a stopping operator lets its running reconciles finish. JOSDK's stop empties the
   * informers' caches first and then interrupts the reconciles still running: each logs an ERROR
   * with its stack trace ("Thread interrupted for primary", a page at every rolling update of a
   * busy operator), and one that ran on with empty caches would take every child for missing. So
   * the reconciles are let finish before JOSDK's stop, while new ones start nothing ({@link
   * #stopping}); the next leader reconciles every Database when it starts. Within the Deployment's
   * 30 s grace, with room to give up the Lease.
   */
  static final Duration RECONCILE_GRACE = Duration.ofSeconds(10);

  /** Whether the operator is stopping: a reconcile that starts now does nothing. */
  public static boolean stopping() {
    return STOPPING.get();
  }

  private static void drain(OperatorMetrics metrics, Logger log) {
    int running = metrics.reconciling();
    if (running == 0) {
      return;
    }
    log.info(
        "stopping: {} reconcile(s) running, given up to {} s to finish",
        running,
        RECONCILE_GRACE.toSeconds());
    try {
      if (!metrics.awaitNoReconciles(RECONCILE_GRACE)) {
        log.warn(
            "stopping: {} reconcile(s) still running after {} s are interrupted; the next leader"
                + " takes their steps again",
            metrics.reconciling(),
            RECONCILE_GRACE.toSeconds());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** An operator with these settings on {@code client}. */
  public static Operator create(
      KubernetesClient client, OperatorSettings settings, OperatorMetrics metrics) {
    Operator operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withMetrics(metrics)
                  .withConcurrentReconciliationThreads(settings.reconcileThreads())
                  // JOSDK's default is 50 threads for the dependents' workflows, each with its
                  // stack and malloc cache; a reconcile waits for its workflow, so as many
                  // workflow threads as reconcile threads keep every reconcile going.
                  // (-Dcellar.workflowThreads sets another count, to measure.)
                  .withConcurrentWorkflowExecutorThreads(
                      Integer.getInteger("cellar.workflowThreads", settings.reconcileThreads()));
              if (settings.leaderElection()) {
                o.withLeaderElectionConfiguration(
                    new LeaderElectionConfiguration(
                        LEASE,
                        settings.operatorNamespace(),
                        LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE,
                        LeaderElectionConfiguration.RENEW_DEADLINE_DEFAULT_VALUE,
                        LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE,
                        identity(),
                        new LeaderCallbacks(() -> {}, CellarOperator::lostLease, leader -> {}),
                        // JOSDK's own exit on a lost Lease calls System.exit also when the Lease
                        // goes because the shutdown hook stops the operator: System.exit inside a
                        // shutdown hook blocks for ever, and every SIGTERM ended in the SIGKILL
                        // of the grace period (30 s per rolling update, HelmReleaseIT).
                        false));
              }
            });
    operator.register(
        new DatabaseReconciler(),
        c -> {
          if (!settings.watchNamespaces().isEmpty()) {
            c.settingNamespaces(settings.watchNamespaces());
          }
          LeanInformers.configureDatabases(c, settings.watchNamespaces());
        });
    return operator;
  }

  /**
   * The Lease was lost while running (renewal failed): exit, so that no two operators reconcile at
   * once; the next leader takes over. During shutdown (the hook stops the operator, which gives up
   * leading) nothing is done: the JVM is exiting already.
   */
  static void lostLease() {
    if (!STOPPING.get()) {
      LoggerFactory.getLogger(CellarOperator.class)
          .error("lost the Lease {}: exiting so that only its holder reconciles", LEASE);
      System.exit(1);
    }
  }

  /** The pod's name in a cluster, else host and pid: unique among the Lease's candidates. */
  static String identity() {
    return Optional.ofNullable(System.getenv("POD_NAME"))
        .filter(s -> !s.isBlank())
        .orElse(ManagementFactory.getRuntimeMXBean().getName());
  }
}
