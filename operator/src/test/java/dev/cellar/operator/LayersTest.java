package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The operator's packages in layers, one direction: a class refers to its own layer and the ones
 * below, never to one above, and no packages refer to each other around a loop (which a layer's
 * peers could otherwise do). The layers are the decision {@code package-info.java} of {@code
 * dev.cellar.operator} and docs/development.md ("Layers") explain; this list is what holds them.
 *
 * <p>Read from the sources, not the bytecode: the compiler inlines constants, so a class that only
 * reads a higher layer's constant leaves no trace in its class file. A reference is an import
 * (static ones included) or a name written out in full in code; comments and strings are not.
 *
 * <p>The client and JVM tuning is a module of its own (kube-lean): only the composition root, the
 * operator's main and the {@code wiring} package, refers to it.
 */
class LayersTest {
  static final Path SOURCES = Path.of("src/main/java/dev/cellar/operator");
  static final String PREFIX = "dev.cellar.operator";

  /**
   * Bottom to top, by package under dev.cellar.operator ("" is dev.cellar.operator itself). The
   * vocabulary (label and annotation keys, condition types and reasons, child names) is below all
   * of them, in the api module, which the plugin shares.
   */
  static final List<List<String>> LAYERS =
      List.of(
          // The informers and their caches as the domain asks them (bound to kube-lean's by
          // wiring).
          List.of("informers"),
          // Other projects' resources, as much of them as Cellar writes and reads.
          List.of("certmanager", "prometheus"),
          // What a pod says (ready, revision, rolled out, why it cannot run), whether a Database
          // was ever available, and the failure a step reports.
          List.of("facts"),
          // The cap on writes per Database, which every writer consults.
          List.of("guard"),
          // The process: the client, settings, patches, metrics, error lines, Events.
          List.of("runtime", "events"),
          // What each engine needs: images, configuration, scripts, versions.
          List.of("engine"),
          // A Database's names, hosts and what runs, and its children read by name.
          List.of("topology"),
          // The concerns of a running Database, each in its package.
          List.of(
              "instance",
              "podspec",
              "primary",
              "failover",
              "replication",
              "credentials",
              "tls",
              "storage",
              "rollout",
              "backup",
              "deletion"),
          // One class per child: the desired state of each.
          List.of("dependent"),
          // Observes the children and derives the status; nothing below asks it for helpers.
          List.of("status"),
          // The client and the informers bound to kube-lean's tuning, for the operator's main.
          List.of("wiring"),
          // The reconciler, its phases, and the operator's main.
          List.of(""));

  @Test
  void everyPackageHasALayer() {
    Set<String> layered =
        LAYERS.stream().flatMap(List::stream).collect(Collectors.toCollection(TreeSet::new));
    Set<String> packages = new TreeSet<>(sourcesByPackage().keySet());
    assertThat(new TreeSet<>(packages))
        .as("packages of the operator in no layer of LayersTest.LAYERS: add each where it belongs")
        .isSubsetOf(layered);
    assertThat(layered)
        .as("layers of LayersTest.LAYERS that name a package that does not exist")
        .isSubsetOf(packages);
  }

  @Test
  void noReferenceRunsAgainstTheLayers() {
    List<String> against = new ArrayList<>();
    for (Reference r : references()) {
      int from = layerOf(r.from());
      int to = layerOf(r.to());
      if (from >= 0 && to > from) {
        against.add(
            r.file()
                + ":"
                + r.line()
                + " refers to "
                + r.target()
                + " ("
                + name(r.from())
                + ", layer "
                + from
                + ", below "
                + name(r.to())
                + ", layer "
                + to
                + ")");
      }
    }
    assertThat(against)
        .as(
            against.size()
                + " references from a lower layer to a higher one (LayersTest.LAYERS):\n  "
                + String.join("\n  ", against)
                + "\n")
        .isEmpty();
  }

  @Test
  void noPackagesReferToEachOtherAroundALoop() {
    Map<String, Map<String, String>> graph = new TreeMap<>();
    for (Reference r : references()) {
      if (!r.from().equals(r.to())) {
        graph
            .computeIfAbsent(r.from(), k -> new TreeMap<>())
            .putIfAbsent(r.to(), r.file() + ":" + r.line() + " refers to " + r.target());
      }
    }
    List<String> cycles = new ArrayList<>();
    for (Set<String> cycle : cycles(graph)) {
      StringBuilder text = new StringBuilder();
      text.append(cycle.stream().map(LayersTest::name).collect(Collectors.joining(", ")));
      text.append(" refer to each other; one loop:");
      List<String> loop = shortestLoop(cycle.iterator().next(), cycle, graph);
      for (int i = 0; i + 1 < loop.size(); i++) {
        text.append("\n    ").append(graph.get(loop.get(i)).get(loop.get(i + 1)));
      }
      cycles.add(text.toString());
    }
    assertThat(cycles)
        .as(
            cycles.size()
                + " sets of packages that refer to each other around a loop:\n  "
                + String.join("\n  ", cycles)
                + "\n")
        .isEmpty();
  }

  /** The client and JVM tuning, a module of its own (kube-lean), which no domain package uses. */
  static final String TUNING = "dev.cellar.kubelean";

  /**
   * The composition root, the one place that uses the tuning: the operator's main and the package
   * that binds the tuning to what the domain asks of the client and the informers ({@code
   * informers.Informers}).
   */
  static final String MAIN = "CellarOperator.java";

  static final String WIRING = "wiring";

  private static final Pattern TUNING_REFERENCE =
      Pattern.compile("\\b" + Pattern.quote(TUNING) + "\\b[\\w.*]*");

  @Test
  void noDomainPackageUsesTheTuning() {
    List<String> found = new ArrayList<>();
    codeLines(
        (pkg, file, line, code) -> {
          if (!pkg.equals(WIRING) && !file.equals(MAIN)) {
            Matcher tuning = TUNING_REFERENCE.matcher(code);
            while (tuning.find()) {
              found.add(file + ":" + line + " refers to " + tuning.group());
            }
          }
        });
    // Nor through the wiring, which only the main may call.
    for (Reference r : references()) {
      if (r.to().equals(WIRING) && !r.from().equals(WIRING) && !r.file().equals(MAIN)) {
        found.add(r.file() + ":" + r.line() + " refers to " + r.target());
      }
    }
    assertThat(found)
        .as(
            found.size()
                + " references to the client and JVM tuning ("
                + TUNING
                + ", or the "
                + WIRING
                + " package that binds it) outside "
                + MAIN
                + " and "
                + WIRING
                + ": ask Informers, or let the composition root configure it:\n  "
                + String.join("\n  ", found)
                + "\n")
        .isEmpty();
  }

  /**
   * A reference in {@code file} of package {@code from} to {@code target} in package {@code to}.
   */
  record Reference(String file, int line, String from, String to, String target) {}

  static int layerOf(String pkg) {
    for (int i = 0; i < LAYERS.size(); i++) {
      if (LAYERS.get(i).contains(pkg)) {
        return i;
      }
    }
    return -1;
  }

  static String name(String pkg) {
    return pkg.isEmpty() ? PREFIX : pkg;
  }

  private static final Pattern IMPORT =
      Pattern.compile(
          "^import\\s+(?:static\\s+)?" + Pattern.quote(PREFIX) + "\\.([\\w.]+?(?:\\.\\*)?)\\s*;");
  private static final Pattern QUALIFIED =
      Pattern.compile("\\b" + Pattern.quote(PREFIX) + "\\.((?:[a-z]\\w*\\.)*)([A-Z]\\w*)");

  static Map<String, List<Path>> sourcesByPackage() {
    try (Stream<Path> files = Files.walk(SOURCES)) {
      return files
          .filter(f -> f.toString().endsWith(".java"))
          .collect(
              Collectors.groupingBy(
                  f -> SOURCES.relativize(f.getParent()).toString().replace('/', '.'),
                  TreeMap::new,
                  Collectors.toList()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A line of code (comments and literals blanked, stripped) in {@code file} of {@code pkg}. */
  interface CodeLine {
    void accept(String pkg, String file, int line, String code);
  }

  /** Every line of the sources but their package declarations, in turn. */
  static void codeLines(CodeLine visitor) {
    sourcesByPackage()
        .forEach(
            (pkg, files) -> {
              for (Path file : files) {
                String name = SOURCES.relativize(file).toString();
                String[] lines = code(read(file)).split("\n", -1);
                for (int i = 0; i < lines.length; i++) {
                  String line = lines[i].strip();
                  if (!line.startsWith("package ")) {
                    visitor.accept(pkg, name, i + 1, line);
                  }
                }
              }
            });
  }

  static List<Reference> references() {
    List<Reference> references = new ArrayList<>();
    codeLines(
        (pkg, name, i, line) -> {
          Matcher imported = IMPORT.matcher(line);
          if (imported.find()) {
            String target = imported.group(1);
            references.add(new Reference(name, i, pkg, packageOf(target), PREFIX + "." + target));
            return;
          }
          Matcher qualified = QUALIFIED.matcher(line);
          while (qualified.find()) {
            String dotted = qualified.group(1);
            String to = dotted.isEmpty() ? "" : dotted.substring(0, dotted.length() - 1);
            references.add(new Reference(name, i, pkg, to, qualified.group().strip()));
          }
        });
    return references;
  }

  /**
   * The package of a name under dev.cellar.operator: its segments before the first type's (or
   * before the {@code *} of a whole package's import).
   */
  static String packageOf(String name) {
    List<String> segments = new ArrayList<>();
    for (String segment : name.split("\\.")) {
      if (segment.equals("*") || Character.isUpperCase(segment.charAt(0))) {
        break;
      }
      segments.add(segment);
    }
    return String.join(".", segments);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The source with its comments and string, text-block and character literals blanked, its line
   * breaks kept (so line numbers stay).
   */
  static String code(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    int n = source.length();
    while (i < n) {
      char c = source.charAt(i);
      if (source.startsWith("//", i)) {
        while (i < n && source.charAt(i) != '\n') {
          i++;
        }
      } else if (source.startsWith("/*", i)) {
        int end = source.indexOf("*/", i + 2);
        end = end < 0 ? n : end + 2;
        blank(source, i, end, out);
        i = end;
      } else if (source.startsWith("\"\"\"", i)) {
        int end = source.indexOf("\"\"\"", i + 3);
        end = end < 0 ? n : end + 3;
        blank(source, i, end, out);
        i = end;
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && source.charAt(j) != c && source.charAt(j) != '\n') {
          j += source.charAt(j) == '\\' ? 2 : 1;
        }
        int end = Math.min(j + 1, n);
        blank(source, i, end, out);
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static void blank(String source, int from, int to, StringBuilder out) {
    for (int k = from; k < to; k++) {
      out.append(source.charAt(k) == '\n' ? '\n' : ' ');
    }
  }

  /** The shortest path from {@code start} back to itself within {@code set} (breadth first). */
  static List<String> shortestLoop(
      String start, Set<String> set, Map<String, Map<String, String>> graph) {
    Map<String, String> previous = new HashMap<>();
    Deque<String> queue = new ArrayDeque<>(List.of(start));
    while (!queue.isEmpty()) {
      String v = queue.removeFirst();
      for (String w : graph.getOrDefault(v, Map.of()).keySet()) {
        if (w.equals(start)) {
          List<String> path = new ArrayList<>(List.of(start));
          for (String at = v; !at.equals(start); at = previous.get(at)) {
            path.add(0, at);
          }
          path.add(0, start);
          return path;
        }
        if (set.contains(w) && !previous.containsKey(w)) {
          previous.put(w, v);
          queue.addLast(w);
        }
      }
    }
    return List.of(start);
  }

  /** The strongly connected sets of more than one package (Tarjan's algorithm). */
  static List<Set<String>> cycles(Map<String, Map<String, String>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<Set<String>> found = new ArrayList<>();
    int[] counter = {0};
    for (String v : graph.keySet()) {
      if (!index.containsKey(v)) {
        connect(v, graph, index, low, stack, onStack, found, counter);
      }
    }
    return found;
  }

  private static void connect(
      String v,
      Map<String, Map<String, String>> graph,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      List<Set<String>> found,
      int[] counter) {
    index.put(v, counter[0]);
    low.put(v, counter[0]);
    counter[0]++;
    stack.push(v);
    onStack.add(v);
    for (String w : graph.getOrDefault(v, Map.of()).keySet()) {
      if (!index.containsKey(w)) {
        connect(w, graph, index, low, stack, onStack, found, counter);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> component = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      if (component.size() > 1) {
        found.add(component);
      }
    }
  }
}
