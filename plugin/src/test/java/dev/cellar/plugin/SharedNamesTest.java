package dev.cellar.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Conditions;
import dev.cellar.api.names.Keys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The plugin keeps no copy of the names it shares with the operator (dev.cellar.api.names): no
 * string literal in its sources equals a label, annotation or Secret key, a condition type or
 * reason, a container's name or the suffix of a child's name. A copy drifts silently when the
 * operator renames; the shared constant cannot.
 *
 * <p>A plain lowercase word is not checked: the vocabulary has some ({@code primary}, {@code
 * database}, {@code backup}, {@code verify}) that are also the plugin's own commands, flags and
 * output fields ({@code backup}, {@code --replica}, {@code --verify}, the {@code database} field of
 * {@code status -o json}), which a test cannot tell from a copy. The plugin uses the shared
 * constants for those too (Keys.ROLE_PRIMARY, ChildNames.DATABASE_CONTAINER); this test guards the
 * rest. A literal that is another's word spelled like Cellar's, such as the pod's own {@code Ready}
 * condition, says so on its line: {@value #NOT_CELLARS}.
 */
class SharedNamesTest {
  static final Path SOURCES = Path.of("src/main/java/dev/cellar/plugin");
  static final String NOT_CELLARS = "// not Cellar's";

  /** Each shared value, with the constant (or the part of a name) that holds it. */
  static Map<String, String> shared() {
    Map<String, String> values = new TreeMap<>();
    constants(Keys.class, values, true);
    for (Keys.Component c : Keys.Component.values()) {
      values.putIfAbsent(c.value(), "Keys.Component." + c.name());
    }
    for (Conditions.Type t : Conditions.Type.values()) {
      values.putIfAbsent(t.value(), "Conditions.Type." + t.name());
    }
    for (Conditions.Reason r : Conditions.Reason.values()) {
      values.putIfAbsent(r.value(), "Conditions.Reason." + r.name());
    }
    constants(ChildNames.class, values, false);
    // The suffixes of the children's names, read off a probe Database's names.
    String probe = "probe";
    ChildNames names = ChildNames.of(probe);
    for (Method m : ChildNames.class.getDeclaredMethods()) {
      if (Modifier.isPublic(m.getModifiers())
          && !Modifier.isStatic(m.getModifiers())
          && m.getParameterCount() == 0
          && m.getReturnType() == String.class) {
        String name = (String) invoke(m, names);
        if (name.startsWith(probe) && name.length() > probe.length()) {
          values.putIfAbsent(
              name.substring(probe.length()), "the suffix of ChildNames#" + m.getName());
        }
      }
    }
    values.putIfAbsent(ChildNames.DATA_VOLUME + "-", "the prefix of ChildNames#dataClaim");
    return values;
  }

  @Test
  void thePluginKeepsNoCopyOfASharedName() throws IOException {
    Map<String, String> shared = shared();
    assertThat(shared)
        .containsKeys("BackupReady", "SwitchedOver", "-credentials", "cellar.dev/role");
    List<String> copies = new ArrayList<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        String[] lines = Files.readString(file).split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
          if (lines[i].contains(NOT_CELLARS)) {
            continue;
          }
          for (String literal : literals(lines[i])) {
            String constant = shared.get(literal);
            if (constant != null && !plainWord(literal)) {
              copies.add(
                  SOURCES.relativize(file)
                      + ":"
                      + (i + 1)
                      + " \""
                      + literal
                      + "\" copies "
                      + constant);
            }
          }
        }
      }
    }
    assertThat(copies)
        .as(
            copies.size()
                + " string literals in the plugin copy a name shared in dev.cellar.api.names"
                + " (mark one that is another's word with "
                + NOT_CELLARS
                + ": whose):\n  "
                + String.join("\n  ", copies)
                + "\n")
        .isEmpty();
  }

  @Test
  void aLiteralIsFoundWhereverItStandsOnItsLine() {
    assertThat(literals("  x(\"a\", \"b\\\"c\") + 'd' // \"comment\""))
        .containsExactly("a", "b\\\"c");
  }

  static boolean plainWord(String literal) {
    return literal.matches("[a-z]+");
  }

  /** The string literals on a line, before any line comment; text blocks are not looked into. */
  static List<String> literals(String line) {
    List<String> found = new ArrayList<>();
    int i = 0;
    while (i < line.length()) {
      char c = line.charAt(i);
      if (line.startsWith("//", i)) {
        break;
      }
      if (c == '\'') {
        int j = i + 1;
        while (j < line.length() && line.charAt(j) != '\'') {
          j += line.charAt(j) == '\\' ? 2 : 1;
        }
        i = j + 1;
      } else if (c == '"' && !line.startsWith("\"\"\"", i)) {
        int j = i + 1;
        while (j < line.length() && line.charAt(j) != '"') {
          j += line.charAt(j) == '\\' ? 2 : 1;
        }
        found.add(line.substring(i + 1, Math.min(j, line.length())));
        i = j + 1;
      } else {
        i++;
      }
    }
    return found;
  }

  /** The public String constants of {@code type} and its nested classes, by value. */
  private static void constants(Class<?> type, Map<String, String> into, boolean nested) {
    for (Field f : type.getDeclaredFields()) {
      int m = f.getModifiers();
      if (Modifier.isPublic(m)
          && Modifier.isStatic(m)
          && Modifier.isFinal(m)
          && f.getType() == String.class) {
        into.putIfAbsent(
            (String) get(f),
            type.getName().replaceFirst(".*\\.", "").replace('$', '.') + "." + f.getName());
      }
    }
    if (nested) {
      for (Class<?> inner : type.getDeclaredClasses()) {
        if (!inner.isEnum()) {
          constants(inner, into, true);
        }
      }
    }
  }

  private static Object get(Field f) {
    try {
      return f.get(null);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object invoke(Method m, Object on) {
    try {
      return m.invoke(on);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  static {
    if (!Files.isDirectory(SOURCES)) {
      throw new UncheckedIOException(new IOException("no " + SOURCES.toAbsolutePath()));
    }
  }
}
