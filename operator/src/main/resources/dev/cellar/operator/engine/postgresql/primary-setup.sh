#!/usr/bin/env bash
# The primary's part of replication, against this server while it runs (see pg-lib.sh for the
# connection): the role CELLAR_REPLICATION_USER (REPLICATION, LOGIN, password
# CELLAR_REPLICATION_PASSWORD stored as SCRAM), and a pg_hba.conf line that lets it stream from
# any address with scram-sha-256. Idempotent. Run it as the server's OS user: it appends to the
# server's hba_file and reloads the configuration.
# Without a replication account in the environment it warns and does nothing.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=pg-lib.sh
. "$here/pg-lib.sh"

if ! cellar_has_replication_account; then
  cellar_warn "no replication account (CELLAR_REPLICATION_USER/PASSWORD unset; the credentials" \
    "Secret lacks replication-user/replication-password): standbys of this primary cannot connect"
  exit 0
fi
cellar_require_commands psql
user=$CELLAR_REPLICATION_USER
case "$user" in
  *[!A-Za-z0-9_.-]*) cellar_die "replication user '$user' may only use letters, digits, '_', '.' and '-'" ;;
esac

output=$(cellar_pg_local_sql -v user="$user" -v password="$CELLAR_REPLICATION_PASSWORD" 2>&1 <<'SQL'
SET password_encryption = 'scram-sha-256';
SELECT format('CREATE ROLE %I', :'user')
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'user') \gexec
ALTER ROLE :"user" WITH REPLICATION LOGIN PASSWORD :'password';
SQL
) || cellar_die "creating the replication role '$user' on ${CELLAR_LOCAL_HOST:-127.0.0.1}:$(cellar_pg_port)" \
  "failed: $output. Check that the server runs and that ${POSTGRES_USER:-postgres} may connect."

hba=$(cellar_pg_local_sql -At -c 'SHOW hba_file')
line="host replication \"$user\" all scram-sha-256"
if ! grep -qxF "$line" "$hba" 2>/dev/null; then
  [ -w "$hba" ] || cellar_die "cannot write $hba: run primary-setup.sh as the server's OS user"
  printf '\n# Cellar: streaming replication for standbys\n%s\n' "$line" >>"$hba"
  cellar_note "added to $hba: $line"
fi
cellar_pg_tls_hba "$hba" || true
errors=$(cellar_pg_local_sql -At -c 'SELECT pg_reload_conf(); SELECT count(*) FROM pg_hba_file_rules WHERE error IS NOT NULL' | tail -n1)
[ "$errors" = 0 ] || cellar_die "$hba has $errors invalid line(s) (see pg_hba_file_rules); fix them and restart"
cellar_note "replication role '$user' is ready on the primary"

# The metrics exporter's account (CELLAR_MONITORING_USER/PASSWORD from the monitoring Secret):
# LOGIN with pg_monitor only, which reads statistics and settings but no table. Replicated to the
# standbys with everything else.
if [ -n "${CELLAR_MONITORING_USER:-}" ] && [ -n "${CELLAR_MONITORING_PASSWORD:-}" ]; then
  monitor=$CELLAR_MONITORING_USER
  case "$monitor" in
    *[!A-Za-z0-9_.-]*) cellar_die "monitoring user '$monitor' may only use letters, digits, '_', '.' and '-'" ;;
  esac
  output=$(cellar_pg_local_sql -v user="$monitor" -v password="$CELLAR_MONITORING_PASSWORD" 2>&1 <<'SQL'
SET password_encryption = 'scram-sha-256';
SELECT format('CREATE ROLE %I', :'user')
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'user') \gexec
ALTER ROLE :"user" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION CONNECTION LIMIT 5 PASSWORD :'password';
GRANT pg_monitor TO :"user";
SQL
  ) || cellar_die "creating the monitoring role '$monitor' failed: $output"
  cellar_note "monitoring role '$monitor' (pg_monitor) is ready on the primary"
fi
