package dev.cellar.operator.certmanager;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * cert-manager's Certificate (cert-manager.io/v1), only the fields Cellar sets and reads. Its CRD
 * belongs to cert-manager; Cellar never installs it.
 */
@Group("cert-manager.io")
@Version("v1")
@Kind("Certificate")
@Plural("certificates")
public class Certificate extends CustomResource<Certificate.Spec, Certificate.Status>
    implements Namespaced {

  /** What to issue, by whom, into which Secret. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Spec(
      String secretName,
      SecretTemplate secretTemplate,
      String commonName,
      List<String> dnsNames,
      List<String> ipAddresses,
      List<String> usages,
      Issuer issuerRef) {}

  /** Labels and annotations cert-manager puts on the Secret it writes. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record SecretTemplate(Map<String, String> labels, Map<String, String> annotations) {}

  /** The issuer, as cert-manager names it. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Issuer(String name, String kind, String group) {}

  /** What cert-manager says: its Ready condition. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Status(List<Condition> conditions, String notAfter) {}

  /** The Ready condition, if cert-manager wrote one. */
  public Optional<Condition> ready() {
    return Optional.ofNullable(getStatus())
        .map(Status::conditions)
        .flatMap(c -> c.stream().filter(x -> "Ready".equals(x.getType())).findFirst());
  }
}
