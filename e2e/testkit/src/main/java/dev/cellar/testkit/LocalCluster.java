package dev.cellar.testkit;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The Kubernetes cluster the tests run against: the project's local cluster ({@code
 * e2e/local-cluster}, started by the first test JVM that needs it), or any cluster named by a
 * kubeconfig through the environment variable {@code CELLAR_KUBECONFIG} or the system property
 * {@code cellar.kubeconfig}.
 *
 * <p>A local cluster that a test JVM started is stopped when the last test JVM using it exits
 * ({@link ClusterUsers}: failsafe's forks share it, and the first to finish must not stop it under
 * the others), unless {@code CELLAR_KEEP_CLUSTER=true}; one that was running before any test JVM
 * used it (bin/test starts it once for every module) is left as it was.
 */
public final class LocalCluster {
  private static LocalCluster instance;

  private final Path repoRoot;
  private final Path kubeconfig;
  private final boolean local;

  private LocalCluster(Path repoRoot, Path kubeconfig, boolean local) {
    this.repoRoot = repoRoot;
    this.kubeconfig = kubeconfig;
    this.local = local;
  }

  /** The cluster of this test run, started on first use. */
  public static synchronized LocalCluster get() {
    if (instance == null) {
      instance = connect();
    }
    return instance;
  }

  private static LocalCluster connect() {
    Path root = repoRoot();
    Optional<String> external =
        Optional.ofNullable(System.getProperty("cellar.kubeconfig"))
            .or(() -> Optional.ofNullable(System.getenv("CELLAR_KUBECONFIG")))
            .filter(s -> !s.isBlank());
    if (external.isPresent()) {
      Path path = Path.of(external.get()).toAbsolutePath();
      if (!Files.isReadable(path)) {
        throw new IllegalStateException(
            "CELLAR_KUBECONFIG names " + path + ", which is not readable");
      }
      return new LocalCluster(root, path, false);
    }
    Path script = root.resolve("e2e/local-cluster");
    Path dir = root.resolve(stateDir());
    // Joined before `up`: a JVM that is stopping the cluster finishes that first.
    ClusterUsers users = ClusterUsers.join(dir.resolveSibling(dir.getFileName() + ".users"));
    boolean wasRunning = run(script, "status").exitCode() == 0;
    Result up = run(script, "up");
    if (up.exitCode() != 0) {
      users.close();
      throw new IllegalStateException(
          "the local cluster did not start (e2e/local-cluster up exited "
              + up.exitCode()
              + "):\n"
              + up.tail(40));
    }
    String last = up.lastStdoutLine();
    if (!last.startsWith("KUBECONFIG=")) {
      users.close();
      throw new IllegalStateException(
          "e2e/local-cluster up did not print KUBECONFIG=... last:\n" + up.tail(40));
    }
    Path kubeconfig = Path.of(last.substring("KUBECONFIG=".length()));
    Path marker = kubeconfig.resolveSibling(STARTED_BY_TESTS);
    if (!wasRunning && !keep()) {
      markStartedByTests(marker);
    }
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> leave(users, script, marker), "local-cluster-leave"));
    return new LocalCluster(root, kubeconfig, true);
  }

  /**
   * The file in the cluster's state directory that says a test JVM started the cluster, so the last
   * test JVM to leave stops it: the JVM that started it may not be the last one using it. In the
   * state directory, it goes with the cluster (`down`), and a cluster started otherwise never has
   * one.
   */
  static final String STARTED_BY_TESTS = "started-by-tests";

  private static void markStartedByTests(Path marker) {
    try {
      Files.writeString(
          marker,
          "started by test JVM "
              + ProcessHandle.current().pid()
              + ": the last test JVM to leave stops it\n");
    } catch (IOException e) {
      throw new IllegalStateException("cannot write " + marker, e);
    }
  }

  /** At exit: the last test JVM stops a cluster that a test JVM started. */
  private static void leave(ClusterUsers users, Path script, Path marker) {
    if (!users.leaveLast()) {
      return;
    }
    try {
      if (Files.exists(marker) && !keep()) {
        run(script, "down");
      }
    } finally {
      users.close();
    }
  }

  private static boolean keep() {
    return Boolean.parseBoolean(System.getenv("CELLAR_KEEP_CLUSTER"));
  }

  /** The repository root: the system property {@code cellar.repo.root}, else found upwards. */
  public static Path repoRoot() {
    String property = System.getProperty("cellar.repo.root");
    if (property != null && Files.exists(Path.of(property, "e2e/local-cluster"))) {
      return Path.of(property).toAbsolutePath();
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("e2e/local-cluster"))) {
        return dir;
      }
    }
    throw new IllegalStateException("cannot find the repository root (no e2e/local-cluster above)");
  }

  public Path repoRootDir() {
    return repoRoot;
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  /** Whether this is the project's local cluster (components can be stopped and started). */
  public boolean isLocal() {
    return local;
  }

  public Config config() {
    try {
      return Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + kubeconfig, e);
    }
  }

  /** A new admin client; the caller closes it. */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder().withConfig(config()).build();
  }

  /** Throws the local cluster away and starts an empty one in its place (benchmarks). */
  public void recreate() {
    if (!local) {
      throw new IllegalStateException("recreate needs the local cluster");
    }
    Path script = repoRoot.resolve("e2e/local-cluster");
    Path marker = kubeconfig.resolveSibling(STARTED_BY_TESTS);
    boolean startedByTests = Files.exists(marker);
    run(script, "down");
    Result up = run(script, "up");
    if (up.exitCode() != 0) {
      throw new IllegalStateException("e2e/local-cluster up failed:\n" + up.tail(40));
    }
    // The new cluster is stopped at the end as the old one would have been.
    if (startedByTests) {
      markStartedByTests(marker);
    }
  }

  /** The local cluster's state directory (logs, audit log). */
  public static Path stateDir() {
    return Path.of(
        Optional.ofNullable(System.getenv("CELLAR_CLUSTER_DIR"))
            .filter(s -> !s.isBlank())
            .orElse("/dev/shm/cellar-local-cluster"));
  }

  /** Stops one component (etcd, apiserver, controller-manager, scheduler, kwok) for fault tests. */
  public void stop(String component) {
    component("stop", component);
  }

  /** Starts a stopped component again and waits until it is healthy. */
  public void start(String component) {
    component("start", component);
  }

  private void component(String verb, String component) {
    if (!local) {
      throw new IllegalStateException(verb + " " + component + " needs the local cluster");
    }
    Result result = run(repoRoot.resolve("e2e/local-cluster"), verb, component);
    if (result.exitCode() != 0) {
      throw new IllegalStateException(
          "e2e/local-cluster " + verb + " " + component + " failed:\n" + result.tail(30));
    }
  }

  /** Runs the built kubectl on this cluster's kubeconfig, as a user would. */
  public Result kubectl(String... args) {
    List<String> command = new ArrayList<>();
    command.add(kubectlBinary());
    command.add("--kubeconfig=" + kubeconfig);
    command.addAll(List.of(args));
    return exec(command, null);
  }

  /**
   * The kubectl built with the local cluster (bin/current), else the one built with the kind node
   * image (bin/kind, when only e2e/kind/kind-cluster ran), else kubectl from PATH.
   */
  private String kubectlBinary() {
    Path cache =
        Path.of(
            Optional.ofNullable(System.getenv("CELLAR_CACHE"))
                .orElse(System.getProperty("user.home") + "/.cache/cellar"));
    return java.util.stream.Stream.of("bin/current/kubectl", "bin/kind/kubectl")
        .map(cache::resolve)
        .filter(Files::isExecutable)
        .map(Path::toString)
        .findFirst()
        .orElse("kubectl");
  }

  private static Result run(Path script, String... args) {
    List<String> command = new ArrayList<>();
    command.add(script.toString());
    command.addAll(List.of(args));
    return exec(command, script.getParent().getParent().toFile());
  }

  /** Runs a command to completion (at most 30 minutes: the first run builds the binaries). */
  public static Result exec(List<String> command, File dir) {
    try {
      Path out = Files.createTempFile("cellar-exec", ".out");
      Path err = Files.createTempFile("cellar-exec", ".err");
      Process process =
          new ProcessBuilder(command)
              .directory(dir)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      if (!process.waitFor(30, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish in 30 min");
      }
      Result result =
          new Result(
              process.exitValue(),
              Files.readString(out, StandardCharsets.UTF_8),
              Files.readString(err, StandardCharsets.UTF_8));
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
      return result;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + command, e);
    }
  }

  /** What a command printed, and how it ended. */
  public record Result(int exitCode, String stdout, String stderr) {
    public String lastStdoutLine() {
      String[] lines = stdout.strip().split("\n");
      return lines[lines.length - 1].strip();
    }

    public String tail(int lines) {
      String all = stdout + (stderr.isEmpty() ? "" : "\n" + stderr);
      String[] split = all.split("\n");
      return String.join(
          "\n", List.of(split).subList(Math.max(0, split.length - lines), split.length));
    }

    public String output() {
      return stdout + stderr;
    }
  }
}
