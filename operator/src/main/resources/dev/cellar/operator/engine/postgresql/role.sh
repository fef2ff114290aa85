#!/usr/bin/env bash
# What the operator asks of a running PostgreSQL server (through pods/exec, in the database
# container, whose environment has the passwords): bash role.sh ACTION. It prints one line of
# key=value words on stdout, the last line of output, and exits 0 when the action succeeded.
#   position  the WAL position this server has: a standby's received (flushed) or replayed LSN,
#             whichever is further (a synchronous commit is acknowledged once a standby has
#             flushed it, and a promotion replays all it received), a primary's current LSN, as a
#             byte count: "position=<bytes> role=<primary|replica>"
#   lag       how far behind the primary this standby's data is, in whole seconds: 0 when it has
#             replayed all it received, else the age of the last transaction it replayed (as the
#             primary's commit time says); unknown when it streams from nobody (then it cannot say
#             what it lacks) or is behind without having replayed a transaction since it started:
#             "lag=<seconds|unknown> role=replica", on a primary "role=primary"
#   promote   makes this standby the primary (pg_promote, waiting up to 50 s) and records its
#             primary setup, so a restart as primary does not redo it: "promoted". On a primary
#             it takes a demotion back (writes allowed again): "promoted".
#   demote    for a switchover: no new write transaction (default_transaction_read_only, client
#             sessions ended), a file cellar-demoted that keeps the entrypoint from starting it as
#             the primary again, and the WAL position every standby must reach:
#             "position=<bytes> demoted"
#   tls-reload  reads the SHA-256 of the renewed tls.crt on stdin; once the mounted file is that
#             one, reloads the configuration, which re-reads the TLS files: "reloaded"
#   restart   stops the server (fast shutdown); the container restarts as its label says.
#   credentials  applies the credentials on stdin (lib.sh's cellar_read_credentials): on the
#             primary the application user's and the replication account's passwords (ALTER
#             ROLE; the standbys get them with the WAL), on a standby the password it streams
#             with (primary_conninfo, reloaded: the WAL receiver reconnects, the server keeps
#             running): "applied role=<primary|replica>"
# Connection: pg-lib.sh's, as POSTGRES_USER, on the server's Unix socket when it has one (local
# connections need no password there, so a rotated password cannot lock the operator out; the
# environment's password is the one the container started with).
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=pg-lib.sh
. "$here/pg-lib.sh"

socket_dir=${CELLAR_SOCKET_DIR:-/var/run/postgresql}
if [ -z "${CELLAR_LOCAL_HOST:-}" ] && [ -S "$socket_dir/.s.PGSQL.$(cellar_pg_port)" ]; then
  export CELLAR_LOCAL_HOST=$socket_dir
fi

# The operator's own writes commit locally: with spec.replication.mode sync a just-promoted primary
# has no standby yet, and waiting for one would time the promotion out (libpq's PGOPTIONS).
export PGOPTIONS="${PGOPTIONS:-} -c synchronous_commit=local"

sql() { PGCONNECT_TIMEOUT=5 cellar_pg_local_sql -At -c "$1"; }

# SQL with passwords in it, on stdin (not in psql's arguments) and kept out of the server's log.
secret_sql() {
  { printf '%s\n' "SET log_statement = 'none';" "SET log_min_error_statement = 'panic';" && cat; } \
    | PGCONNECT_TIMEOUT=5 cellar_pg_local_sql -At >/dev/null
}

case "${1:-}" in
  position)
    line=$(sql "SELECT CASE WHEN pg_is_in_recovery()
        THEN pg_wal_lsn_diff(greatest(coalesce(pg_last_wal_receive_lsn(), '0/0'),
          coalesce(pg_last_wal_replay_lsn(), '0/0')), '0/0')::bigint || ' replica'
        ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint || ' primary' END")
    printf 'position=%s role=%s\n' "${line% *}" "${line#* }"
    ;;
  lag)
    # An idle primary sends nothing: "everything received is replayed" is the only lag-free
    # state that an age would misreport.
    lag=$(sql "SELECT CASE WHEN NOT pg_is_in_recovery() THEN 'primary'
        WHEN NOT EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming') THEN 'unknown'
        WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN '0'
        WHEN pg_last_xact_replay_timestamp() IS NULL THEN 'unknown'
        ELSE greatest(0, floor(extract(epoch FROM now() - pg_last_xact_replay_timestamp())))::bigint::text END")
    if [ "$lag" = primary ]; then echo "role=primary"; else echo "lag=$lag role=replica"; fi
    ;;
  promote)
    if [ "$(sql 'SELECT pg_is_in_recovery()')" = t ]; then
      [ "$(sql 'SELECT pg_promote(true, 50)')" = t ] || cellar_die "pg_promote did not finish within 50 s"
      # The control file names the new timeline only after a checkpoint: until then pg_rewind,
      # run by the former primary as it rejoins, finds "no rewind required" and the former
      # primary, its WAL past the fork, can never stream (the pg_rewind manual says as much).
      sql "CHECKPOINT" >/dev/null
    fi
    sql "ALTER SYSTEM RESET default_transaction_read_only" >/dev/null
    sql "SELECT pg_reload_conf()" >/dev/null
    rm -f "$(cellar_pg_data_dir)/cellar-demoted"
    if cellar_has_replication_account; then
      bash "$here/primary-setup.sh" >&2
      cellar_fingerprint primary "$CELLAR_REPLICATION_USER" "$CELLAR_REPLICATION_PASSWORD" \
        >"$(cellar_pg_data_dir)/cellar-primary.done"
    fi
    echo promoted
    ;;
  demote)
    touch "$(cellar_pg_data_dir)/cellar-demoted"
    sql "ALTER SYSTEM SET default_transaction_read_only = on" >/dev/null
    sql "SELECT pg_reload_conf()" >/dev/null
    sql "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
         WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()" >/dev/null
    # A write that was under way has committed or failed by now; a checkpoint is WAL the
    # standbys must have, too.
    sql "CHECKPOINT" >/dev/null
    printf 'position=%s demoted\n' "$(sql "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")"
    ;;
  credentials)
    cellar_read_credentials
    if [ "$(sql 'SELECT pg_is_in_recovery()')" = t ]; then
      if cellar_has_replication_account; then
        cellar_require CELLAR_PRIMARY_HOST
        printf 'ALTER SYSTEM SET primary_conninfo = %s;\n' "$(cellar_pg_quote "$(cellar_pg_primary_conninfo)")" \
          | secret_sql
        sql "SELECT pg_reload_conf()" >/dev/null
      fi
      echo "applied role=replica"
    else
      {
        printf 'ALTER ROLE %s PASSWORD %s;\n' "$(cellar_pg_ident "$CELLAR_APP_USER")" \
          "$(cellar_pg_quote "$CELLAR_APP_PASSWORD")"
        if cellar_has_replication_account; then
          printf 'ALTER ROLE %s PASSWORD %s;\n' "$(cellar_pg_ident "$CELLAR_REPLICATION_USER")" \
            "$(cellar_pg_quote "$CELLAR_REPLICATION_PASSWORD")"
        fi
      } | secret_sql
      if cellar_has_replication_account; then
        # The setup is in step with the new account: a restart need not redo it.
        cellar_fingerprint primary "$CELLAR_REPLICATION_USER" "$CELLAR_REPLICATION_PASSWORD" \
          >"$(cellar_pg_data_dir)/cellar-primary.done"
      fi
      echo "applied role=primary"
    fi
    ;;
  tls-reload)
    # The renewed certificate, once the kubelet has replaced the mounted files: PostgreSQL
    # re-reads ssl_cert_file, ssl_key_file and ssl_ca_file on a configuration reload.
    IFS= read -r want || true
    cellar_tls_await_certificate "$want"
    [ "$(sql 'SELECT pg_reload_conf()')" = t ] || cellar_die "pg_reload_conf() failed"
    echo reloaded
    ;;
  restart)
    kill -INT 1
    echo restarting
    ;;
  *)
    cellar_die "usage: role.sh position|lag|promote|demote|restart|credentials|tls-reload"
    ;;
esac
