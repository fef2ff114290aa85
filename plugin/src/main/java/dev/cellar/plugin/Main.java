package dev.cellar.plugin;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintStream;
import java.util.Map;

/** {@code kubectl cellar}: the entry point. Parses, dispatches, maps errors to exit codes. */
public final class Main {
  /** The plugin's version: the Maven project's, from the jar's manifest. */
  static final String VERSION =
      java.util.Optional.ofNullable(Main.class.getPackage().getImplementationVersion())
          .orElse("dev");

  private Main() {}

  public static void main(String[] argv) {
    boolean terminal = System.console() != null;
    int code = run(argv, System.out, System.err, terminal, System.getenv());
    System.out.flush();
    if (Boolean.getBoolean("cellar.cds.train")) {
      try {
        CdsTraining.run();
      } catch (RuntimeException | LinkageError e) {
        // Only the archive is poorer for it.
      }
    }
    System.exit(code);
  }

  /**
   * Runs one command line. {@code terminal}: stdout is a terminal (colours, {@code -t} for psql).
   * Returns the exit code: 0 done, 1 failed, 2 the command line was wrong.
   */
  public static int run(
      String[] argv, PrintStream out, PrintStream err, boolean terminal, Map<String, String> env) {
    Args args;
    try {
      args = Args.parse(argv);
    } catch (Args.UsageException e) {
      err.println("error: " + e.getMessage());
      err.println("See 'kubectl cellar help'.");
      return 2;
    }
    if (args.flag("help") || args.command().equals("help")) {
      out.print(Usage.TEXT);
      return 0;
    }
    if (args.command().equals("version")) {
      out.println("kubectl-cellar " + VERSION);
      return 0;
    }
    boolean colour = terminal && !args.flag("no-color") && !env.containsKey("NO_COLOR");
    Commands commands = new Commands(args, out, err, terminal, colour, env);
    try {
      return commands.run();
    } catch (Args.UsageException e) {
      err.println("error: " + e.getMessage());
      err.println("See 'kubectl cellar help'.");
      return 2;
    } catch (Commands.Failure e) {
      err.println("error: " + e.getMessage());
      return 1;
    } catch (KubernetesClientException e) {
      err.println("error: " + Commands.describe(e));
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("error: interrupted");
      return 130;
    } catch (Exception | LinkageError e) {
      err.println("error: " + e);
      return 1;
    }
  }
}
