package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/**
 * Database metrics: an exporter sidecar in every database pod (postgres_exporter for PostgreSQL,
 * mysqld_exporter for MariaDB and MySQL) on the port named {@code metrics}, connecting as its own
 * least-privileged account whose password is in the Secret {@code <name>-monitoring}.
 */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MonitoringSpec {
  @JsonPropertyDescription(
      "Whether every database pod runs the engine's metrics exporter (postgres_exporter,"
          + " mysqld_exporter) on the port named metrics (9187 PostgreSQL, 9104 MariaDB/MySQL),"
          + " also on the headless Service, plus a PodMonitor where the Prometheus Operator is"
          + " installed. Default true. The exporter's account (pg_monitor; PROCESS, REPLICATION"
          + " CLIENT, SELECT on performance_schema; MariaDB also SLAVE MONITOR) and its Secret"
          + " <name>-monitoring exist either way.")
  @Default("true")
  private Boolean enabled = true;

  @JsonPropertyDescription(
      "The exporter's container image, for mirrors and air-gapped registries. Default: the"
          + " upstream exporter image (quay.io/prometheuscommunity/postgres-exporter for"
          + " PostgreSQL, prom/mysqld-exporter for MariaDB/MySQL) at the version Cellar is tested"
          + " with. A reference [registry[:port]/]path[:tag][@digest], path in lower case.")
  @Pattern(DatabaseSpec.IMAGE_PATTERN)
  @Size(max = 512)
  private String image;

  /** Whether the exporter runs (enabled is not false). */
  public boolean on() {
    return !Boolean.FALSE.equals(enabled);
  }
}
