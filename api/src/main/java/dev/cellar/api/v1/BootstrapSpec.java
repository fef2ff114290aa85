package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/** How a new Database's data starts: empty (no bootstrap), or restored from a backup. */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BootstrapSpec {
  @JsonPropertyDescription(
      "Restore a dump into the new Database before it first starts; it becomes Ready only once"
          + " the restore succeeded. Read at creation only: an existing data volume is never"
          + " overwritten.")
  private FromBackupSpec fromBackup;
}
