package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/** A cert-manager issuer, as a cert-manager Certificate names it. */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class IssuerRef {
  @JsonPropertyDescription("The Issuer's (or ClusterIssuer's) name.")
  @Required
  @Size(min = 1, max = 253)
  private String name;

  @JsonPropertyDescription(
      "Issuer (default: in the Database's namespace) or ClusterIssuer, or the kind of an external"
          + " issuer.")
  @Default("Issuer")
  @Size(max = 63)
  @Pattern("^[A-Z][A-Za-z0-9]*$")
  private String kind = "Issuer";

  @JsonPropertyDescription("The issuer's API group: cert-manager.io (default) or an external one.")
  @Default("cert-manager.io")
  @Size(max = 253)
  private String group = "cert-manager.io";

  public IssuerRef(String name) {
    this(name, "Issuer", "cert-manager.io");
  }
}
