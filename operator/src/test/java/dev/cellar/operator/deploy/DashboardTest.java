package dev.cellar.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * deploy/grafana/cellar-databases.json: it parses, has the panels docs/monitoring.md promises, and
 * every PromQL query in it names only the metrics listed here ({@link #metricNames}, which a test
 * against a real Prometheus can check exist).
 */
class DashboardTest {
  static final Path DASHBOARD =
      DeployManifestsTest.ROOT.resolve("deploy/grafana/cellar-databases.json");

  /** PromQL words that are not metric names. */
  static final Set<String> KEYWORDS =
      Set.of(
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "offset",
          "bool",
          "and",
          "or",
          "unless");

  static JsonNode dashboard() throws IOException {
    return new ObjectMapper().readTree(DASHBOARD.toFile());
  }

  /** Every PromQL expression of the dashboard: the panels' targets and the variables' queries. */
  static List<String> queries(JsonNode dashboard) {
    List<String> queries = new ArrayList<>();
    dashboard
        .path("panels")
        .forEach(p -> p.path("targets").forEach(t -> queries.add(t.path("expr").asText())));
    dashboard
        .path("templating")
        .path("list")
        .forEach(
            v -> {
              if ("query".equals(v.path("type").asText())) {
                queries.add(
                    v.path("query")
                        .path("query")
                        .asText()
                        .replaceFirst("^label_values\\((.*),\\s*\\w+\\)$", "$1"));
              }
            });
    return queries;
  }

  /**
   * The metric names a PromQL expression uses: identifiers outside label matchers, grouping
   * clauses, strings and ranges that are not functions or keywords.
   */
  static Set<String> metricNames(String expr) {
    String bare =
        expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
            .replaceAll("\\{[^}]*\\}", " ")
            .replaceAll("\\[[^]]*\\]", " ")
            .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
    Set<String> names = new TreeSet<>();
    Matcher m = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*(\\()?").matcher(bare);
    while (m.find()) {
      if (m.group(2) == null && !KEYWORDS.contains(m.group(1))) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  static Set<String> metricNames(JsonNode dashboard) {
    Set<String> names = new TreeSet<>();
    queries(dashboard).forEach(q -> names.addAll(metricNames(q)));
    return names;
  }

  @Test
  void theQueryParserFindsMetricNamesOnly() {
    assertThat(
            metricNames(
                "sum by (pod) (rate(a_total{namespace=\"x\", pod=~\"d-[0-9]+\"}[5m]) + rate(b{c=\"by\"}[1m]))"))
        .containsExactly("a_total", "b");
  }

  @Test
  void theDashboardShowsWhatTheDocsPromiseFromTheseMetrics() throws IOException {
    JsonNode dashboard = dashboard();
    assertThat(dashboard.path("uid").asText()).isEqualTo("cellar-databases");
    List<String> titles = new ArrayList<>();
    dashboard.path("panels").forEach(p -> titles.add(p.path("title").asText()));
    assertThat(titles)
        .contains(
            "Connections", "Transactions per second", "Replication lag", "Backup age", "Disk use");
    assertThat(metricNames(dashboard))
        .containsExactly(
            "cellar_database_certificate_expires_in_seconds",
            "cellar_database_last_backup_age_seconds",
            "cellar_database_last_verified_backup_age_seconds",
            "cellar_database_replication_lag_seconds",
            "kubelet_volume_stats_capacity_bytes",
            "kubelet_volume_stats_used_bytes",
            "mysql_global_status_commands_total",
            "mysql_global_status_threads_connected",
            "mysql_slave_status_seconds_behind_master",
            "pg_database_size_bytes",
            "pg_replication_lag_seconds",
            "pg_stat_database_numbackends",
            "pg_stat_database_xact_commit",
            "pg_stat_database_xact_rollback");
  }
}
