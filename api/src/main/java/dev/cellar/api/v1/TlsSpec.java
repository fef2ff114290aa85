package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/**
 * Encrypted connections. By default Cellar issues a CA for the Database and a server certificate
 * signed by it, renews the certificate well before it expires and has the servers reload it without
 * a restart; clients verify the server with the CA in the credentials Secret ({@code ca.crt}).
 */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "(!has(self.mode) || self.mode != 'disabled' || !has(self.certificateSecret)) &&"
            + " !(has(self.certificateSecret) && has(self.issuerRef))",
    fieldPath = ".certificateSecret",
    messageExpression =
        "has(self.issuerRef) ? 'tls.certificateSecret and tls.issuerRef both say where the"
            + " certificate comes from: keep one' : 'tls.certificateSecret needs TLS: set tls.mode"
            + " to enabled or required, or remove tls.certificateSecret'",
    reason = "FieldValueForbidden")
public class TlsSpec {
  @JsonPropertyDescription(
      "enabled (default): the servers offer TLS with a certificate for the Database's Service"
          + " names; required: connections without TLS are refused (PostgreSQL hostssl,"
          + " MariaDB/MySQL require_secure_transport); disabled: no TLS. Replication uses TLS"
          + " whenever it is on.")
  @Default("enabled")
  private TlsMode mode = TlsMode.ENABLED;

  @JsonPropertyDescription(
      "A Secret of type kubernetes.io/tls in the Database's namespace with tls.crt, tls.key and"
          + " ca.crt, used instead of the certificate Cellar issues. Its certificate should name"
          + " <name>, <name>-ro and *.<name>-headless in the namespace; Cellar never writes it, so"
          + " renewing it is up to its owner (e.g. cert-manager). A DNS subdomain.")
  @Size(max = 253)
  @ValidationRule(
      value = "self.matches('" + DatabaseSpec.DNS_SUBDOMAIN + "')",
      messageExpression =
          "'tls.certificateSecret must be a Secret name (a DNS subdomain: lower-case letters,"
              + " digits, \\'-\\' and \\'.\\'): ' + self",
      reason = "FieldValueInvalid")
  private String certificateSecret;

  @JsonPropertyDescription(
      "cert-manager issues the server certificate instead of Cellar: Cellar creates a cert-manager"
          + " Certificate <name>-server (the same names as its own certificate) from this issuer"
          + " into the Secret <name>-server-tls, and cert-manager renews it; the servers reload it"
          + " without a restart. Needs cert-manager in the cluster; ignored while mode is"
          + " disabled.")
  private IssuerRef issuerRef;

  @JsonPropertyDescription(
      "true: the application user (the credentials Secret's username) must also present a client"
          + " certificate signed by the Database's CA, over TLS, whatever the mode: PostgreSQL"
          + " hostssl with clientcert=verify-full (its common name is the user name), MariaDB/MySQL"
          + " REQUIRE X509. Cellar issues it in the Secret <name>-client-tls (tls.crt, tls.key,"
          + " ca.crt) and renews it like the server's. Replication and Cellar's own connections"
          + " are not affected. Default false.")
  private Boolean clientCertificates;

  public TlsSpec(TlsMode mode, String certificateSecret, Boolean clientCertificates) {
    this(mode, certificateSecret, null, clientCertificates);
  }

  /** Whether the servers have a certificate (mode not disabled). */
  public boolean on() {
    return mode == null || mode.on();
  }

  /** Whether the application user must present a client certificate. */
  public boolean requiresClientCertificates() {
    return on() && Boolean.TRUE.equals(clientCertificates);
  }
}
