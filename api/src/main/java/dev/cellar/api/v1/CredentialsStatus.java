package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/** Which passwords of the credentials Secret the database servers hold. */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CredentialsStatus {
  @JsonPropertyDescription(
      "A keyed hash (HMAC-SHA256 under the Secret's uid, 16 hex digits) of the username, password,"
          + " replication-user and replication-password the servers hold. When the Secret's"
          + " values hash otherwise, Cellar applies them in the running servers (ALTER ROLE/USER,"
          + " no restart); Degraded says why when it cannot.")
  private String appliedHash;

  @JsonPropertyDescription("When Cellar last applied changed passwords (RFC 3339).")
  private String lastRotationTime;
}
