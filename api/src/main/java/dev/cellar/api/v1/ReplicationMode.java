package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Whether the primary waits for a replica before it acknowledges a commit. */
public enum ReplicationMode {
  /**
   * The default: a commit is acknowledged once the primary has it; a failover may lose the last.
   */
  @JsonProperty("async")
  ASYNC,
  /**
   * A commit is acknowledged once a replica has it too; a failover loses no acknowledged commit.
   */
  @JsonProperty("sync")
  SYNC
}
