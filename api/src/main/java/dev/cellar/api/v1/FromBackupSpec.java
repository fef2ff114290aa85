package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonValue;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/**
 * Which dump a new Database starts from: the latest or a named dump of another Database, read from
 * that Database's backups volume or from a bucket. A bucket is named here, not read from the source
 * Database's spec, because the source may be gone (that is when restores matter) or live elsewhere.
 */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.source == 'objectStore' ? has(self.objectStore) : !has(self.objectStore)",
    messageExpression =
        "self.source == 'objectStore'"
            + " ? 'bootstrap.fromBackup.objectStore is required with source objectStore: the"
            + " bucket, endpoint and credentials the dump is read from'"
            + " : 'bootstrap.fromBackup.objectStore is set but source is volume: restore either"
            + " from the volume <database>-backups or from a bucket (source: objectStore), not"
            + " both'",
    reason = "FieldValueInvalid")
public class FromBackupSpec {
  /** A dump's file name as backup.sh writes it, e.g. orders-20260101T020000Z.sql.gz. */
  public static final String BACKUP_PATTERN =
      "^(latest|[a-z0-9]([-a-z0-9.]*[a-z0-9])?-[0-9]{8}T[0-9]{6}Z[.]sql[.]gz)$";

  @JsonPropertyDescription(
      "The Database whose dumps to restore (same namespace for source volume); its dumps are"
          + " named <database>-<UTC timestamp>.sql.gz.")
  @Required
  @Size(max = 63)
  @ValidationRule(
      value = "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
      messageExpression = "'bootstrap.fromBackup.database must be a Database name: ' + self",
      reason = "FieldValueInvalid")
  private String database;

  @JsonPropertyDescription(
      "volume: the source Database's <database>-backups volume (same namespace; it must still"
          + " exist). objectStore (default): the bucket in fromBackup.objectStore.")
  @Default("objectStore")
  private BackupSource source = BackupSource.OBJECT_STORE;

  @JsonPropertyDescription(
      "latest (default), or a dump's name such as orders-20260101T020000Z.sql.gz (see the"
          + " source Database's status.lastBackup.name).")
  @Default("latest")
  @Size(max = 128)
  @ValidationRule(
      value = "self.matches('" + BACKUP_PATTERN + "')",
      messageExpression =
          "'bootstrap.fromBackup.backup must be latest or a dump name"
              + " <database>-<yyyymmddThhmmssZ>.sql.gz: ' + self",
      reason = "FieldValueInvalid")
  private String backup = "latest";

  @JsonPropertyDescription(
      "The bucket to read from, with source objectStore: usually the source Database's"
          + " spec.backup.objectStore.")
  private ObjectStoreSpec objectStore;

  /** Where a bootstrap's dump comes from. */
  public enum BackupSource {
    @JsonProperty("volume")
    VOLUME("volume"),
    @JsonProperty("objectStore")
    OBJECT_STORE("objectStore");

    private final String value;

    BackupSource(String value) {
      this.value = value;
    }

    @JsonValue
    public String value() {
      return value;
    }

    @Override
    public String toString() {
      return value;
    }
  }
}
