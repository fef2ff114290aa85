#!/usr/bin/env bash
# The primary's part of replication: the replication account (CELLAR_REPLICATION_USER with
# REPLICATION SLAVE, password CELLAR_REPLICATION_PASSWORD), created or brought in step with the
# Secret. Idempotent; runs against this server while it runs (see mysql-lib.sh for the connection).
# Without a replication account in the environment it warns and does nothing: a single server
# needs none, and a replica will say what is missing.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=../mysql/dialect.sh
. "$here/dialect.sh"
# shellcheck source=mysql-lib.sh
. "$here/mysql-lib.sh"

if ! cellar_has_replication_account; then
  cellar_warn "no replication account (CELLAR_REPLICATION_USER/PASSWORD unset; the credentials" \
    "Secret lacks replication-user/replication-password): replicas of this primary cannot connect"
  # Without a server to talk to (the entrypoint runs it so only to warn), unless client
  # certificates must still be required below.
  [ "${CELLAR_TLS_CLIENT_CERTIFICATES:-}" = required ] || exit 0
fi
cellar_require_commands "$CELLAR_CLIENT"
if cellar_has_replication_account; then
  output=$(cellar_sql_replication_account "$CELLAR_REPLICATION_USER" "$CELLAR_REPLICATION_PASSWORD" \
    | cellar_local_sql 2>&1) || cellar_die "creating the replication account" \
    "'$CELLAR_REPLICATION_USER' on this server (${CELLAR_LOCAL_HOST:-127.0.0.1}) failed: $output." \
    "Check that root's password matches the credentials Secret and that the server runs."
fi
# spec.tls.clientCertificates: the application user must present a certificate signed by the
# CA (ssl_ca) or it is refused; REQUIRE NONE otherwise. Logged, so the replicas have it too and a
# promoted one needs no change; changed only when it differs, since a logged write on a sync
# primary waits for a replica (one being promoted has none yet).
app_user=${MARIADB_USER:-${MYSQL_USER:-}}
if [ -n "$app_user" ]; then
  require=NONE ssl_type=''
  [ "${CELLAR_TLS_CLIENT_CERTIFICATES:-}" != required ] || require=X509 ssl_type=X509
  quoted_user=$(cellar_mysql_quote "$app_user")
  current=$(printf "SELECT CONCAT('ssl_type=', ssl_type) FROM mysql.user WHERE User = %s AND Host = '%%';\n" "$quoted_user" \
    | cellar_local_sql 2>&1) || cellar_die "reading the user '$app_user' failed: $current"
  # No row: no such user (ALTER USER IF EXISTS would do nothing).
  if [ -n "$current" ] && [ "$current" != "ssl_type=$ssl_type" ]; then
    output=$(printf "ALTER USER IF EXISTS %s@'%%' REQUIRE %s;\n" "$quoted_user" "$require" \
      | cellar_local_sql 2>&1) || cellar_die "requiring ${require} of the user '$app_user' failed: $output"
  fi
  cellar_note "the user '$app_user' connects with REQUIRE $require"
fi
# A promoted replica forgets its source, so it never replicates from itself after a restart.
if [ -n "$(cellar_configured_source_host 2>/dev/null || true)" ]; then
  { cellar_sql_stop_replica && cellar_sql_reset_replica_all; } | cellar_local_sql \
    || cellar_die "forgetting this server's replication source failed (see above)"
  cellar_note "this server no longer replicates: it is the primary"
fi
if cellar_has_replication_account; then
  cellar_note "replication account '$CELLAR_REPLICATION_USER' is ready on the primary"
fi

# The metrics exporter's account (CELLAR_MONITORING_USER/PASSWORD from the monitoring Secret):
# PROCESS, REPLICATION CLIENT and SELECT on performance_schema, nothing else.
if [ -n "${CELLAR_MONITORING_USER:-}" ] && [ -n "${CELLAR_MONITORING_PASSWORD:-}" ]; then
  output=$(cellar_sql_monitoring_account "$CELLAR_MONITORING_USER" "$CELLAR_MONITORING_PASSWORD" \
    | cellar_local_sql 2>&1) || cellar_die "creating the monitoring account" \
    "'$CELLAR_MONITORING_USER' on this server failed: $output."
  cellar_note "monitoring account '$CELLAR_MONITORING_USER' is ready on the primary"
fi
