package dev.cellar.plugin;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A parsed command line: the command, its positional arguments, options with values, boolean flags,
 * and what follows {@code --} (passed on, e.g. to psql). Options may come before or after the
 * command, as with kubectl; {@code --name=value}, {@code --name value}, {@code -n value} and {@code
 * -nvalue} are accepted.
 */
public record Args(
    String command,
    List<String> positionals,
    Map<String, String> options,
    Set<String> flags,
    List<String> passthrough) {

  /** Options that take a value; short forms map to long names. */
  static final Set<String> VALUE_OPTIONS =
      Set.of(
          "namespace",
          "context",
          "kubeconfig",
          "output",
          "to",
          "backup",
          "source",
          "file",
          "tail",
          "container",
          "timeout",
          "engine",
          "version",
          "storage",
          "storage-class");

  static final Set<String> BOOLEAN_FLAGS =
      Set.of("replica", "wait", "follow", "no-color", "dry-run", "help", "verify");

  static final Map<String, String> SHORT =
      Map.of("n", "namespace", "o", "output", "c", "container", "f", "follow", "h", "help");

  /** A command line that cannot be understood; the message says why. */
  public static final class UsageException extends Exception {
    public UsageException(String message) {
      super(message);
    }
  }

  public static Args parse(String... argv) throws UsageException {
    String command = null;
    List<String> positionals = new ArrayList<>();
    Map<String, String> options = new LinkedHashMap<>();
    java.util.Set<String> flags = new java.util.LinkedHashSet<>();
    List<String> passthrough = new ArrayList<>();
    for (int i = 0; i < argv.length; i++) {
      String arg = argv[i];
      if (arg.equals("--")) {
        passthrough.addAll(List.of(argv).subList(i + 1, argv.length));
        break;
      }
      String name;
      String value = null;
      if (arg.startsWith("--") && arg.length() > 2) {
        name = arg.substring(2);
        int eq = name.indexOf('=');
        if (eq >= 0) {
          value = name.substring(eq + 1);
          name = name.substring(0, eq);
        }
      } else if (arg.startsWith("-") && arg.length() > 1 && !isNumber(arg)) {
        String letter = arg.substring(1, 2);
        name = SHORT.get(letter);
        if (name == null) {
          throw new UsageException("unknown flag: -" + letter);
        }
        if (arg.length() > 2) {
          value = arg.substring(arg.startsWith("=", 2) ? 3 : 2);
        }
      } else {
        if (command == null) {
          command = arg;
        } else {
          positionals.add(arg);
        }
        continue;
      }
      if (BOOLEAN_FLAGS.contains(name)) {
        if (value != null && !value.equals("true")) {
          if (value.equals("false")) {
            flags.remove(name);
            continue;
          }
          throw new UsageException("flag --" + name + " takes no value (got " + value + ")");
        }
        flags.add(name);
      } else if (VALUE_OPTIONS.contains(name)) {
        if (value == null) {
          if (i + 1 >= argv.length) {
            throw new UsageException("flag --" + name + " needs a value");
          }
          value = argv[++i];
        }
        options.put(name, value);
      } else {
        throw new UsageException("unknown flag: --" + name);
      }
    }
    return new Args(
        command == null ? "help" : command,
        Collections.unmodifiableList(positionals),
        Collections.unmodifiableMap(options),
        Collections.unmodifiableSet(flags),
        Collections.unmodifiableList(passthrough));
  }

  private static boolean isNumber(String arg) {
    return arg.length() > 1 && arg.substring(1).chars().allMatch(Character::isDigit);
  }

  public Optional<String> option(String name) {
    return Optional.ofNullable(options.get(name));
  }

  /** A numeric option, e.g. --tail or --timeout; a value that is not a number is a usage error. */
  public Optional<Long> number(String name) throws UsageException {
    String value = options.get(name);
    if (value == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Long.parseLong(value));
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " must be a number, not " + value);
    }
  }

  public boolean flag(String name) {
    return flags.contains(name);
  }

  /** The output format: text (default), json or yaml. */
  public String output() throws UsageException {
    String output = options.getOrDefault("output", "text");
    if (!Set.of("text", "json", "yaml").contains(output)) {
      throw new UsageException("--output must be json or yaml, not " + output);
    }
    return output;
  }

  /**
   * Checks the positional arguments against {@code names} (the command's usage) and the options
   * against the command's own plus the global ones.
   */
  public void expect(List<String> names, Set<String> allowed) throws UsageException {
    if (positionals.size() != names.size()) {
      throw new UsageException(
          command
              + " needs "
              + (names.isEmpty() ? "no argument" : String.join(" ", names))
              + (positionals.size() > names.size()
                  ? "; unexpected: " + positionals.subList(names.size(), positionals.size())
                  : ""));
    }
    for (String given : options.keySet()) {
      if (!GLOBAL.contains(given) && !allowed.contains(given)) {
        throw new UsageException(command + " does not take --" + given);
      }
    }
    for (String given : flags) {
      if (!GLOBAL.contains(given) && !allowed.contains(given)) {
        throw new UsageException(command + " does not take --" + given);
      }
    }
    if (!passthrough.isEmpty() && !allowed.contains("--")) {
      throw new UsageException(command + " takes no arguments after --");
    }
  }

  /** Flags every command accepts, as kubectl's own. */
  static final Set<String> GLOBAL =
      Set.of("namespace", "context", "kubeconfig", "help", "no-color");
}
