package dev.cellar.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cellar.testkit.LocalCluster;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Counts requests in the local cluster's audit log (every rotated file too). */
final class Audit {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Audit() {}

  /** Requests counted, in all and by verb and resource. */
  record Counts(long total, Map<String, Long> byVerbAndResource) {
    /** The requests whose verb is one of {@code verbs}. */
    Counts only(Set<String> verbs) {
      Map<String, Long> kept = new TreeMap<>(byVerbAndResource);
      kept.keySet().removeIf(key -> !verbs.contains(key.substring(0, key.indexOf(' '))));
      return new Counts(kept.values().stream().mapToLong(Long::longValue).sum(), kept);
    }

    @Override
    public String toString() {
      return total + (byVerbAndResource.isEmpty() ? "" : " " + byVerbAndResource);
    }
  }

  /**
   * The requests by {@code user} received in [{@code from}, {@code to}), each counted once (a watch
   * is logged when it starts and when it ends); one pass over the log.
   */
  static Counts count(String user, Instant from, Instant to) {
    Path logs = LocalCluster.stateDir().resolve("logs");
    Set<String> seen = new HashSet<>();
    Map<String, Long> by = new TreeMap<>();
    List<Path> files;
    try (Stream<Path> list = Files.list(logs)) {
      files = list.filter(f -> f.getFileName().toString().startsWith("audit")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (Path file : files) {
      try (BufferedReader reader = Files.newBufferedReader(file)) {
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
          // Cheap filters before parsing: most lines are other users' requests.
          if (!line.contains(user)) {
            continue;
          }
          JsonNode event = JSON.readTree(line);
          if (!user.equals(event.path("user").path("username").asText())) {
            continue;
          }
          Instant received = Instant.parse(event.path("requestReceivedTimestamp").asText());
          if (received.isBefore(from) || !received.isBefore(to)) {
            continue;
          }
          if (seen.add(event.path("auditID").asText())) {
            JsonNode ref = event.path("objectRef");
            String resource =
                ref.path("resource").asText("")
                    + (ref.hasNonNull("subresource") ? "/" + ref.path("subresource").asText() : "");
            by.merge(event.path("verb").asText() + " " + resource, 1L, Long::sum);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new Counts(seen.size(), by);
  }

  /** One request: its verb, resource (with subresource), object and the API server's answer. */
  record Request(
      Instant received, String verb, String resource, String namespace, String name, int code) {}

  /**
   * Every request by {@code user} received in [{@code from}, {@code to}) in {@code namespace}, each
   * once (a watch is logged when it starts and when it ends); one pass over the log.
   */
  static List<Request> requests(String user, String namespace, Instant from, Instant to) {
    Path logs = LocalCluster.stateDir().resolve("logs");
    Set<String> seen = new HashSet<>();
    List<Request> requests = new java.util.ArrayList<>();
    List<Path> files;
    try (Stream<Path> list = Files.list(logs)) {
      files = list.filter(f -> f.getFileName().toString().startsWith("audit")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String quotedNamespace = "\"namespace\":\"" + namespace + "\"";
    for (Path file : files) {
      try (BufferedReader reader = Files.newBufferedReader(file)) {
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
          if (!line.contains(user) || !line.contains(quotedNamespace)) {
            continue;
          }
          JsonNode event = JSON.readTree(line);
          JsonNode ref = event.path("objectRef");
          if (!user.equals(event.path("user").path("username").asText())
              || !namespace.equals(ref.path("namespace").asText())) {
            continue;
          }
          Instant received = Instant.parse(event.path("requestReceivedTimestamp").asText());
          if (received.isBefore(from) || !received.isBefore(to)) {
            continue;
          }
          if (seen.add(event.path("auditID").asText())) {
            requests.add(
                new Request(
                    received,
                    event.path("verb").asText(),
                    ref.path("resource").asText("")
                        + (ref.hasNonNull("subresource")
                            ? "/" + ref.path("subresource").asText()
                            : ""),
                    namespace,
                    ref.path("name").asText(""),
                    event.path("responseStatus").path("code").asInt(0)));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return requests;
  }
}
