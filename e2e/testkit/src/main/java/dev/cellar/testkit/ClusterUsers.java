package dev.cellar.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The test JVMs using one local cluster at the same time (failsafe's forks, or modules run side by
 * side): each holds a shared lock on one file while it may use the cluster, and the JVM that leaves
 * last is the one that gets the lock exclusively. The locks are the kernel's record locks, so a JVM
 * that dies, however it dies, leaves the cluster with its lock; a crashed fork can never keep the
 * cluster running for ever nor have it stopped under another.
 *
 * <p>The file lives beside the cluster's state directory, not in it: it must outlive {@code
 * e2e/local-cluster down}, which removes the directory, so that a JVM joining while another stops
 * the cluster waits for the stop and then starts a new cluster, instead of finding the old one just
 * before it goes.
 */
final class ClusterUsers implements AutoCloseable {
  private final FileChannel channel;
  private FileLock lock;

  private ClusterUsers(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** Joins the users of {@code file}; waits while a leaving JVM holds it exclusively. */
  static ClusterUsers join(Path file) {
    try {
      FileChannel channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      try {
        return new ClusterUsers(channel, channel.lock(0, Long.MAX_VALUE, true));
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + file, e);
    }
  }

  /**
   * Leaves: true when no other JVM uses the cluster any more. This JVM then holds the file
   * exclusively until {@link #close}, so nobody joins while it stops the cluster; otherwise it has
   * let go already.
   */
  boolean leaveLast() {
    try {
      // A JVM's locks on a file are one: the shared lock is given up before asking for it all.
      lock.release();
      lock = channel.tryLock(0, Long.MAX_VALUE, false);
      if (lock == null) {
        channel.close();
        return false;
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock the cluster's users' file", e);
    }
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the cluster's users' file", e);
    }
  }
}
