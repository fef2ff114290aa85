package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import lombok.Data;
import lombok.NoArgsConstructor;

/** How and when logical backups (dumps) are taken, when backupEnabled is true. */
@Data
@NoArgsConstructor
public class BackupSpec {
  @JsonPropertyDescription(
      "When dumps run, as a cron expression in the cluster's time zone (UTC unless set). Default"
          + " 02:00 daily.")
  @Default("0 2 * * *")
  @Pattern("^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|(\\S+\\s+){4}\\S+)$")
  @Size(max = CronRules.MAX_LENGTH)
  @ValidationRule(
      value = CronRules.RULE,
      messageExpression = CronRules.MESSAGE,
      reason = "FieldValueInvalid")
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
  @Size(max = DatabaseSpec.SIZE_MAX_LENGTH)
  @ValidationRule(
      value = "quantity(self).compareTo(quantity(oldSelf)) >= 0",
      messageExpression =
          "'backup.storage can only grow: ' + oldSelf + ' -> ' + self + ' is a shrink'",
      reason = "FieldValueInvalid")
  private String storage = "10Gi";

  @JsonPropertyDescription(
      "Upload every dump to this S3-compatible bucket instead of the <name>-backups volume;"
          + " retention applies there. The database image needs curl 7.75 or newer.")
  private ObjectStoreSpec objectStore;

  @JsonPropertyDescription(
      "Restore every dump into a throwaway server of the same engine and version in the backup"
          + " Job, and check that it answers a query; status.lastVerifiedBackup records it and a"
          + " dump that does not restore turns BackupReady False. Default true.")
  @Default("true")
  private Boolean verify = true;

  /**
   * How late a scheduled dump may start, in seconds. A day: at least one period of a daily
   * schedule, so the dump missed while the Database hibernated (or the cluster's controllers were
   * down) still runs when it wakes, and an old miss never starts a dump at an unexpected hour.
   */
  public static final int DEFAULT_STARTING_DEADLINE_SECONDS = 86400;

  /** How long a backup Job may run, in seconds: dump, upload and verification together. */
  public static final int DEFAULT_ACTIVE_DEADLINE_SECONDS = 21600;

  @JsonPropertyDescription(
      "CPU, memory and ephemeral storage of the backup Job's container; each quantity given"
          + " replaces its default. Default: requests 100m / 128Mi / 256Mi, limits 1 / 1Gi (512Mi"
          + " without verify) / 1Gi plus twice storage when the dump is verified or uploaded (the"
          + " throwaway server and the dump live in the Job's scratch volume). A request may not"
          + " exceed its limit.")
  @ValidationRule(
      value = DatabaseResources.MEMORY_REQUEST_WITHIN_LIMIT,
      fieldPath = ".requests.memory",
      messageExpression = DatabaseResources.MEMORY_MESSAGE,
      reason = "FieldValueInvalid")
  private DatabaseResources resources;

  @JsonPropertyDescription(
      "How many seconds after its scheduled time a dump may still start (the CronJob's"
          + " startingDeadlineSeconds); a later one is skipped and counts as missed. Default 86400"
          + " (a day), so a daily dump missed while hibernated runs on waking.")
  @Default("86400")
  @Min(10)
  @Max(2678400)
  private Integer startingDeadlineSeconds = DEFAULT_STARTING_DEADLINE_SECONDS;

  @JsonPropertyDescription(
      "How many seconds a backup Job (dump, upload and verification) may run before it is"
          + " stopped and counts as failed (the Job's activeDeadlineSeconds). Default 21600 (6"
          + " hours).")
  @Default("21600")
  @Min(60)
  @Max(604800)
  private Integer activeDeadlineSeconds = DEFAULT_ACTIVE_DEADLINE_SECONDS;

  // The rules below are on the getters because fabric8's apt generator takes one
  // @ValidationRule per annotated element and merges a field's with its accessors'.

  public BackupSpec(String schedule, Integer retention, String storage) {
    this.schedule = schedule;
    this.retention = retention;
    this.storage = storage;
  }

  /** The schedule; its rule here: a day of the month that never comes. */
  @ValidationRule(
      value = CronRules.DAY_EXISTS,
      messageExpression = CronRules.DAY_EXISTS_MESSAGE,
      reason = "FieldValueInvalid")
  public String getSchedule() {
    return schedule;
  }

  /** The resources; their rule here: ephemeral storage requested within its limit. */
  @ValidationRule(
      value = DatabaseResources.EPHEMERAL_REQUEST_WITHIN_LIMIT,
      fieldPath = ".requests.ephemeralStorage",
      messageExpression = DatabaseResources.EPHEMERAL_MESSAGE,
      reason = "FieldValueInvalid")
  public DatabaseResources getResources() {
    return resources;
  }

  /** The volume size; its rule here: the size bounds. */
  @ValidationRule(
      value = DatabaseSpec.SIZE_IN_BOUNDS,
      messageExpression = "'backup.storage'" + DatabaseSpec.SIZE_MESSAGE,
      reason = "FieldValueInvalid")
  public String getStorage() {
    return storage;
  }
}
