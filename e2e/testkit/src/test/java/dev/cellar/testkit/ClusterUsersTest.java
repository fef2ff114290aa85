package dev.cellar.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two JVMs using one cluster: the first to leave is not the last, the last is, and a JVM joining
 * while the last one stops the cluster waits until it has. The locks are per process, so the other
 * user is a second JVM ({@link OtherJvm}).
 */
class ClusterUsersTest {
  static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void onlyTheLastJvmToLeaveMayStopTheCluster() throws Exception {
    Path file = dir.resolve("cluster.users");
    ClusterUsers first = ClusterUsers.join(file);
    try (OtherJvm other = OtherJvm.join(file)) {
      await("the other JVM joined").atMost(WAIT).until(other.joined::isDone);
      assertThat(first.leaveLast()).as("another JVM still uses the cluster").isFalse();

      ClusterUsers again = ClusterUsers.join(file);
      other.leave();
      assertThat(again.leaveLast()).as("the last one").isTrue();
      try (OtherJvm late = OtherJvm.join(file)) {
        // Joining waits while the last JVM holds the file to stop the cluster.
        await("the late JVM waits")
            .during(Duration.ofSeconds(1))
            .atMost(WAIT)
            .until(() -> !late.joined.isDone());
        again.close();
        await("the late JVM joined once the stop is done").atMost(WAIT).until(late.joined::isDone);
      }
    }
  }

  /** A second JVM that joins the users of a file, says so, and leaves when its input closes. */
  static final class OtherJvm implements AutoCloseable {
    final Process process;
    final CompletableFuture<Void> joined = new CompletableFuture<>();

    private OtherJvm(Process process) {
      this.process = process;
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader out =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  if ("joined".equals(out.readLine())) {
                    joined.complete(null);
                  }
                } catch (IOException e) {
                  joined.completeExceptionally(e);
                }
              });
      reader.setDaemon(true);
      reader.start();
    }

    static OtherJvm join(Path file) throws IOException {
      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      return new OtherJvm(
          new ProcessBuilder(
                  java.toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  OtherJvm.class.getName(),
                  file.toString())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start());
    }

    /** Closes its input, and waits until it has exited. */
    void leave() throws Exception {
      process.getOutputStream().close();
      await("the other JVM left").atMost(WAIT).until(() -> !process.isAlive());
      assertThat(process.exitValue()).isZero();
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }

    public static void main(String[] args) throws IOException {
      ClusterUsers users = ClusterUsers.join(Path.of(args[0]));
      System.out.println("joined");
      System.out.flush();
      // Until the test closes this JVM's input; exiting lets go of the lock, as a fork's exit does.
      while (System.in.read() >= 0) {}
      users.close();
    }
  }

  @Test
  void aJvmAloneIsTheLastAndMakesTheFile() {
    Path file = dir.resolve("no-cluster-yet.users");
    try (ClusterUsers users = ClusterUsers.join(file)) {
      assertThat(Files.exists(file)).isTrue();
      assertThat(users.leaveLast()).isTrue();
    }
  }
}
