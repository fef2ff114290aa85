package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
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
// The memory rule is on DatabaseSpec.resources: one rule per annotated element (fabric8's apt
// generator), and both land on this object's schema.
@ValidationRule(
    value = DatabaseResources.CPU_REQUEST_WITHIN_LIMIT,
    fieldPath = ".requests.cpu",
    messageExpression =
        "'requests.cpu ' + string(self.requests.cpu) + ' is above limits.cpu '"
            + " + string(self.limits.cpu) + ': a pod cannot request more than its limit'",
    reason = "FieldValueInvalid")
public class DatabaseResources {
  static final String CPU_REQUEST_WITHIN_LIMIT =
      "!has(self.requests) || !has(self.limits) || !has(self.requests.cpu)"
          + " || !has(self.limits.cpu) || !isQuantity(string(self.requests.cpu))"
          + " || !isQuantity(string(self.limits.cpu))"
          + " || quantity(string(self.requests.cpu)).compareTo(quantity(string(self.limits.cpu)))"
          + " <= 0";

  static final String MEMORY_REQUEST_WITHIN_LIMIT =
      "!has(self.requests) || !has(self.limits) || !has(self.requests.memory)"
          + " || !has(self.limits.memory) || !isQuantity(string(self.requests.memory))"
          + " || !isQuantity(string(self.limits.memory))"
          + " || quantity(string(self.requests.memory))"
          + ".compareTo(quantity(string(self.limits.memory))) <= 0";

  static final String EPHEMERAL_REQUEST_WITHIN_LIMIT =
      "!has(self.requests) || !has(self.limits) || !has(self.requests.ephemeralStorage)"
          + " || !has(self.limits.ephemeralStorage)"
          + " || !isQuantity(string(self.requests.ephemeralStorage))"
          + " || !isQuantity(string(self.limits.ephemeralStorage))"
          + " || quantity(string(self.requests.ephemeralStorage))"
          + ".compareTo(quantity(string(self.limits.ephemeralStorage))) <= 0";

  static final String EPHEMERAL_MESSAGE =
      "'requests.ephemeralStorage ' + string(self.requests.ephemeralStorage) + ' is above"
          + " limits.ephemeralStorage ' + string(self.limits.ephemeralStorage) + ': a pod cannot"
          + " request more than its limit'";

  static final String MEMORY_MESSAGE =
      "'requests.memory ' + string(self.requests.memory) + ' is above limits.memory '"
          + " + string(self.limits.memory) + ': a pod cannot request more than its limit'";

  @JsonPropertyDescription("What the scheduler reserves for each pod.")
  private ComputeResources requests;

  @JsonPropertyDescription("The most each pod may use.")
  private ComputeResources limits;
}
