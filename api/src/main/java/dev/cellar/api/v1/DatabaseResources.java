package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/**
 * Requests and limits of each database pod. Cellar's own type rather than the core one, so that the
 * API server checks the quantities at admission.
 */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DatabaseResources {
  @JsonPropertyDescription("What the scheduler reserves for each pod.")
  private ComputeResources requests;

  @JsonPropertyDescription("The most each pod may use.")
  private ComputeResources limits;
}
