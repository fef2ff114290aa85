package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.List;
import java.util.Map;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/** A label selector (core/v1 LabelSelector), with bounds the API server's CEL cost needs. */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PeerSelector {
  /** A label key: an optional DNS subdomain prefix and a name of at most 63 characters. */
  public static final String LABEL_KEY =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
          + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";

  // No CEL rule on the keys and values: map keys have no maxLength in OpenAPI, so the API server's
  // cost estimate refuses any rule over them. The API server checks them in the NetworkPolicy, and
  // a refusal is reported in the Database's Degraded condition (ReconcileError).
  @JsonPropertyDescription(
      "Labels the selected objects have, e.g. {app: shop}. At most 16; keys and values follow"
          + " Kubernetes' label syntax.")
  @Size(max = 16)
  private Map<String, String> matchLabels;

  @JsonPropertyDescription(
      "Label requirements (key, operator In, NotIn, Exists or DoesNotExist, values). At most 8.")
  @Size(max = 8)
  private List<SelectorRequirement> matchExpressions;
}
