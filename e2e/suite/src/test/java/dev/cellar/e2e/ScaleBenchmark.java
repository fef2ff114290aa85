package dev.cellar.e2e;

import static org.awaitility.Awaitility.await;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.PrometheusText;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * How fast Cellar converges, what it costs and how that grows with N (docs/performance.md, The
 * method). Run by {@code bin/bench} ({@code mvn -Pbench}), never by {@code mvn verify}: it measures
 * and reports, it asserts no timings. Each size gets a fresh local cluster, once for Cellar and
 * once for the floor: a plain client creating the same children Cellar made, with the same
 * concurrency.
 */
class ScaleBenchmark {
  static final String NS = "bench";
  static final String OPERATOR_USER = "system:serviceaccount:cellar-system:cellar-operator";
  static final Set<String> WRITES =
      Set.of("create", "update", "patch", "delete", "deletecollection");
  static final Set<String> READS = Set.of("get", "list", "watch");

  /** The operator JVM's options as given by bench.jvm, if they are. */
  static final java.util.Optional<List<String>> GIVEN_JVM =
      java.util.Optional.of(System.getProperty("bench.jvm", "").trim())
          .filter(o -> !o.isEmpty())
          .map(o -> List.of(o.split("\\s+")));

  /**
   * The operator JVM's options for {@code n} Databases: bench.jvm, else the Deployment's
   * JAVA_TOOL_OPTIONS plus {@code -XX:MaxRAM} set to the memory limit that holds n ({@link
   * #memoryLimitMiB}): this machine has no such limit, and without it the JVM would size its heap
   * (initial and maximum) from the host's memory instead of the limit, as it does in a pod.
   */
  static List<String> jvm(int n) {
    return GIVEN_JVM.orElseGet(
        () -> {
          List<String> jvm = new ArrayList<>(deploymentJvmOptions());
          jvm.add("-XX:MaxRAM=" + memoryLimitMiB(deploymentLimitMiB(), n) + "m");
          return List.copyOf(jvm);
        });
  }

  /**
   * The memory limit docs/operations.md's sizing gives for {@code n} Databases: the Deployment's if
   * it holds them, else the first of 512Mi, 1Gi, 2Gi and so on that does. A limit holds n when half
   * of it (the heap's maximum) fits the Deployment's young generation and an old one a quarter over
   * the live heap, which is about 28 MiB plus 0.06 MiB a Database. So `bin/bench 500,1000,5000`
   * runs the 5000 with the limit a user would give them (1Gi), where the Deployment's 384Mi runs
   * out.
   */
  static long memoryLimitMiB(long deploymentMiB, int n) {
    double liveMiB = 28 + 0.06 * n;
    long limit = deploymentMiB;
    while (limit / 2.0 < YOUNG_GENERATION_MIB + 1.25 * liveMiB) {
      limit = limit < 512 ? 512 : limit * 2;
    }
    return limit;
  }

  /** The young generation's size that the Deployment's -Xmn gives, in MiB. */
  static final long YOUNG_GENERATION_MIB =
      deploymentJvmOptions().stream()
          .filter(o -> o.matches("-Xmn[0-9]+m"))
          .map(o -> Long.parseLong(o.substring(4, o.length() - 1)))
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "deploy/operator/deployment.yaml's JAVA_TOOL_OPTIONS give no -Xmn<N>m"));

  /** The memory limit of deploy/operator/deployment.yaml's container, in MiB. */
  static long deploymentLimitMiB() {
    return deploymentContainer()
            .getResources()
            .getLimits()
            .get("memory")
            .getNumericalAmount()
            .longValue()
        >> 20;
  }

  /** JAVA_TOOL_OPTIONS of deploy/operator/deployment.yaml. */
  static List<String> deploymentJvmOptions() {
    String options =
        deploymentContainer().getEnv().stream()
            .filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS"))
            .findFirst()
            .orElseThrow()
            .getValue();
    return List.of(options.trim().split("\\s+"));
  }

  /**
   * The operator's environment in the Deployment that tunes the process (not Cellar's settings).
   */
  static Map<String, String> deploymentProcessEnv() {
    Map<String, String> env = new java.util.HashMap<>();
    deploymentContainer().getEnv().stream()
        .filter(e -> e.getName().equals("MALLOC_ARENA_MAX") && e.getValue() != null)
        .forEach(e -> env.put(e.getName(), e.getValue()));
    return env;
  }

  static Container deploymentContainer() {
    try (var in =
        Files.newInputStream(LocalCluster.repoRoot().resolve("deploy/operator/deployment.yaml"))) {
      return Serialization.unmarshal(in, Deployment.class)
          .getSpec()
          .getTemplate()
          .getSpec()
          .getContainers()
          .get(0);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  final int threads = Integer.getInteger("bench.threads", 10);

  /**
   * The operator's RECONCILE_THREADS (and workflow threads): bench.reconcileThreads, else threads
   * (Integer.getInteger falls back on the empty value bin/bench passes when it is unset).
   */
  final int reconcileThreads = Integer.getInteger("bench.reconcileThreads", threads);

  Map<String, String> settings() {
    Map<String, String> settings = new java.util.HashMap<>(deploymentProcessEnv());
    settings.put("LEADER_ELECTION", "false");
    settings.put("RECONCILE_THREADS", String.valueOf(reconcileThreads));
    return settings;
  }

  final Duration idle = Duration.ofSeconds(Long.getLong("bench.idleSeconds", 300));

  @Test
  void scale() throws Exception {
    List<Integer> sizes =
        List.of(System.getProperty("bench.sizes", "100").split(",")).stream()
            .map(String::trim)
            .map(Integer::parseInt)
            .toList();
    List<BenchReport.Row> rows = new ArrayList<>();
    for (int n : sizes) {
      rows.add(measure(n));
      System.out.println("bench: " + rows.get(rows.size() - 1));
      // The table after each size: a later size that does not finish (5000's floor once stalled
      // binding claims for an hour) leaves the rows of the sizes measured before it.
      BenchReport.write(rows, threads, reconcileThreads, idle);
    }
  }

  BenchReport.Row measure(int n) throws Exception {
    LocalCluster cluster = LocalCluster.get();
    cluster.recreate();
    BenchReport.Row row = new BenchReport.Row(n);
    Duration deadline =
        Duration.ofMinutes(Long.getLong("bench.deadlineMinutes", 10)).plusSeconds(n);
    Floor.Children children;
    Map<String, String> statuses = new LinkedHashMap<>();
    try (KubernetesClient client = cluster.newClient();
        Cellar cellar = Cellar.install("bench-" + n, settings(), jvm(n))) {
      prepare(client, n);
      await("operator ready")
          .atMost(Duration.ofMinutes(2))
          .ignoreExceptions()
          .until(() -> cellar.get("/readyz").statusCode() == 200);

      // Converge: N Databases created at once by `threads` clients.
      FirstSeen<Database> ready =
          new FirstSeen<>(
              client.resources(Database.class).inNamespace(NS).inform(), ScaleBenchmark::isReady);
      // Where each Database's time goes: to its StatefulSet (the operator's first reconciles),
      // to that StatefulSet's pod ready (the control plane), to its Ready (the operator again).
      SharedIndexInformer<StatefulSet> sets = client.apps().statefulSets().inNamespace(NS).inform();
      FirstSeen<StatefulSet> setMade = new FirstSeen<>(sets, s -> true);
      FirstSeen<StatefulSet> setReady = new FirstSeen<>(sets, ScaleBenchmark::ready);
      Map<String, Instant> created = new ConcurrentHashMap<>();
      Map<String, Double> clusterCpu = clusterCpuSeconds();
      Instant start = Instant.now();
      inParallel(
          IntStream.range(0, n).boxed().toList(),
          i -> {
            String name = "db-" + i;
            client.resources(Database.class).inNamespace(NS).resource(database(name, i)).create();
            created.put(name, Instant.now());
          });
      await(n + " Databases Ready")
          .atMost(deadline)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> ready.count() == n);
      row.clusterCpu = since(clusterCpu, clusterCpuSeconds());
      ready.close();
      sets.close();
      Instant converged = ready.last();
      row.converge = Duration.between(start, converged);
      row.latencies =
          created.entrySet().stream()
              .map(e -> Duration.between(e.getValue(), ready.at(e.getKey())))
              .sorted()
              .toList();
      row.toStatefulSet = sortedGaps(created.keySet(), created::get, setMade::at);
      row.toPods = sortedGaps(created.keySet(), setMade::at, setReady::at);
      row.afterPods = sortedGaps(created.keySet(), setReady::at, ready::at);
      timeline(n, start, created, setMade, setReady, ready);
      var metrics = cellar.metrics();
      row.eventsReceived = PrometheusText.sum(metrics, "operator_sdk_events_received_total");
      row.reconciles = PrometheusText.sum(metrics, "operator_sdk_reconciliations_started_total");
      row.convergeWrites = Audit.count(OPERATOR_USER, start, converged).only(WRITES);

      // Cost after convergence.
      row.cpuSeconds = cpuSeconds(cellar.pid());
      row.peakRssKiB = procStatus(cellar.pid(), "VmHWM");
      row.heapUsed = heapUsed(cellar);
      LocalCluster.exec(List.of("jcmd", String.valueOf(cellar.pid()), "GC.run"), null);
      row.heapLive = heapUsed(cellar);
      histogram(cellar.pid(), n);

      // Idle: what the operator writes and reads while nothing changes.
      Instant idleStart = Instant.now();
      await("idle window").pollDelay(idle).atMost(idle.plusMinutes(1)).until(cellar::isAlive);
      Instant idleEnd = Instant.now();
      Audit.Counts requests = Audit.count(OPERATOR_USER, idleStart, idleEnd);
      row.idleWrites = requests.only(WRITES);
      row.idleReads = requests.only(READS);
      row.readsPerMinute =
          row.idleReads.total() * 60.0 / Duration.between(idleStart, idleEnd).toSeconds();

      // Churn: 10 % of the StatefulSets deleted at once.
      List<StatefulSet> victims =
          client.apps().statefulSets().inNamespace(NS).list().getItems().stream()
              .filter(s -> Integer.parseInt(s.getMetadata().getName().substring(3)) % 10 == 0)
              .toList();
      Set<String> oldUids =
          victims.stream().map(s -> s.getMetadata().getUid()).collect(Collectors.toSet());
      Instant churnStart = Instant.now();
      client.resourceList(victims).delete();
      await("churned StatefulSets back and ready")
          .atMost(deadline)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  victims.stream()
                      .map(
                          v ->
                              client
                                  .apps()
                                  .statefulSets()
                                  .inNamespace(NS)
                                  .withName(v.getMetadata().getName())
                                  .get())
                      .allMatch(
                          s ->
                              s != null
                                  && !oldUids.contains(s.getMetadata().getUid())
                                  && ready(s)));
      row.churned = victims.size();
      row.churn = Duration.between(churnStart, Instant.now());

      // Start-up with N Databases: process start to /readyz and to the first reconcile. /readyz
      // is polled, not /metrics: a scrape walks every Database for its gauges, and one every 20 ms
      // cost the starting operator a quarter of its CPU (docs/performance.md, What bin/bench
      // measures).
      cellar.stop();
      cellar.start();
      Instant processStart = cellar.startedAt();
      await("restarted operator ready")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(20))
          .ignoreExceptions()
          .until(() -> cellar.get("/readyz").statusCode() == 200);
      Instant readyAt = Instant.now();
      await("restarted operator reconciles")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(250))
          .ignoreExceptions()
          .until(
              () ->
                  PrometheusText.sum(cellar.metrics(), "operator_sdk_reconciliations_started_total")
                      > 0);
      row.firstReconcile = Duration.between(processStart, Instant.now());
      row.ready = Duration.between(processStart, readyAt);

      // The stack's floor of memory beside the same Databases, the operator stopped.
      cellar.stop();
      if (cellar instanceof OperatorJar jar) {
        informersAlone(jar, row);
      }

      children = Floor.children(client);
      if (Boolean.getBoolean("bench.writesFloor")) {
        for (Database db : client.resources(Database.class).inNamespace(NS).list().getItems()) {
          statuses.put(db.getMetadata().getName(), Serialization.asJson(db.getStatus()));
        }
      }
    }

    if (!Boolean.parseBoolean(System.getProperty("bench.floor", "true"))) {
      row.floor = null; // CELLAR_BENCH_FLOOR=false: Cellar's side only (memory work)
      return row;
    }
    // The floor: the same children from a plain client, on a fresh cluster.
    cluster.recreate();
    try (KubernetesClient client = cluster.newClient()) {
      prepare(client, n);
      FirstSeen<StatefulSet> ready =
          new FirstSeen<>(
              client.apps().statefulSets().inNamespace(NS).inform(), ScaleBenchmark::ready);
      Map<String, Double> clusterCpu = clusterCpuSeconds();
      Instant start = Instant.now();
      children.shared().forEach(o -> client.resource(o).create());
      inParallel(
          children.perDatabase(), objects -> objects.forEach(o -> client.resource(o).create()));
      row.floorCreated = Duration.between(start, Instant.now());
      await("floor: " + n + " StatefulSets ready")
          .atMost(deadline)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> ready.count() == children.perDatabase().size());
      row.floorClusterCpu = since(clusterCpu, clusterCpuSeconds());
      ready.close();
      row.floor = Duration.between(start, ready.last());
    }
    if (Boolean.getBoolean("bench.writesFloor")) {
      row.writesFloor = WritesFloor.run(this, n, children, statuses, deadline);
    }
    return row;
  }

  /**
   * Each Database's steps in seconds from the start (created, its StatefulSet seen, its pod ready,
   * the Database Ready): target/bench/timeline-N.tsv, to find which ones waited and for what.
   */
  static void timeline(
      int n,
      Instant start,
      Map<String, Instant> created,
      FirstSeen<StatefulSet> setMade,
      FirstSeen<StatefulSet> setReady,
      FirstSeen<Database> ready)
      throws java.io.IOException {
    StringBuilder out = new StringBuilder("database\tcreated\tstatefulset\tpod ready\tready\n");
    for (String name : new java.util.TreeSet<>(created.keySet())) {
      out.append(name);
      for (Instant at :
          Arrays.asList(created.get(name), setMade.at(name), setReady.at(name), ready.at(name))) {
        out.append('\t')
            .append(at == null ? "-" : String.format(Locale.ROOT, "%.3f", secondsSince(start, at)));
      }
      out.append('\n');
    }
    java.nio.file.Path file = java.nio.file.Path.of("target/bench/timeline-" + n + ".tsv");
    Files.createDirectories(file.getParent());
    Files.writeString(file, out);
  }

  private static double secondsSince(Instant start, Instant at) {
    return Duration.between(start, at).toMillis() / 1000.0;
  }

  /**
   * What the operator's live heap holds, by class (a full GC first): target/bench/histogram-N.txt,
   * the evidence behind the memory decisions (docs/performance.md, Decisions: the caches).
   */
  static void histogram(long pid, int n) throws java.io.IOException {
    LocalCluster.Result histogram =
        LocalCluster.exec(List.of("jcmd", String.valueOf(pid), "GC.class_histogram"), null);
    java.nio.file.Path out = java.nio.file.Path.of("target/bench/histogram-" + n + ".txt");
    Files.createDirectories(out.getParent());
    // Where the rest of the process's memory goes, when the JVM runs with
    // -XX:NativeMemoryTracking=summary (CELLAR_BENCH_JVM); one line saying so otherwise.
    LocalCluster.Result nativeMemory =
        LocalCluster.exec(
            List.of("jcmd", String.valueOf(pid), "VM.native_memory", "summary"), null);
    Files.writeString(out, histogram.stdout() + "\n" + nativeMemory.stdout());
    // The operator's threads (their count is most of its native memory besides the heap).
    LocalCluster.Result threads =
        LocalCluster.exec(List.of("jcmd", String.valueOf(pid), "Thread.print"), null);
    Files.writeString(out.resolveSibling("threads-" + n + ".txt"), threads.stdout());
    // A heap dump of what is live, for finding what holds what (CELLAR_BENCH_HEAP_DUMP=true).
    if (Boolean.getBoolean("bench.heapDump")) {
      LocalCluster.exec(
          List.of(
              "jcmd",
              String.valueOf(pid),
              "GC.heap_dump",
              out.resolveSibling("heap-" + n + ".hprof").toAbsolutePath().toString()),
          null);
    }
  }

  /**
   * fabric8's informers alone ({@link InformersAlone}), with the operator's JVM options: their peak
   * RSS 30 s after they synced, as the operator's restart is measured, and their live heap (a class
   * histogram's total, which collects first). A JVM the limit cannot hold exits (the Deployment's
   * {@code -XX:+ExitOnOutOfMemoryError}): the row says so.
   */
  static void informersAlone(OperatorJar jar, BenchReport.Row row) throws Exception {
    Path log = jar.logs.resolve("informers-alone.log");
    Process process = jar.launch(InformersAlone.class, log);
    try {
      await("fabric8's informers alone synced, or out of memory")
          .atMost(Duration.ofMinutes(10))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(() -> !process.isAlive() || Files.readString(log).contains(InformersAlone.SYNCED));
      try {
        await("fabric8's informers alone, quiet for 30 s")
            .during(Duration.ofSeconds(30))
            .atMost(Duration.ofSeconds(40))
            .until(process::isAlive);
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        // it exited: the check below says so
      }
      if (!process.isAlive()) {
        row.informersAlone = BenchReport.Memory.OUT_OF_MEMORY;
        return;
      }
      long peakKiB = procStatus(process.pid(), "VmHWM");
      String histogram =
          LocalCluster.exec(
                  List.of("jcmd", String.valueOf(process.pid()), "GC.class_histogram"), null)
              .stdout();
      String[] total = histogram.strip().lines().reduce((a, b) -> b).orElseThrow().split("\\s+");
      row.informersAlone = new BenchReport.Memory(peakKiB, Long.parseLong(total[total.length - 1]));
    } finally {
      process.destroyForcibly();
      process.waitFor(20, TimeUnit.SECONDS);
    }
  }

  /** A cluster ready for {@code n} Databases: nodes for their pods and the namespace. */
  static void prepare(KubernetesClient client, int n) {
    addNodes(client, n);
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
  }

  /** Pods a benchmark node holds; the local cluster's two nodes hold 80 database pods each. */
  static final int PODS_PER_NODE = 250;

  /**
   * Enough kwok nodes for {@code n} database pods (and the churn's replacements): each declares 64
   * cores, 256 GiB, 1 TiB of ephemeral storage and {@link #PODS_PER_NODE} pods, its own pod CIDR
   * and a loopback address.
   */
  static void addNodes(KubernetesClient client, int n) {
    int count = (n + PODS_PER_NODE - 1) / PODS_PER_NODE + 1;
    Node template = client.nodes().withName("kwok-node-0").get();
    for (int i = 0; i < count; i++) {
      String name = "kwok-bench-" + i;
      Map<String, String> labels = new LinkedHashMap<>(template.getMetadata().getLabels());
      labels.put("kubernetes.io/hostname", name);
      Map<String, Quantity> capacity =
          Map.of(
              "cpu", new Quantity("64"),
              "memory", new Quantity("256Gi"),
              // The database pods request ephemeral storage: a node without it holds none.
              "ephemeral-storage", new Quantity("1Ti"),
              "pods", new Quantity(String.valueOf(PODS_PER_NODE)));
      client
          .nodes()
          .resource(
              new NodeBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withLabels(labels)
                  .withAnnotations(template.getMetadata().getAnnotations())
                  .endMetadata()
                  .withNewSpec()
                  .withPodCIDR("10.245." + i + ".0/24")
                  .withPodCIDRs("10.245." + i + ".0/24")
                  .endSpec()
                  .withNewStatus()
                  .addNewAddress("127.0.11." + (i + 1), "InternalIP")
                  .addNewAddress(name, "Hostname")
                  .withCapacity(capacity)
                  .withAllocatable(capacity)
                  .withNodeInfo(template.getStatus().getNodeInfo())
                  .endStatus()
                  .build())
          .create();
    }
    await(count + " benchmark nodes Ready")
        .atMost(Duration.ofMinutes(1))
        .until(
            () ->
                client.nodes().list().getItems().stream()
                        .filter(node -> node.getMetadata().getName().startsWith("kwok-bench-"))
                        .filter(
                            node ->
                                node.getStatus().getConditions() != null
                                    && node.getStatus().getConditions().stream()
                                        .anyMatch(
                                            c ->
                                                "Ready".equals(c.getType())
                                                    && "True".equals(c.getStatus())))
                        .count()
                    == count);
  }

  static Database database(String name, int i) {
    Engine engine = i % 2 == 0 ? Engine.POSTGRESQL : i % 4 == 1 ? Engine.MYSQL : Engine.MARIADB;
    String version =
        Map.of(Engine.POSTGRESQL, "16", Engine.MYSQL, "8.4", Engine.MARIADB, "11.4").get(engine);
    return new Database(NS, name, new DatabaseSpec(engine, version, "1Gi"));
  }

  /**
   * For each name, the time from {@code from} to {@code to}, sorted; names either misses skipped.
   */
  static List<Duration> sortedGaps(
      Set<String> names,
      java.util.function.Function<String, Instant> from,
      java.util.function.Function<String, Instant> to) {
    List<Duration> gaps = new ArrayList<>();
    for (String name : names) {
      Instant start = from.apply(name);
      Instant end = to.apply(name);
      if (start != null && end != null) {
        gaps.add(Duration.between(start, end));
      }
    }
    gaps.sort(Comparator.naturalOrder());
    return gaps;
  }

  static boolean isReady(Database db) {
    return db.getStatus() != null
        && Objects.equals(db.getStatus().getObservedGeneration(), db.getMetadata().getGeneration())
        && db.getStatus().getConditions() != null
        && db.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  static boolean ready(StatefulSet s) {
    return s.getStatus() != null
        && s.getStatus().getReadyReplicas() != null
        && s.getStatus().getReadyReplicas() >= s.getSpec().getReplicas();
  }

  /** Runs {@code task} over {@code items} on {@link #threads} threads and waits for all. */
  <T> void inParallel(List<T> items, java.util.function.Consumer<T> task)
      throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<java.util.concurrent.Future<?>> futures =
        items.stream().map(i -> pool.submit(() -> task.accept(i))).collect(Collectors.toList());
    pool.shutdown();
    pool.awaitTermination(30, TimeUnit.MINUTES);
    for (var f : futures) {
      try {
        f.get();
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException(e.getCause());
      }
    }
  }

  static long heapUsed(Cellar cellar) throws Exception {
    return (long) PrometheusText.sum(cellar.metrics(), "jvm_memory_used_bytes", "area=\"heap\"");
  }

  /** User and system CPU time of a process so far, from /proc/PID/stat (clock ticks of 10 ms). */
  static double cpuSeconds(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
  }

  /**
   * The CPU seconds each of the local cluster's processes (API server, etcd, controller manager,
   * scheduler, kwok) has used so far, by name, from the pid files of its state directory: the two
   * cores are shared, so what the operator makes the cluster do is time the floor does not spend.
   */
  static Map<String, Double> clusterCpuSeconds() throws java.io.IOException {
    Map<String, Double> cpu = new java.util.TreeMap<>();
    try (var files = Files.list(LocalCluster.stateDir().resolve("pids"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".pid")).toList()) {
        String name = file.getFileName().toString().replace(".pid", "");
        try {
          cpu.put(name, cpuSeconds(Long.parseLong(Files.readString(file).trim())));
        } catch (Exception e) {
          cpu.put(name, Double.NaN); // not running: the column says so
        }
      }
    }
    return cpu;
  }

  /** What each process used between two readings of {@link #clusterCpuSeconds}. */
  static Map<String, Double> since(Map<String, Double> before, Map<String, Double> after) {
    Map<String, Double> used = new java.util.TreeMap<>();
    after.forEach((name, seconds) -> used.put(name, seconds - before.getOrDefault(name, 0.0)));
    return used;
  }

  /** A field of /proc/PID/status in KiB (VmHWM: the peak resident set). */
  static long procStatus(long pid, String field) throws Exception {
    return Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status")).stream()
        .filter(l -> l.startsWith(field + ":"))
        .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
        .findFirst()
        .orElseThrow();
  }

  /** When each object first matched a predicate, seen by an informer. */
  static final class FirstSeen<T extends HasMetadata> implements ResourceEventHandler<T> {
    private final SharedIndexInformer<T> informer;
    private final Predicate<T> predicate;
    private final Map<String, Instant> seen = new ConcurrentHashMap<>();

    FirstSeen(SharedIndexInformer<T> informer, Predicate<T> predicate) {
      this.informer = informer;
      this.predicate = predicate;
      informer.addEventHandler(this);
    }

    private void look(T object) {
      if (predicate.test(object)) {
        seen.putIfAbsent(object.getMetadata().getName(), Instant.now());
      }
    }

    @Override
    public void onAdd(T object) {
      look(object);
    }

    @Override
    public void onUpdate(T old, T object) {
      look(object);
    }

    @Override
    public void onDelete(T object, boolean unknown) {}

    int count() {
      return seen.size();
    }

    Instant at(String name) {
      return seen.get(name);
    }

    Instant last() {
      return seen.values().stream().max(Comparator.naturalOrder()).orElseThrow();
    }

    void close() {
      informer.close();
    }
  }

  /** The children Cellar made, as a plain client would create them: per Database, in order. */
  static final class Floor {
    /**
     * What Cellar made: the objects each Database has (grouped by its instance label) and those its
     * Databases share (the engines' scripts ConfigMaps, which carry no instance).
     */
    record Children(List<HasMetadata> shared, List<List<HasMetadata>> perDatabase) {}

    static Children children(KubernetesClient client) {
      String selector = "app.kubernetes.io/managed-by=cellar-operator";
      List<HasMetadata> all = new ArrayList<>();
      all.addAll(client.secrets().inNamespace(NS).withLabelSelector(selector).list().getItems());
      all.addAll(client.configMaps().inNamespace(NS).withLabelSelector(selector).list().getItems());
      all.addAll(client.services().inNamespace(NS).withLabelSelector(selector).list().getItems());
      all.addAll(
          client
              .persistentVolumeClaims()
              .inNamespace(NS)
              .withLabelSelector(selector)
              .list()
              .getItems()
              .stream()
              .filter(p -> !p.getMetadata().getName().startsWith("data-"))
              .toList());
      all.addAll(
          client
              .apps()
              .statefulSets()
              .inNamespace(NS)
              .withLabelSelector(selector)
              .list()
              .getItems());
      all.addAll(
          client
              .batch()
              .v1()
              .cronjobs()
              .inNamespace(NS)
              .withLabelSelector(selector)
              .list()
              .getItems());
      all.addAll(
          client
              .network()
              .v1()
              .networkPolicies()
              .inNamespace(NS)
              .withLabelSelector(selector)
              .list()
              .getItems());
      List<HasMetadata> shared = new ArrayList<>();
      Map<String, List<HasMetadata>> byDatabase = new LinkedHashMap<>();
      for (HasMetadata object : all) {
        String instance = object.getMetadata().getLabels().get("app.kubernetes.io/instance");
        (instance == null ? shared : byDatabase.computeIfAbsent(instance, k -> new ArrayList<>()))
            .add(fresh(object));
      }
      return new Children(shared, List.copyOf(byDatabase.values()));
    }

    /** What a client would send: name, labels, spec; nothing the API server or GC filled in. */
    static HasMetadata fresh(HasMetadata object) {
      ObjectMeta old = object.getMetadata();
      object.setMetadata(
          new ObjectMetaBuilder()
              .withName(old.getName())
              .withNamespace(old.getNamespace())
              .withLabels(old.getLabels())
              .withAnnotations(
                  object instanceof PersistentVolumeClaim ? null : old.getAnnotations())
              .build());
      if (object instanceof Service service && !"None".equals(service.getSpec().getClusterIP())) {
        service.getSpec().setClusterIP(null);
        service.getSpec().setClusterIPs(null);
      }
      if (object instanceof PersistentVolumeClaim pvc) {
        pvc.getSpec().setVolumeName(null);
        pvc.setStatus(null);
      }
      return object;
    }
  }
}
