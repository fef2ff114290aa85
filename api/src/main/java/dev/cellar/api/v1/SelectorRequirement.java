package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/** One requirement of a label selector (core/v1 LabelSelectorRequirement). */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "(self.operator in ['In', 'NotIn']) == (has(self.values) && size(self.values) > 0)",
    messageExpression =
        "'matchExpressions: operator ' + self.operator + (self.operator in ['In', 'NotIn']"
            + " ? ' needs values' : ' takes no values')",
    reason = "FieldValueInvalid")
public class SelectorRequirement {
  @JsonPropertyDescription("The label key, e.g. app.kubernetes.io/name.")
  @Required
  @Pattern(PeerSelector.LABEL_KEY)
  @Size(max = 317)
  private String key;

  @JsonPropertyDescription("In, NotIn, Exists or DoesNotExist.")
  @Required
  @Pattern("^(In|NotIn|Exists|DoesNotExist)$")
  private String operator;

  @JsonPropertyDescription("The values, for In and NotIn (at most 16); none for the others.")
  @Size(max = 16)
  private List<String> values;
}
