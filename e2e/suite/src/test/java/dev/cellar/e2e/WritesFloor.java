package dev.cellar.e2e;

import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.events.EventRecorder;
import dev.cellar.testkit.LocalCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The floor with Cellar's own writes (bin/bench with CELLAR_BENCH_WRITES_FLOOR=true;
 * docs/performance.md, The writes floor): on a fresh cluster, a plain client makes the writes
 * Cellar makes for each Database and nothing else. Each of the bench's threads creates a Database,
 * its children (owned by it; the StatefulSet, CronJob, NetworkPolicy and claim applied server-side,
 * as Cellar writes them), its first status and an Event; a pod informer gives each pod its role
 * label and bootstrap annotation; once a StatefulSet is ready, its Database gets the converged
 * status, its pod loses the annotation and a second Event is recorded. None of Cellar's reads,
 * matching, certificates or status computation: what the cluster needs for the writes themselves,
 * timed as Cellar is, from the first create to the last Database Ready.
 */
final class WritesFloor {
  /** Its time, the cluster's CPU while it ran and the client JVM's (the bench's own). */
  record Result(Duration converged, Map<String, Double> clusterCpu, double clientCpu) {}

  private static final String NS = ScaleBenchmark.NS;
  private static final String PRIMARY =
      String.format(
          "{\"metadata\":{\"labels\":{\"%s\":\"%s\"},\"annotations\":{\"%s\":\"true\"}}}",
          Keys.ROLE, Keys.ROLE_PRIMARY, Keys.BOOTSTRAP_ANNOTATION);
  private static final String BOOTSTRAPPED =
      String.format("{\"metadata\":{\"annotations\":{\"%s\":null}}}", Keys.BOOTSTRAP_ANNOTATION);

  private final KubernetesClient client;
  private final Map<String, String> statuses;
  private final Map<String, Database> databases = new ConcurrentHashMap<>();
  private final Set<String> finished = ConcurrentHashMap.newKeySet();
  private final ExecutorService writes;
  private SharedIndexInformer<StatefulSet> sets;

  private WritesFloor(KubernetesClient client, Map<String, String> statuses, int threads) {
    this.client = client;
    this.statuses = statuses;
    this.writes = Executors.newFixedThreadPool(threads);
  }

  /**
   * Runs it for the children Cellar made and the statuses its Databases converged to (JSON by
   * name).
   */
  static Result run(
      ScaleBenchmark bench,
      int n,
      ScaleBenchmark.Floor.Children children,
      Map<String, String> statuses,
      Duration deadline)
      throws Exception {
    LocalCluster cluster = LocalCluster.get();
    cluster.recreate();
    Cellar.kubectlOk(
        cluster, "apply", "-f", LocalCluster.repoRoot().resolve("deploy/crd").toString());
    Cellar.kubectlOk(
        cluster,
        "wait",
        "--for=condition=Established",
        "crd/databases.cellar.dev",
        "--timeout=60s");
    try (KubernetesClient client = cluster.newClient()) {
      ScaleBenchmark.prepare(client, n);
      WritesFloor floor = new WritesFloor(client, statuses, bench.threads);
      try {
        return floor.converge(bench, n, children, deadline);
      } finally {
        floor.writes.shutdownNow();
      }
    }
  }

  private Result converge(
      ScaleBenchmark bench, int n, ScaleBenchmark.Floor.Children children, Duration deadline)
      throws Exception {
    ScaleBenchmark.FirstSeen<Database> ready =
        new ScaleBenchmark.FirstSeen<>(
            client.resources(Database.class).inNamespace(NS).inform(), ScaleBenchmark::isReady);
    Set<String> labelled = ConcurrentHashMap.newKeySet();
    SharedIndexInformer<Pod> pods = client.pods().inNamespace(NS).inform();
    pods.addEventHandler(
        handler(
            pod -> {
              String name = pod.getMetadata().getName();
              if (labelled.add(name)) {
                writes.submit(() -> patchPod(name, PRIMARY));
              }
            }));
    sets = client.apps().statefulSets().inNamespace(NS).inform();
    sets.addEventHandler(handler(set -> whenReady(set.getMetadata().getName(), set)));
    Map<String, Double> clusterCpu = ScaleBenchmark.clusterCpuSeconds();
    long pid = ProcessHandle.current().pid();
    double clientCpu = ScaleBenchmark.cpuSeconds(pid);
    Instant start = Instant.now();
    children.shared().forEach(o -> client.resource(fresh(o)).create());
    bench.inParallel(children.perDatabase(), this::create);
    await("Cellar's writes from a plain client: " + n + " Databases Ready")
        .atMost(deadline)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> ready.count() == n);
    // The last Databases' pod patches and Events come after their Ready status: let them finish.
    writes.shutdown();
    writes.awaitTermination(1, TimeUnit.MINUTES);
    Result result =
        new Result(
            Duration.between(start, ready.last()),
            ScaleBenchmark.since(clusterCpu, ScaleBenchmark.clusterCpuSeconds()),
            ScaleBenchmark.cpuSeconds(pid) - clientCpu);
    ready.close();
    pods.close();
    sets.close();
    return result;
  }

  /** One Database, its children, its first status and its first Event. */
  private void create(List<HasMetadata> objects) {
    String name = objects.get(0).getMetadata().getLabels().get("app.kubernetes.io/instance");
    Database db =
        client
            .resources(Database.class)
            .inNamespace(NS)
            .resource(ScaleBenchmark.database(name, Integer.parseInt(name.substring(3))))
            .create();
    for (HasMetadata object : objects) {
      HasMetadata child = fresh(object);
      child
          .getMetadata()
          .setOwnerReferences(
              List.of(
                  new OwnerReferenceBuilder()
                      .withApiVersion(db.getApiVersion())
                      .withKind(db.getKind())
                      .withName(name)
                      .withUid(db.getMetadata().getUid())
                      .withController(true)
                      .withBlockOwnerDeletion(true)
                      .build()));
      if (child instanceof StatefulSet
          || child instanceof CronJob
          || child instanceof NetworkPolicy
          || child instanceof PersistentVolumeClaim) {
        client.resource(child).fieldManager(Keys.OPERATOR).forceConflicts().serverSideApply();
      } else {
        client.resource(child).create();
      }
    }
    // The converged status with Ready false: a first status of the same size.
    patchStatus(name, statuses.get(name).replace("\"status\":\"True\"", "\"status\":\"False\""));
    event(db, "Creating");
    databases.put(name, db);
    // Its StatefulSet may have become ready before this Database was known here.
    whenReady(name, sets.getStore().getByKey(NS + "/" + name));
  }

  private void whenReady(String name, StatefulSet set) {
    if (set != null
        && ScaleBenchmark.ready(set)
        && databases.containsKey(name)
        && finished.add(name)) {
      writes.submit(
          () -> {
            patchStatus(name, statuses.get(name));
            patchPod(name + "-0", BOOTSTRAPPED);
            event(databases.get(name), "Ready");
          });
    }
  }

  /** What a client would send: Floor's copy, without the status the API server filled in. */
  private static HasMetadata fresh(HasMetadata object) {
    HasMetadata copy = Serialization.clone(object);
    if (copy instanceof StatefulSet set) {
      set.setStatus(null);
    }
    if (copy instanceof CronJob job) {
      job.setStatus(null);
    }
    return copy;
  }

  private void patchPod(String name, String patch) {
    client
        .pods()
        .inNamespace(NS)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  private void patchStatus(String name, String status) {
    client
        .resources(Database.class)
        .inNamespace(NS)
        .withName(name)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":" + status + "}");
  }

  /** Cellar's own Event: the operator's builder. */
  private void event(Database db, String reason) {
    client
        .v1()
        .events()
        .inNamespace(NS)
        .resource(
            EventRecorder.event(
                db,
                new EventRecorder.Note(EventRecorder.NORMAL, reason, reason),
                Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString()))
        .create();
  }

  private static <T> ResourceEventHandler<T> handler(Consumer<T> look) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T object) {
        look.accept(object);
      }

      @Override
      public void onUpdate(T old, T object) {
        look.accept(object);
      }

      @Override
      public void onDelete(T object, boolean unknown) {}
    };
  }
}
