package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/** The server certificate the database pods are given. */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TlsStatus {
  @JsonPropertyDescription(
      "The Secret holding the server certificate: <name>-tls, or spec.tls.certificateSecret.")
  private String secretName;

  @JsonPropertyDescription("When the server certificate expires (RFC 3339).")
  private String notAfter;

  @JsonPropertyDescription(
      "When Cellar renews it (RFC 3339): two thirds into its validity. Empty for a certificate"
          + " the user brought, which Cellar does not renew.")
  private String renewalTime;
}
