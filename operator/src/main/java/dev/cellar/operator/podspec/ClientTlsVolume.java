package dev.cellar.operator.podspec;

/**
 * The application user's client certificate Secret's volume (spec.tls.clientCertificates), mounted
 * at {@link dev.cellar.operator.engine.EngineProfile#CLIENT_TLS_DIR} in the database pods
 * (PostgreSQL's pg_rewind connects to the primary as that user) and in the PostgreSQL backup Jobs.
 */
public final class ClientTlsVolume {
  public static final String NAME = "client-tls";

  private ClientTlsVolume() {}
}
