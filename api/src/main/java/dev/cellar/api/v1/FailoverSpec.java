package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/** Automatic failover, for replicas > 1: when and whether a replica replaces a lost primary. */
@Data
@NoArgsConstructor
@AllArgsConstructor
public class FailoverSpec {
  /**
   * The default delay. CloudNativePG's failoverDelay defaults to 0 s on top of a readiness probe
   * that needs 3 failures 10 s apart (about 30 s for a hung server, at once for a deleted pod).
   * Cellar's readiness probe fails after 3 × 5 s; 5 s more lets a primary whose container merely
   * restarts (PostgreSQL and MariaDB are back in 2-4 s) keep its role, while a lost pod, node or
   * volume is replaced within the 15 s a client should wait at most.
   */
  public static final int DEFAULT_DELAY_SECONDS = 5;

  @JsonPropertyDescription(
      "Whether Cellar promotes the most advanced ready replica when the primary has been"
          + " unavailable (not ready, missing or pending) for delaySeconds. Default true.")
  @Default("true")
  private Boolean enabled = true;

  @JsonPropertyDescription(
      "How long, in seconds, the primary may be unavailable before a replica is promoted."
          + " Default 5; 0 fails over as soon as the primary is seen unavailable.")
  @Default("5")
  @Min(0)
  @Max(3600)
  private Integer delaySeconds = DEFAULT_DELAY_SECONDS;
}
