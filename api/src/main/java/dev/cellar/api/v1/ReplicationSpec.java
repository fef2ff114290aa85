package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/** How the replicas follow the primary, for replicas > 1. */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReplicationSpec {
  @JsonPropertyDescription(
      "async (default): the primary acknowledges a commit on its own, and a failover may lose the"
          + " last acknowledged commits. sync: the primary acknowledges a commit only once at least"
          + " one replica has it (PostgreSQL synchronous_standby_names ANY 1, MariaDB/MySQL"
          + " semi-synchronous replication), so a failover, which promotes the most advanced"
          + " replica once every replica has said how far it is, loses none; writes wait while no"
          + " replica answers, and a failover while one does not. No effect with one pod.")
  @Default("async")
  private ReplicationMode mode = ReplicationMode.ASYNC;

  /**
   * Whether {@code spec}'s commits wait for a replica: spec.replication.mode sync, with a replica
   * to wait for. Static, so that it is no property of the resource.
   */
  public static boolean synchronous(DatabaseSpec spec) {
    return spec.getReplication() != null && spec.getReplication().synchronous(spec.getReplicas());
  }

  /** Whether commits wait for a replica: mode sync and a replica to wait for. */
  public boolean synchronous(int replicas) {
    return mode == ReplicationMode.SYNC && replicas > 1;
  }
}
