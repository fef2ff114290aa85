package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
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

  /** A label value: empty, or at most 63 letters, digits, '-', '_' and '.', alphanumeric ends. */
  public static final String LABEL_VALUE = "^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$";

  @JsonPropertyDescription("Labels the selected objects have, e.g. {app: shop}. At most 16.")
  @Size(max = 16)
  @ValidationRule(
      value =
          "self.all(k, size(k) <= 317 && k.matches('"
              + LABEL_KEY
              + "') && size(self[k]) <= 63 && self[k].matches('"
              + LABEL_VALUE
              + "'))",
      message =
          "matchLabels: keys are label keys ([prefix/]name, the name at most 63 letters, digits,"
              + " '-', '_' or '.'), values at most 63 such characters",
      reason = "FieldValueInvalid")
  private Map<String, String> matchLabels;

  @JsonPropertyDescription(
      "Label requirements (key, operator In, NotIn, Exists or DoesNotExist, values). At most 8.")
  @Size(max = 8)
  private List<SelectorRequirement> matchExpressions;
}
