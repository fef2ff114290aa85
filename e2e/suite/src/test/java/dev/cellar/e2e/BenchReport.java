package dev.cellar.e2e;

import dev.cellar.testkit.LocalCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The results table of docs/performance.md: everything below its marker line is rewritten. */
final class BenchReport {
  static final String MARKER = "<!-- Everything below is written by bin/bench. -->";

  private BenchReport() {}

  /** A process's peak RSS and live heap; {@link #OUT_OF_MEMORY} when its limit did not hold. */
  record Memory(long peakRssKiB, long liveBytes) {
    static final Memory OUT_OF_MEMORY = new Memory(-1, -1);

    @Override
    public String toString() {
      return peakRssKiB < 0
          ? "out of memory"
          : String.format(Locale.ROOT, "%d / %d MiB", peakRssKiB / 1024, liveBytes >> 20);
    }
  }

  /** One size's numbers, filled in as the benchmark measures them. */
  static final class Row {
    final int n;
    Duration floor;
    Duration converge;
    List<Duration> latencies;
    Audit.Counts convergeWrites;
    long peakRssKiB;
    double cpuSeconds;
    long heapUsed;
    long heapLive;
    Memory informersAlone;
    Audit.Counts idleWrites;
    double readsPerMinute;
    Audit.Counts idleReads;
    int churned;
    Duration churn;
    Duration firstReconcile;
    Duration ready;
    List<Duration> toStatefulSet = List.of();
    List<Duration> toPods = List.of();
    List<Duration> afterPods = List.of();
    double eventsReceived;
    double reconciles;
    Duration floorCreated;
    Map<String, Double> clusterCpu = Map.of();
    Map<String, Double> floorClusterCpu;
    WritesFloor.Result writesFloor;

    Row(int n) {
      this.n = n;
    }

    Duration percentile(double p) {
      return percentile(latencies, p);
    }

    static Duration percentile(List<Duration> sorted, double p) {
      return sorted.isEmpty()
          ? Duration.ZERO
          : sorted.get((int) Math.min(sorted.size() - 1, Math.floor(p * sorted.size())));
    }

    /** Where each Database's time went, and how often the operator was woken and reconciled. */
    String phases() {
      return String.format(
          Locale.ROOT,
          "%screated to its StatefulSet %s, StatefulSet to its pod ready %s, pod ready to the"
              + " Database Ready %s (p50 / p95 / max); %.1f events received and %.1f reconciles"
              + " a Database; the cluster's CPU while converging: %s%s%s",
          floorCreated == null
              ? ""
              : "the floor created every object in " + seconds(floorCreated) + "; ",
          spread(toStatefulSet),
          spread(toPods),
          spread(afterPods),
          eventsReceived / n,
          reconciles / n,
          cpu(clusterCpu),
          floorClusterCpu == null ? "" : " (the floor: " + cpu(floorClusterCpu) + ")",
          writesFloor == null
              ? ""
              : String.format(
                  Locale.ROOT,
                  "; Cellar's writes from a plain client (CELLAR_BENCH_WRITES_FLOOR): %s, %.2f"
                      + " times the floor, the client's CPU %.1f s, the cluster's %s",
                  seconds(writesFloor.converged()),
                  floor == null
                      ? Double.NaN
                      : writesFloor.converged().toMillis() / (double) floor.toMillis(),
                  writesFloor.clientCpu(),
                  cpu(writesFloor.clusterCpu())));
    }

    private static String cpu(Map<String, Double> seconds) {
      return seconds.entrySet().stream()
          .map(e -> String.format(Locale.ROOT, "%s %.1f s", e.getKey(), e.getValue()))
          .collect(java.util.stream.Collectors.joining(", "));
    }

    private static String spread(List<Duration> sorted) {
      return seconds(percentile(sorted, 0.5))
          + " / "
          + seconds(percentile(sorted, 0.95))
          + " / "
          + seconds(percentile(sorted, 1));
    }

    @Override
    public String toString() {
      return line(this) + " " + phases();
    }
  }

  /**
   * The operator JVM's options: as given, or the Deployment's with each size's memory limit (the
   * limit differs only where the Deployment's does not hold N).
   */
  static String jvm(List<Row> rows) {
    if (ScaleBenchmark.GIVEN_JVM.isPresent()) {
      return String.join(" ", ScaleBenchmark.GIVEN_JVM.get());
    }
    long deploymentMiB = ScaleBenchmark.deploymentLimitMiB();
    StringBuilder limits = new StringBuilder();
    for (Row r : rows) {
      limits
          .append(limits.length() == 0 ? "" : ", ")
          .append(ScaleBenchmark.memoryLimitMiB(deploymentMiB, r.n))
          .append("m at ")
          .append(r.n);
    }
    return String.join(" ", ScaleBenchmark.deploymentJvmOptions())
        + " -XX:MaxRAM (the memory limit that holds N, docs/operations.md's sizing: "
        + limits
        + ")";
  }

  static void write(List<Row> rows, int threads, int reconcileThreads, Duration idle)
      throws IOException {
    Path file = LocalCluster.repoRoot().resolve("docs/performance.md");
    // Everything above the marker is prose kept as it is; a page without the marker keeps it all.
    String page = Files.exists(file) ? Files.readString(file) : "# Performance\n";
    String head =
        page.contains(MARKER)
            ? page.substring(0, page.indexOf(MARKER))
            : page.stripTrailing() + "\n\n";
    List<String> out = new ArrayList<>();
    out.add(MARKER);
    out.add("");
    out.add(
        String.format(
            Locale.ROOT,
            "Run on %s (UTC) on %d cores and %.0f GiB, local cluster (Kubernetes %s, kwok nodes),"
                + " %d creating threads and RECONCILE_THREADS=%d, idle window %d s, operator JVM"
                + " %s. Command: `%s`.",
            LocalDate.now(ZoneOffset.UTC),
            Runtime.getRuntime().availableProcessors(),
            memoryGiB(),
            kubernetesVersion(),
            threads,
            reconcileThreads,
            idle.toSeconds(),
            jvm(rows),
            System.getProperty("bench.command", "bin/bench")));
    out.add("");
    out.add(
        "| N | floor | Cellar | ratio | per Database p50 / p95 / max | operator writes"
            + " per Database | operator CPU | idle writes | idle reads / min | peak RSS | heap used / live"
            + " | fabric8's informers alone: peak RSS / live | start-up: first reconcile / ready"
            + " | repair 10 % |");
    out.add("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    rows.forEach(r -> out.add(line(r)));
    out.add("");
    out.add("Where each Database's time went:");
    out.add("");
    rows.forEach(r -> out.add("- N = " + r.n + ": " + r.phases()));
    out.add("");
    out.add("The operator's requests by verb and resource:");
    out.add("");
    for (Row r : rows) {
      out.add("- N = " + r.n + ", during convergence: " + r.convergeWrites.byVerbAndResource());
      out.add(
          "- N = "
              + r.n
              + ", idle writes: "
              + r.idleWrites.byVerbAndResource()
              + "; idle reads: "
              + r.idleReads.byVerbAndResource());
    }
    out.add("");
    Files.createDirectories(file.getParent());
    Files.writeString(file, head + String.join("\n", out));
  }

  static String line(Row r) {
    return String.format(
        Locale.ROOT,
        "| %d | %s | %s | %.2f | %s / %s / %s | %.1f | %.1f s | %s | %.1f | %d MiB | %d / %d MiB"
            + " | %s | %s / %s | %s (%d) |",
        r.n,
        r.floor == null ? "-" : seconds(r.floor),
        seconds(r.converge),
        r.floor == null ? Double.NaN : r.converge.toMillis() / (double) r.floor.toMillis(),
        seconds(r.percentile(0.5)),
        seconds(r.percentile(0.95)),
        seconds(r.latencies.get(r.latencies.size() - 1)),
        r.convergeWrites.total() / (double) r.n,
        r.cpuSeconds,
        r.idleWrites,
        r.readsPerMinute,
        r.peakRssKiB / 1024,
        r.heapUsed >> 20,
        r.heapLive >> 20,
        r.informersAlone == null ? "-" : r.informersAlone,
        seconds(r.firstReconcile),
        seconds(r.ready),
        seconds(r.churn),
        r.churned);
  }

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  static double memoryGiB() {
    try {
      return Files.readAllLines(Path.of("/proc/meminfo")).stream()
              .filter(l -> l.startsWith("MemTotal:"))
              .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
              .findFirst()
              .orElse(0)
          / 1024.0
          / 1024.0;
    } catch (IOException e) {
      return 0;
    }
  }

  static String kubernetesVersion() {
    try (var client = LocalCluster.get().newClient()) {
      return client.getKubernetesVersion().getGitVersion();
    } catch (RuntimeException e) {
      return "unknown";
    }
  }
}
