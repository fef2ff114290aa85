package dev.cellar.operator.instance;

import dev.cellar.api.names.ChildNames;
import dev.cellar.operator.engine.EngineProfile;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Talks to a database server through its pod: {@code bash /etc/cellar/role.sh ACTION} run with
 * pods/exec through the API server, in the database container. The script connects to its own
 * server with the passwords the container already has in its environment, so no password crosses
 * the operator, no JDBC driver is needed, and it works the same for the operator in the cluster and
 * on a laptop. Each call is timed out; the script prints one line of {@code key=value} words.
 */
public interface InstanceAgent {
  /** The replicated position of the server in {@code pod}, or empty if it cannot be read. */
  OptionalLong position(String namespace, String pod);

  /**
   * How many whole seconds the replica in {@code pod} is behind its primary; empty when it cannot
   * say (it replicates from nobody, it is a primary, or it did not answer).
   */
  default OptionalLong lag(String namespace, String pod) {
    return OptionalLong.empty();
  }

  /** Promotes the server in {@code pod} to a writable primary; the error's message if it failed. */
  Optional<String> promote(String namespace, String pod);

  /**
   * Demotes the primary in {@code pod} for a switchover (writes refused, kept from restarting as
   * primary); the position every replica must reach, or empty if it failed.
   */
  OptionalLong demote(String namespace, String pod);

  /** Restarts the server in {@code pod}, which comes back as its role label says. */
  void restart(String namespace, String pod);

  /**
   * Applies {@code credentials} (lines {@code key=value} with the credentials Secret's keys) in the
   * server of {@code pod}: passwords set on the primary, the replication connection's on a replica,
   * the server left running. The error's message if it failed. The values travel on stdin, never in
   * a command line.
   */
  Optional<String> applyCredentials(String namespace, String pod, String credentials);

  /**
   * Has the server in {@code pod} reload its TLS certificate files, once they are the certificate
   * whose PEM hashes (SHA-256, hex) to {@code certificateHash}; the server keeps running. Empty
   * when reloaded; else why not (the kubelet has not replaced the files yet, or the reload failed).
   */
  default Optional<String> reloadTls(String namespace, String pod, String certificateHash) {
    return Optional.empty();
  }

  /** The agent of a real cluster. */
  static InstanceAgent exec(KubernetesClient client) {
    return new Exec(client);
  }

  /** The script in the ConfigMap. */
  String SCRIPT = EngineProfile.CELLAR_DIR + "/role.sh";

  Duration POSITION_TIMEOUT = Duration.ofSeconds(10);
  Duration PROMOTE_TIMEOUT = Duration.ofSeconds(60);

  /** Runs the script with pods/exec. */
  final class Exec implements InstanceAgent {
    private final KubernetesClient client;

    Exec(KubernetesClient client) {
      this.client = client;
    }

    @Override
    public OptionalLong position(String namespace, String pod) {
      Result r = run(namespace, pod, POSITION_TIMEOUT, "position");
      if (r.code() != 0) {
        return OptionalLong.empty();
      }
      return parse(r.out(), "position").map(Exec::number).orElse(OptionalLong.empty());
    }

    @Override
    public OptionalLong lag(String namespace, String pod) {
      Result r = run(namespace, pod, POSITION_TIMEOUT, "lag");
      if (r.code() != 0) {
        return OptionalLong.empty();
      }
      return parse(r.out(), "lag").map(Exec::number).orElse(OptionalLong.empty());
    }

    @Override
    public OptionalLong demote(String namespace, String pod) {
      Result r = run(namespace, pod, POSITION_TIMEOUT.multipliedBy(3), "demote");
      if (r.code() != 0 || parse(r.out(), "demoted").isEmpty()) {
        return OptionalLong.empty();
      }
      return parse(r.out(), "position").map(Exec::number).orElse(OptionalLong.empty());
    }

    @Override
    public void restart(String namespace, String pod) {
      run(namespace, pod, POSITION_TIMEOUT, "restart");
    }

    static OptionalLong number(String v) {
      try {
        return OptionalLong.of(Long.parseLong(v));
      } catch (NumberFormatException e) {
        return OptionalLong.empty();
      }
    }

    @Override
    public Optional<String> promote(String namespace, String pod) {
      return failure(pod, "promote", "promoted", run(namespace, pod, PROMOTE_TIMEOUT, "promote"));
    }

    @Override
    public Optional<String> applyCredentials(String namespace, String pod, String credentials) {
      // The script reads up to a line "." too: closing stdin through pods/exec needs a newer
      // protocol than every API server speaks.
      return failure(
          pod,
          "credentials",
          "applied",
          run(namespace, pod, POSITION_TIMEOUT.multipliedBy(3), "credentials", credentials));
    }

    @Override
    public Optional<String> reloadTls(String namespace, String pod, String certificateHash) {
      return failure(
          pod,
          "tls-reload",
          "reloaded",
          run(namespace, pod, POSITION_TIMEOUT, "tls-reload", certificateHash));
    }

    /** Empty when {@code action} printed {@code word}; else what went wrong, in one line. */
    private static Optional<String> failure(String pod, String action, String word, Result r) {
      if (r.code() == 0 && parse(r.out(), word).isPresent()) {
        return Optional.empty();
      }
      return Optional.of(
          "role.sh "
              + action
              + " in "
              + pod
              + " exited "
              + r.code()
              + ": "
              + lastLine(r.err().isBlank() ? r.out() : r.err()));
    }

    record Result(int code, String out, String err) {}

    Result run(String namespace, String pod, Duration timeout, String action) {
      return run(namespace, pod, timeout, action, null);
    }

    Result run(String namespace, String pod, Duration timeout, String action, String stdin) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      var container =
          client
              .pods()
              .inNamespace(namespace)
              .withName(pod)
              .inContainer(ChildNames.DATABASE_CONTAINER);
      var streams =
          (stdin == null ? container : container.redirectingInput())
              .writingOutput(out)
              .writingError(err);
      try (ExecWatch watch =
          streams.exec("timeout", String.valueOf(timeout.toSeconds()), "bash", SCRIPT, action)) {
        if (stdin != null) {
          watch.getInput().write((stdin + "\n.\n").getBytes(StandardCharsets.UTF_8));
          watch.getInput().flush();
        }
        Integer code = watch.exitCode().get(timeout.toSeconds() + 5, TimeUnit.SECONDS);
        return new Result(
            code == null ? -1 : code,
            out.toString(StandardCharsets.UTF_8),
            err.toString(StandardCharsets.UTF_8));
      } catch (TimeoutException e) {
        return new Result(-1, "", "timed out after " + timeout.toSeconds() + " s");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Result(-1, "", "interrupted");
      } catch (ExecutionException | java.io.IOException | RuntimeException e) {
        Throwable cause =
            e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return new Result(-1, "", String.valueOf(cause.getMessage()));
      }
    }
  }

  /** The value of {@code key=} on the script's last output line. */
  static Optional<String> parse(String out, String key) {
    String line = lastLine(out);
    for (String word : line.split("\\s+")) {
      if (word.equals(key)) {
        return Optional.of("");
      }
      if (word.startsWith(key + "=")) {
        return Optional.of(word.substring(key.length() + 1));
      }
    }
    return Optional.empty();
  }

  private static String lastLine(String text) {
    String[] lines = text.strip().split("\n");
    String last = lines[lines.length - 1].strip();
    return last.length() > 300 ? last.substring(0, 300) : last;
  }
}
