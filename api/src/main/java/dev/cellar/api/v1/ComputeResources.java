package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.IntOrString;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/**
 * CPU, memory and ephemeral storage, as Kubernetes quantities; checked by the API server's schema.
 */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ComputeResources {
  /** Decimal or binary quantities: 500m, 2, 0.5, 512Mi, 1Gi, 1.5G. */
  public static final String QUANTITY_PATTERN =
      "^([0-9]+(\\.[0-9]+)?|\\.[0-9]+)(m|k|Ki|Mi|Gi|Ti|Pi|Ei|M|G|T|P|E)?$";

  /** The longest quantity: a bound the API server's CEL cost estimate needs. */
  static final int MAX_LENGTH = 32;

  @JsonPropertyDescription("CPU, e.g. 500m or 2.")
  @Pattern(QUANTITY_PATTERN)
  @Size(max = MAX_LENGTH)
  private IntOrString cpu;

  @JsonPropertyDescription("Memory, e.g. 512Mi or 2Gi.")
  @Pattern(QUANTITY_PATTERN)
  @Size(max = MAX_LENGTH)
  private IntOrString memory;

  @JsonPropertyDescription(
      "Local disk (core/v1 ephemeral-storage: the container's writable layer, its logs and the"
          + " pod's emptyDir volumes), e.g. 1Gi. A pod above its limit is evicted.")
  @Pattern(QUANTITY_PATTERN)
  @Size(max = MAX_LENGTH)
  private IntOrString ephemeralStorage;

  public ComputeResources(String cpu, String memory) {
    this(cpu, memory, null);
  }

  public ComputeResources(String cpu, String memory, String ephemeralStorage) {
    this(
        cpu == null ? null : new IntOrString(cpu),
        memory == null ? null : new IntOrString(memory),
        ephemeralStorage == null ? null : new IntOrString(ephemeralStorage));
  }
}
