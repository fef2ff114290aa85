package dev.cellar.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.TlsMode;
import dev.cellar.api.v1.TlsSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each engine's TLS: the server settings, the replication connection and the client options of the
 * scripts, by mode. MySQL has no server here: its configuration and SQL are checked as text.
 */
class EngineTlsTest {
  @TempDir Path dir;

  static Database db(Engine engine, String version, TlsMode mode) {
    Database db = Scripts.db(engine, version);
    db.getSpec().setTls(new TlsSpec(mode, null, false));
    return db;
  }

  @Test
  void postgresServesTheMountedCertificateUnlessDisabled() {
    EngineProfile p = EngineProfiles.of(Engine.POSTGRESQL);
    assertThat(p.args(db(Engine.POSTGRESQL, "16", TlsMode.ENABLED)))
        .contains(
            "ssl=on",
            "ssl_cert_file=/etc/cellar-tls/tls.crt",
            "ssl_key_file=/etc/cellar-tls/tls.key",
            "ssl_ca_file=/etc/cellar-tls/ca.crt");
    // The default (no spec.tls written) is on too.
    assertThat(
            p.args(
                new Database(
                    "ns",
                    "orders",
                    new dev.cellar.api.v1.DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi"))))
        .contains("ssl=on");
    assertThat(p.args(db(Engine.POSTGRESQL, "16", TlsMode.DISABLED)))
        .noneMatch(a -> a.startsWith("ssl"));
    assertThat(
            p.configFiles(db(Engine.POSTGRESQL, "16", TlsMode.REQUIRED))
                .get("postgresql.cellar.conf"))
        .contains("ssl = 'on'");
  }

  @Test
  void mysqlFamilyServersGetTheCertificateAndRequireSecureTransportWhenRequired() {
    for (Engine engine : new Engine[] {Engine.MYSQL, Engine.MARIADB}) {
      EngineProfile p = EngineProfiles.of(engine);
      String version = engine == Engine.MYSQL ? "8.4" : "11.4";
      String enabled = p.configFiles(db(engine, version, TlsMode.ENABLED)).get("cellar.cnf");
      assertThat(enabled)
          .contains(
              "ssl_cert = /etc/cellar-tls/tls.crt",
              "ssl_key = /etc/cellar-tls/tls.key",
              "ssl_ca = /etc/cellar-tls/ca.crt")
          .doesNotContain("require_secure_transport");
      assertThat(p.configFiles(db(engine, version, TlsMode.REQUIRED)).get("cellar.cnf"))
          .contains("require_secure_transport = ON");
      assertThat(p.configFiles(db(engine, version, TlsMode.DISABLED)).get("cellar.cnf"))
          .doesNotContain("ssl_cert");
    }
  }

  @Test
  void mariadbDumpsAskForTlsWhichItsOlderClientsDoNotByDefault() {
    EngineProfile p = EngineProfiles.of(Engine.MARIADB);
    assertThat(p.dumpCommand(db(Engine.MARIADB, "10.11", TlsMode.REQUIRED))).endsWith(" --ssl");
    assertThat(p.dumpCommand(db(Engine.MARIADB, "10.11", TlsMode.DISABLED)))
        .doesNotContain("--ssl");
    // PostgreSQL's sslmode=prefer and MySQL's ssl-mode=PREFERRED take TLS by themselves.
    assertThat(
            EngineProfiles.of(Engine.MYSQL).dumpCommand(db(Engine.MYSQL, "8.4", TlsMode.REQUIRED)))
        .doesNotContain("ssl");
  }

  @Test
  void mariadbReplicatesOverVerifiedTlsAndReloadsWithFlushSsl() {
    Path cellar = Scripts.materialize(Engine.MARIADB, "11.4", dir.resolve("mariadb"));
    String sql =
        Scripts.bash(
                cellar,
                ". ./lib.sh && . ./dialect.sh && cellar_sql_change_source_to \"'p'\" 3306 \"'r'\" \"'pw'\""
                    + " && cellar_sql_reload_tls && cellar_tls_primary_options",
                Map.of("CELLAR_TLS_MODE", "required", "CELLAR_TLS_DIR", "/etc/cellar-tls"))
            .orFail("mariadb dialect")
            .output();
    assertThat(sql)
        .contains(
            "MASTER_CONNECT_RETRY=1, MASTER_SSL=1, MASTER_SSL_CA='/etc/cellar-tls/ca.crt',"
                + " MASTER_SSL_VERIFY_SERVER_CERT=1;")
        .contains("FLUSH SSL;")
        .contains("--ssl\n--ssl-ca=/etc/cellar-tls/ca.crt\n--ssl-verify-server-cert");
    String off =
        Scripts.bash(
                cellar,
                ". ./lib.sh && . ./dialect.sh && cellar_sql_change_source_to \"'p'\" 3306 \"'r'\" \"'pw'\""
                    + " && cellar_tls_primary_options",
                Map.of("CELLAR_TLS_MODE", "disabled"))
            .orFail("mariadb dialect")
            .output();
    assertThat(off).contains("MASTER_SSL=0;").doesNotContain("--ssl");
  }

  @Test
  void mysqlReplicatesOverVerifiedTlsAndReloadsWithAlterInstance() {
    Path cellar = Scripts.materialize(Engine.MYSQL, "8.4", dir.resolve("mysql"));
    String sql =
        Scripts.bash(
                cellar,
                ". ./lib.sh && . ./dialect.sh && . ./mysql-lib.sh"
                    + " && cellar_sql_change_source_to \"'p'\" 3306 \"'r'\" \"'pw'\""
                    + " && cellar_sql_reload_tls && cellar_tls_primary_options"
                    + " && CELLAR_LOCAL_HOST=127.0.0.1 cellar_local_connection",
                Map.of("CELLAR_TLS_MODE", "enabled"))
            .orFail("mysql dialect")
            .output();
    assertThat(sql)
        .contains(
            "SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=1000000, SOURCE_SSL=1, SOURCE_SSL_CA='/etc/cellar-tls/ca.crt',"
                + " SOURCE_SSL_VERIFY_SERVER_CERT=1;")
        .contains("ALTER INSTANCE RELOAD TLS;")
        .contains("--ssl-mode=VERIFY_IDENTITY\n--ssl-ca=/etc/cellar-tls/ca.crt")
        .contains("--protocol=tcp\n--host=127.0.0.1\n--port=3306");
  }

  @Test
  void postgresStreamsWithVerifyFullAndRequiredRejectsPlainTcpInPgHba() throws Exception {
    Path cellar = Scripts.materialize(Engine.POSTGRESQL, "16", dir.resolve("pg"));
    Map<String, String> env =
        Map.of(
            "CELLAR_TLS_MODE", "required",
            "CELLAR_PRIMARY_HOST", "orders.ns.svc.cluster.local",
            "CELLAR_PORT", "5432",
            "CELLAR_REPLICATION_USER", "replicator",
            "CELLAR_REPLICATION_PASSWORD", "pw",
            "POD_NAME", "orders-1");
    assertThat(
            Scripts.bash(cellar, ". ./lib.sh && . ./pg-lib.sh && cellar_pg_primary_conninfo", env)
                .orFail("conninfo")
                .output())
        .endsWith(
            "application_name='orders-1' sslmode=verify-full sslrootcert='/etc/cellar-tls/ca.crt'");

    Path hba = dir.resolve("pg_hba.conf");
    String original =
        "local all all trust\nhost all all 127.0.0.1/32 trust\nhost all all all scram-sha-256\n";
    Files.writeString(hba, original);
    String apply = ". ./lib.sh && . ./pg-lib.sh && { cellar_pg_tls_hba " + hba + " || true; }";
    Scripts.bash(cellar, apply, env).orFail("hba required");
    String required = Files.readString(hba);
    assertThat(required)
        .startsWith("# cellar-tls begin")
        .contains(
            "hostnossl all all all reject\nhostnossl replication all all reject\n# cellar-tls end\n")
        .endsWith(original);
    // Idempotent, and undone when the mode changes.
    Scripts.bash(cellar, apply, env).orFail("hba again");
    assertThat(Files.readString(hba)).isEqualTo(required);
    Scripts.bash(cellar, apply, Map.of("CELLAR_TLS_MODE", "enabled")).orFail("hba enabled");
    assertThat(Files.readString(hba)).isEqualTo(original);
    assertThat(
            Scripts.bash(
                    cellar,
                    ". ./lib.sh && . ./pg-lib.sh && cellar_pg_primary_conninfo",
                    Map.of(
                        "CELLAR_TLS_MODE", "disabled",
                        "CELLAR_PRIMARY_HOST", "h",
                        "CELLAR_PORT", "5432",
                        "CELLAR_REPLICATION_USER", "r",
                        "CELLAR_REPLICATION_PASSWORD", "pw"))
                .orFail("conninfo off")
                .output())
        .endsWith("sslmode=prefer");
  }

  @Test
  void tlsReloadWaitsForTheRenewedFiles() throws Exception {
    Path cellar = Scripts.materialize(Engine.POSTGRESQL, "16", dir.resolve("pg2"));
    Path tls = Files.createDirectories(dir.resolve("tls"));
    Files.writeString(tls.resolve("tls.crt"), "new certificate\n");
    String hash = dev.cellar.operator.tls.TlsReload.sha256("new certificate\n");
    String check = ". ./lib.sh && cellar_tls_await_certificate ";
    Map<String, String> env = Map.of("CELLAR_TLS_DIR", tls.toString());
    assertThat(Scripts.bash(cellar, check + hash, env).exit()).isZero();
    Scripts.Result stale = Scripts.bash(cellar, check + "0000", env);
    assertThat(stale.exit()).isNotZero();
    assertThat(stale.output()).contains("pending");
  }
}
