package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/**
 * Clients admitted to the database port, as a NetworkPolicy peer: pods by label, namespaces by
 * label, or the pods so labelled in the namespaces so labelled. An empty selector ({@code {}})
 * selects everything, as in core NetworkPolicies.
 */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.namespaceSelector) || has(self.podSelector)",
    message =
        "networkPolicy.clients: each client needs a namespaceSelector, a podSelector or both"
            + " (e.g. namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: shop}})",
    reason = "FieldValueRequired")
public class NetworkClient {
  @JsonPropertyDescription(
      "Namespaces whose pods may connect (with podSelector: only those pods). {} selects every"
          + " namespace.")
  private PeerSelector namespaceSelector;

  @JsonPropertyDescription(
      "Pods that may connect, in the Database's namespace, or in the namespaces of"
          + " namespaceSelector when it is set.")
  private PeerSelector podSelector;
}
