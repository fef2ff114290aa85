# shellcheck shell=bash
# What the PostgreSQL scripts share. Sourced after lib.sh.
#
# Environment, besides lib.sh's:
#   PGDATA / CELLAR_DATA_DIR  the data directory (CELLAR_DATA_DIR wins)
#   POSTGRES_USER             the superuser the scripts connect as (default postgres)
#   POSTGRES_PASSWORD         its password, when this server asks for one
#   CELLAR_LOCAL_HOST         this server: a host, or a socket directory (default 127.0.0.1)
#   CELLAR_PORT / PGPORT      this server's port (default 5432)

# The server's own programs first. Debian's packages (and the images built on them, the official
# ones among them) put postgresql-common's pg_wrapper at /usr/bin/psql: a Perl program that
# starts before every psql, pg_isready and pg_dump (measured here: 58 ms against 18 ms a call,
# more under load). A switchover runs a dozen of them while writes are refused.
if [ -n "${PG_MAJOR:-}" ] && [ -d "/usr/lib/postgresql/$PG_MAJOR/bin" ]; then
  PATH=/usr/lib/postgresql/$PG_MAJOR/bin:$PATH
  export PATH
fi

cellar_pg_data_dir() {
  local dir=${CELLAR_DATA_DIR:-${PGDATA:-}}
  [ -n "$dir" ] || cellar_die "set PGDATA or CELLAR_DATA_DIR to the data directory"
  printf '%s\n' "$dir"
}

cellar_pg_port() { printf '%s\n' "${CELLAR_PORT:-${PGPORT:-5432}}"; }

# psql as the superuser on this server; SQL on stdin or with -c.
cellar_pg_local_sql() {
  PGPASSWORD=${POSTGRES_PASSWORD:-${PGPASSWORD:-}} psql -X -q -v ON_ERROR_STOP=1 --no-password \
    -h "${CELLAR_LOCAL_HOST:-127.0.0.1}" -p "$(cellar_pg_port)" \
    -U "${POSTGRES_USER:-postgres}" -d postgres "$@"
}

# A libpq connection string value, quoted: 'it''s' -> 'it\'s'.
cellar_conninfo_value() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\'/\\\'}
  printf "'%s'" "$s"
}

# The TLS part of a connection string to the primary: verify-full (the CA and the host name)
# when TLS is on, else prefer.
cellar_pg_ssl_conninfo() {
  if cellar_tls_on; then
    printf 'sslmode=verify-full sslrootcert=%s' "$(cellar_conninfo_value "$(cellar_tls_dir)/ca.crt")"
  else
    printf 'sslmode=prefer'
  fi
}

# libpq's environment for the tools that reach the primary (pg_basebackup, pg_rewind, psql):
# exported, when TLS is on, by the scripts that only talk to the primary.
# With client certificates required, also the application user's certificate: pg_rewind connects
# as that user (the superuser), whom pg_hba.conf then asks for one.
cellar_pg_export_primary_ssl() {
  if cellar_tls_on; then
    export PGSSLMODE=verify-full PGSSLROOTCERT
    PGSSLROOTCERT="$(cellar_tls_dir)/ca.crt"
    if [ "${CELLAR_TLS_CLIENT_CERTIFICATES:-}" = required ]; then
      export PGSSLCERT=${CELLAR_CLIENT_TLS_DIR:-/etc/cellar-client-tls}/tls.crt
      export PGSSLKEY=${CELLAR_CLIENT_TLS_DIR:-/etc/cellar-client-tls}/tls.key
    fi
  fi
}

# cellar_pg_tls_hba HBA_FILE: Cellar's block at the top of pg_hba.conf, from CELLAR_TLS_MODE and
# CELLAR_TLS_CLIENT_CERTIFICATES. With required, every TCP connection without TLS is rejected
# (replication too: "all" does not match it). With client certificates required, the application
# user (POSTGRES_USER) gets in over TCP only with TLS, its password and a certificate signed by the
# CA whose common name is its name (clientcert=verify-full). Unix-socket connections, which the
# probes and scripts use, are "local" lines and unaffected. Otherwise the block is removed.
# Idempotent; returns 1 when it changed the file.
cellar_pg_tls_hba() {
  local hba=$1 next user=${POSTGRES_USER:-postgres}
  [ -f "$hba" ] || return 0
  case $user in *'"'*) cellar_die "the user name '$user' has a double quote, which pg_hba.conf cannot name" ;; esac
  next="$hba.cellar"
  {
    if [ "${CELLAR_TLS_CLIENT_CERTIFICATES:-}" = required ] && cellar_tls_on; then
      printf '%s\n' '# cellar-tls begin: spec.tls.clientCertificates' \
        "hostssl all \"$user\" all scram-sha-256 clientcert=verify-full" \
        "hostnossl all \"$user\" all reject"
      [ "${CELLAR_TLS_MODE:-disabled}" != required ] || printf '%s\n' 'hostnossl all all all reject' \
        'hostnossl replication all all reject'
      printf '%s\n' '# cellar-tls end'
    elif [ "${CELLAR_TLS_MODE:-disabled}" = required ]; then
      printf '%s\n' '# cellar-tls begin: spec.tls.mode required' \
        'hostnossl all all all reject' \
        'hostnossl replication all all reject' \
        '# cellar-tls end'
    fi
    awk '/^# cellar-tls begin/ { skip = 1 } !skip { print } /^# cellar-tls end/ { skip = 0 }' "$hba"
  } >"$next"
  if cmp -s "$hba" "$next"; then
    rm -f "$next"
    return 0
  fi
  chmod 600 "$next"
  mv -f "$next" "$hba"
  cellar_note "pg_hba.conf: TLS ${CELLAR_TLS_MODE:-disabled}, client certificates ${CELLAR_TLS_CLIENT_CERTIFICATES:-not required}"
  return 1
}

# The connection string a standby uses to stream from the primary.
cellar_pg_primary_conninfo() {
  printf 'host=%s port=%s user=%s password=%s application_name=%s %s' \
    "$(cellar_conninfo_value "$CELLAR_PRIMARY_HOST")" "$(cellar_primary_port)" \
    "$(cellar_conninfo_value "$CELLAR_REPLICATION_USER")" \
    "$(cellar_conninfo_value "$CELLAR_REPLICATION_PASSWORD")" \
    "$(cellar_conninfo_value "${POD_NAME:-cellar-replica-$(cellar_ordinal)}")" \
    "$(cellar_pg_ssl_conninfo)"
}
