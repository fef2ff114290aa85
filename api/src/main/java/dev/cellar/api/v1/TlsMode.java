package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Whether the database servers speak TLS, and whether clients must. */
public enum TlsMode {
  /** No TLS: the servers get no certificate and clients connect in plain text. */
  @JsonProperty("disabled")
  DISABLED,
  /** TLS offered (the default): clients that ask for it get it, others still connect in plain. */
  @JsonProperty("enabled")
  ENABLED,
  /** TLS required: the servers refuse connections without TLS from other hosts. */
  @JsonProperty("required")
  REQUIRED;

  /** Whether the servers have a certificate. */
  public boolean on() {
    return this != DISABLED;
  }
}
