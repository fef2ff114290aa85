package dev.cellar.plugin;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.v1.Engine;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of {@code kubectl cellar psql|mysql}: {@code kubectl exec} into the database
 * container of the chosen pod, running the engine's client as the Database's user on its database.
 * The password never passes through this machine: the database container already holds it in its
 * environment (a reference to the credentials Secret), and the shell in the pod hands it to the
 * client through the client's password variable ({@code PGPASSWORD}, {@code MYSQL_PWD}), so it is
 * in no command line, here or in the pod, and never printed.
 */
public final class ClientSession {
  private ClientSession() {}

  /** The shell script run in the pod; {@code "$@"} are the user's arguments after {@code --}. */
  static String script(Engine engine) {
    return switch (engine) {
      case POSTGRESQL ->
          "PGPASSWORD=\"$POSTGRES_PASSWORD\" exec psql -h 127.0.0.1 -U \"$POSTGRES_USER\""
              + " -d \"$POSTGRES_DB\" \"$@\"";
      case MYSQL ->
          "MYSQL_PWD=\"$MYSQL_PASSWORD\" exec mysql -h 127.0.0.1 -u \"$MYSQL_USER\""
              + " \"$MYSQL_DATABASE\" \"$@\"";
      case MARIADB ->
          "client=$(command -v mariadb || command -v mysql);"
              + " MYSQL_PWD=\"$MARIADB_PASSWORD\" exec \"$client\" -h 127.0.0.1"
              + " -u \"$MARIADB_USER\" \"$MARIADB_DATABASE\" \"$@\"";
    };
  }

  /** Which command fits the engine: psql for PostgreSQL, mysql for MySQL and MariaDB. */
  static String clientCommand(Engine engine) {
    return engine == Engine.POSTGRESQL ? "psql" : "mysql";
  }

  /**
   * The kubectl command: {@code kubectl <connection flags> exec -i [-t] POD -c database -- sh -c
   * SCRIPT cellar ARGS...}. {@code -t} only when this process has a terminal, so a piped script
   * works too.
   */
  static List<String> command(
      String kubectl,
      List<String> connectionFlags,
      String pod,
      Engine engine,
      boolean terminal,
      List<String> clientArgs) {
    List<String> argv = new ArrayList<>();
    argv.add(kubectl);
    argv.addAll(connectionFlags);
    argv.add("exec");
    argv.add(terminal ? "-it" : "-i");
    argv.add(pod);
    argv.add("-c");
    argv.add(ChildNames.DATABASE_CONTAINER);
    argv.add("--");
    argv.add("sh");
    argv.add("-c");
    argv.add(script(engine));
    argv.add("cellar-" + clientCommand(engine));
    argv.addAll(clientArgs);
    return argv;
  }
}
