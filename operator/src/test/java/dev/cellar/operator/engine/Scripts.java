package dev.cellar.operator.engine;

import static org.assertj.core.api.Assertions.fail;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs the ConfigMap's scripts and other commands from tests. */
final class Scripts {
  private Scripts() {}

  /** What a command printed (stdout and stderr together) and its exit status. */
  record Result(int exit, String output) {
    Result orFail(String what) {
      if (exit != 0) {
        fail(what + " exited with " + exit + ":\n" + output);
      }
      return this;
    }

    String trimmed() {
      return output.trim();
    }
  }

  /**
   * A Database for the scripts run outside pods, with TLS off: on, the servers' settings name the
   * certificate mounted at /etc/cellar-tls, which a server on this machine has not. TLS itself is
   * proven in pods: TlsIT (the objects) and RealNodeIT (real servers and replication over it).
   */
  static Database db(Engine engine, String version) {
    DatabaseSpec spec = new DatabaseSpec(engine, version, "10Gi");
    spec.getTls().setMode(dev.cellar.api.v1.TlsMode.DISABLED);
    return new Database("ns", "orders", spec);
  }

  /**
   * Writes the ConfigMap files of {@code engine} into {@code dir}, as the pod sees them in
   * /etc/cellar (readable by everyone, like a ConfigMap volume's default mode 0644).
   */
  static Path materialize(Engine engine, String version, Path dir) {
    return materialize(db(engine, version), dir);
  }

  /** As above, for the Database {@code db} (its replication mode, its TLS). */
  static Path materialize(Database db, Path dir) {
    EngineProfile profile = EngineProfiles.of(db.getSpec().getEngine());
    Map<String, String> files = new TreeMap<>(profile.scripts());
    files.putAll(profile.configFiles(db));
    return write(files, dir);
  }

  /**
   * The path of one of {@code profile}'s scripts ({@link EngineProfile#scripts()}), written with
   * the others into {@code dir} as the scripts ConfigMap ships them.
   */
  static String script(EngineProfile profile, String file, Path dir) {
    return write(profile.scripts(), dir).resolve(file).toString();
  }

  private static Path write(Map<String, String> files, Path dir) {
    try {
      Files.createDirectories(dir);
      for (var file : files.entrySet()) {
        Path path = dir.resolve(file.getKey());
        Files.writeString(path, file.getValue(), StandardCharsets.UTF_8);
        path.toFile().setReadable(true, false);
      }
      dir.toFile().setReadable(true, false);
      dir.toFile().setExecutable(true, false);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs {@code command} with the environment plus {@code env} (a null value unsets). */
  static Result run(List<String> command, Map<String, String> env, Duration timeout) {
    return run(command, env, timeout, null);
  }

  static Result run(List<String> command, Map<String, String> env, Duration timeout, String stdin) {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    env.forEach(
        (key, value) -> {
          if (value == null) {
            builder.environment().remove(key);
          } else {
            builder.environment().put(key, value);
          }
        });
    try {
      Process process = builder.start();
      CompletableFuture<String> output =
          CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
      try (var in = process.getOutputStream()) {
        if (stdin != null) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      }
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        fail(String.join(" ", command) + " did not finish within " + timeout);
      }
      return new Result(process.exitValue(), output.join());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String readAll(InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs a bash snippet in {@code dir} (the materialized ConfigMap). */
  static Result bash(Path dir, String script, Map<String, String> env) {
    Map<String, String> all = new HashMap<>(cleanEnv());
    all.putAll(env);
    return run(List.of("bash", "-c", "cd " + dir + " && " + script), all, Duration.ofSeconds(60));
  }

  /** Unsets what a developer's shell might carry into the scripts. */
  static Map<String, String> cleanEnv() {
    Map<String, String> env = new HashMap<>();
    for (String name :
        List.of(
            "POD_NAME",
            "CELLAR_ORDINAL",
            "CELLAR_PORT",
            "CELLAR_PRIMARY_HOST",
            "CELLAR_PRIMARY_PORT",
            "CELLAR_LOCAL_HOST",
            "CELLAR_REPLICATION_USER",
            "CELLAR_REPLICATION_PASSWORD",
            "CELLAR_DATA_DIR",
            "PGDATA",
            "PGPORT",
            "PGHOST",
            "PGUSER",
            "PGPASSWORD",
            "MYSQL_PWD",
            "MYSQL_ROOT_PASSWORD",
            "MARIADB_ROOT_PASSWORD")) {
      env.put(name, null);
    }
    return env;
  }

  static List<String> list(String... items) {
    return new ArrayList<>(List.of(items));
  }
}
