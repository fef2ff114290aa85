package dev.cellar.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The local cluster's real node ({@code e2e/local-cluster node}), shared by the test classes of one
 * JVM: {@link #up} starts it unless it runs, and the JVM that started it stops it with {@link
 * #release} once no class of its needs it any more. Starting the node takes 25 to 40 s on two cores
 * (containerd, the images imported, the kubelet registered); the classes that need it run one after
 * another and share one start (the e2e suite orders them first, {@code RealNodeFirst}).
 *
 * <p>A node this JVM found running (started by hand, or by another run) is left running.
 */
public final class SharedRealNode {
  /** The cluster whose node this JVM started and has not stopped yet; null if none. */
  private static LocalCluster startedIn;

  private SharedRealNode() {}

  /**
   * Starts the real node in {@code cluster} unless it runs (and any component of it that is
   * stopped); fails with what the script printed. Needs root and the local cluster ({@link
   * Prerequisites#requireRealNode()}).
   */
  public static synchronized void up(LocalCluster cluster) {
    Prerequisites.requireRealNode();
    boolean running = run(cluster, "status").exitCode() == 0;
    // Also when it runs: `node up` restarts a component that a fault test left stopped.
    LocalCluster.Result up = run(cluster, "up");
    if (up.exitCode() != 0) {
      throw new IllegalStateException("e2e/local-cluster node up failed:\n" + up.tail(40));
    }
    if (!running) {
      startedIn = cluster;
    }
  }

  /** Stops the real node if this JVM started it; the next {@link #up} starts it again. */
  public static synchronized void release() {
    if (startedIn == null) {
      return;
    }
    LocalCluster cluster = startedIn;
    startedIn = null;
    LocalCluster.Result down = run(cluster, "down");
    if (down.exitCode() != 0) {
      throw new IllegalStateException("e2e/local-cluster node down failed:\n" + down.tail(40));
    }
  }

  /** Runs {@code e2e/local-cluster node ARGS} on {@code cluster}'s state. */
  public static LocalCluster.Result run(LocalCluster cluster, String... args) {
    Path root = cluster.repoRootDir();
    List<String> command = new ArrayList<>(List.of(root.resolve("e2e/local-cluster").toString()));
    command.add("node");
    command.addAll(List.of(args));
    return LocalCluster.exec(command, root.toFile());
  }
}
