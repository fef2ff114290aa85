package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;
import java.util.List;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/**
 * The NetworkPolicy {@code <name>} that guards the database port: on by default. Its pods reach
 * each other (replication), the Database's backup Jobs reach them, and so do the pods of the
 * Database's own namespace (unless {@link #allowSameNamespace} is false) and the clients named
 * here; nothing else does. Egress is not restricted (backups go to buckets, replicas to DNS).
 */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NetworkPolicySpec {
  /** The most clients one Database names. */
  static final int MAX_CLIENTS = 16;

  @JsonPropertyDescription(
      "Whether Cellar creates the NetworkPolicy <name>, admitting to the database port only the"
          + " Database's own pods, its backup Jobs, its namespace's pods (allowSameNamespace) and"
          + " the clients listed. Default true. It is enforced only where the cluster's network"
          + " plugin enforces NetworkPolicies.")
  @Default("true")
  private Boolean enabled = true;

  @JsonPropertyDescription(
      "Whether every pod in the Database's namespace may connect to the database port. Default"
          + " true; set false to admit only the clients listed (and the Database's own pods and"
          + " backup Jobs).")
  @Default("true")
  private Boolean allowSameNamespace = true;

  @JsonPropertyDescription(
      "Clients that may connect to the database port from other namespaces (or, with"
          + " allowSameNamespace false, from this one), each by a namespaceSelector, a podSelector"
          + " or both (both: the pods so labelled in the namespaces so labelled). Select a"
          + " namespace by name with the label kubernetes.io/metadata.name. At most 16.")
  @Size(max = MAX_CLIENTS)
  private List<NetworkClient> clients;
}
