package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/** One dump, as its backup Job reported it. */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BackupRecord {
  @JsonPropertyDescription("The dump's name, e.g. orders-20260101T020000Z.sql.gz.")
  private String name;

  @JsonPropertyDescription(
      "Where it is: s3://<bucket>/<key> or pvc://<claim>/<name>. Never any credential.")
  private String location;

  @JsonPropertyDescription("When the dump started (RFC 3339).")
  private String startTime;

  @JsonPropertyDescription("When the backup (and its verification) ended (RFC 3339).")
  private String completionTime;

  @JsonPropertyDescription("The compressed dump's size in bytes.")
  private Long sizeBytes;

  @JsonPropertyDescription(
      "scheduled (the CronJob) or on-demand (annotation cellar.dev/backup-now).")
  private String trigger;

  @JsonPropertyDescription("The Job that took it.")
  private String job;
}
