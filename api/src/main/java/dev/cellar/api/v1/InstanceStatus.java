package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/** One database pod as the operator last observed it. */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class InstanceStatus {
  @JsonPropertyDescription("The pod's name.")
  private String name;

  @JsonPropertyDescription("primary or replica.")
  private String role;

  @JsonPropertyDescription("Whether the pod is ready (its readiness probe passes).")
  private Boolean ready;

  @JsonPropertyDescription(
      "A replica's replication lag in whole seconds, as its server last said (polled every 30 s):"
          + " 0 when it has applied all it received. Absent for the primary and while the replica"
          + " cannot say (not ready, not replicating).")
  private Long replicationLagSeconds;

  public InstanceStatus(String name, String role, Boolean ready) {
    this(name, role, ready, null);
  }
}
