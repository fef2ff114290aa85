package dev.cellar.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Engine;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientSessionTest {
  @Test
  void psqlRunsInThePodWithThePasswordFromThePodsOwnEnvironment() {
    List<String> argv =
        ClientSession.command(
            "kubectl",
            List.of("--kubeconfig=/k", "--context=c", "--namespace=shop"),
            "orders-1",
            Engine.POSTGRESQL,
            true,
            List.of("-c", "select 1"));
    assertThat(argv)
        .containsExactly(
            "kubectl",
            "--kubeconfig=/k",
            "--context=c",
            "--namespace=shop",
            "exec",
            "-it",
            "orders-1",
            "-c",
            "database",
            "--",
            "sh",
            "-c",
            "PGPASSWORD=\"$POSTGRES_PASSWORD\" exec psql -h 127.0.0.1 -U \"$POSTGRES_USER\""
                + " -d \"$POSTGRES_DB\" \"$@\"",
            "cellar-psql",
            "-c",
            "select 1");
  }

  @Test
  void mysqlAndMariadbUseTheirImagesVariablesAndNoTerminalWhenPiped() {
    List<String> mysql =
        ClientSession.command("k", List.of(), "db-0", Engine.MYSQL, false, List.of());
    assertThat(mysql).contains("-i").doesNotContain("-it");
    assertThat(mysql.get(mysql.size() - 2))
        .contains("MYSQL_PWD=\"$MYSQL_PASSWORD\"", "-u \"$MYSQL_USER\"", "\"$MYSQL_DATABASE\"");
    String mariadb = ClientSession.script(Engine.MARIADB);
    assertThat(mariadb)
        .contains("command -v mariadb || command -v mysql", "MYSQL_PWD=\"$MARIADB_PASSWORD\"");
    assertThat(ClientSession.clientCommand(Engine.MARIADB)).isEqualTo("mysql");
    assertThat(ClientSession.clientCommand(Engine.POSTGRESQL)).isEqualTo("psql");
  }

  @Test
  void noPasswordOptionIsEverOnTheCommandLine() {
    for (Engine engine : Engine.values()) {
      String script = ClientSession.script(engine);
      // Only references to the container's variables; no -p/--password option of the clients.
      assertThat(script).doesNotContain("--password", " -p ", "-p\"");
    }
  }
}
