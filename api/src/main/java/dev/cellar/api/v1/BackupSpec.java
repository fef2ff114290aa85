package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/** How and when logical backups (dumps) are taken, when backupEnabled is true. */
@Data
@NoArgsConstructor
@AllArgsConstructor
public class BackupSpec {
  @JsonPropertyDescription(
      "When dumps run, as a cron expression in the cluster's time zone (UTC unless set). Default"
          + " 02:00 daily.")
  @Default("0 2 * * *")
  @Pattern("^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|(\\S+\\s+){4}\\S+)$")
  private String schedule = "0 2 * * *";

  @JsonPropertyDescription("How many dumps to keep; older ones are removed after each backup.")
  @Default("7")
  @Min(1)
  @Max(365)
  private Integer retention = 7;

  @JsonPropertyDescription(
      "Size of the <name>-backups volume that holds the dumps, e.g. 10Gi. It may grow, never"
          + " shrink.")
  @Default("10Gi")
  @Pattern(DatabaseSpec.SIZE_PATTERN)
  @ValidationRule(
      value = "quantity(self).compareTo(quantity(oldSelf)) >= 0",
      messageExpression =
          "'backup.storage can only grow: ' + oldSelf + ' -> ' + self + ' is a shrink'",
      reason = "FieldValueInvalid")
  private String storage = "10Gi";
}
