#!/usr/bin/env bash
# What the operator asks of a running MySQL or MariaDB server (through pods/exec, in the database
# container, whose environment has root's password): bash role.sh ACTION. It prints one line of
# key=value words on stdout, the last line of output, and exits 0 when the action succeeded.
#   position  how far this server is: the transactions of its GTID position as one number
#             (dialect.sh's cellar_gtid_count), on a replica the further of what it applied and
#             what it received (dialect.sh's cellar_received_gtids; a promotion applies the relay
#             log first): "position=<n> role=<primary|replica>"
#   lag       how far behind its source this replica is, in whole seconds (the server's
#             Seconds_Behind_Master/Source); unknown while a thread does not run:
#             "lag=<seconds|unknown> role=replica", on a server without a source "role=primary"
#   promote   makes this replica the primary: the received relay log applied (up to
#             CELLAR_APPLY_SECONDS, 20), replication stopped and forgotten, semi-sync waits on
#             (CELLAR_REPLICATION_MODE=sync), writes allowed, the replication account in step
#             with the Secret: "promoted". A server that replicates from nobody answers
#             "promoted" after allowing writes (a demotion taken back).
#   demote    for a switchover: writes refused (read_only, MySQL's super_read_only), a file
#             cellar-demoted that keeps the entrypoint from starting it as the primary again, and
#             the position every replica must reach: "position=<n> demoted"
#   restart   stops the server; the container restarts as its label says.
#   replicating  the second half of the readiness probe (MySqlFamilyProfile): exits 1 when this
#             server has a replication source and its SQL thread does not run (stopped on an
#             error, or by hand), naming the thread's last error: "replicating=<Yes|none>". The IO
#             thread is not asked: it stops whenever the primary goes, which is exactly when the
#             replicas must stay ready to be elected.
#   tls-reload  reads the SHA-256 of the renewed tls.crt on stdin; once the mounted file is that
#             one, the server reloads its TLS files (dialect.sh): "reloaded"
#   credentials  applies the credentials on stdin (lib.sh's cellar_read_credentials) on this
#             server: the application user's and the replication account's passwords (ALTER
#             USER, not written to the binary log: every server is asked in turn, like the
#             replication account is created on each), and on a replica the password it
#             replicates with: "applied role=<primary|replica>"
# Connection: root on this server's socket (or CELLAR_LOCAL_HOST when set).
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=../mysql/dialect.sh
. "$here/dialect.sh"
# shellcheck source=mysql-lib.sh
. "$here/mysql-lib.sh"

data=${CELLAR_DATA_DIR:-/var/lib/mysql}
if [ -z "${CELLAR_LOCAL_HOST:-}" ]; then
  # The images' usual sockets first: asking the server binary for its options takes seconds.
  socket=''
  for candidate in /run/mysqld/mysqld.sock /var/run/mysqld/mysqld.sock /var/lib/mysql/mysql.sock /tmp/mysql.sock; do
    if [ -S "$candidate" ]; then
      socket=$candidate
      break
    fi
  done
  if [ -z "$socket" ]; then
    socket=$("$CELLAR_SERVER" --verbose --help --log-bin-index="$(mktemp -u)" 2>/dev/null \
      | awk '!found && /^socket[ \t]/ { found = 1; print $2 }') || socket=''
  fi
  export CELLAR_LOCAL_HOST=${socket:-127.0.0.1}
fi

sql() { cellar_local_sql --connect-timeout=5 -e "$1"; }

# Whether the SQL thread has applied everything the IO thread received: it says so, or its
# position is the IO thread's.
relay_log_applied() {
  local read exec file relay_file
  case "$(cellar_replica_status_field '(Slave|Replica)_SQL_Running_State')" in
    *'read all relay log'*) return 0 ;;
  esac
  read=$(cellar_replica_status_field '(Read_Master|Read_Source)_Log_Pos')
  exec=$(cellar_replica_status_field '(Exec_Master|Exec_Source)_Log_Pos')
  file=$(cellar_replica_status_field '(Master|Source)_Log_File')
  relay_file=$(cellar_replica_status_field '(Relay_Master|Relay_Source)_Log_File')
  [ -n "$read" ] && [ "$read" = "$exec" ] && [ "$file" = "$relay_file" ]
}

case "${1:-}" in
  position)
    # One query per assignment: a failed one ends the script (set -e) instead of counting as 0.
    gtids=$(sql "$(cellar_sql_own_gtids)")
    position=$(cellar_gtid_count "$gtids")
    role=primary
    if [ -n "$(cellar_configured_source_host)" ]; then
      role=replica
      gtids=$(cellar_received_gtids)
      received=$(cellar_gtid_count "$gtids")
      if [ "$received" -gt "$position" ]; then position=$received; fi
    fi
    printf 'position=%s role=%s\n' "$position" "$role"
    ;;
  lag)
    if [ -z "$(cellar_configured_source_host)" ]; then
      echo "role=primary"
    else
      lag=$(cellar_replica_status_field 'Seconds_Behind_(Master|Source)')
      case "$lag" in '' | *[!0-9]*) lag=unknown ;; esac
      echo "lag=$lag role=replica"
    fi
    ;;
  promote)
    if [ -n "$(cellar_configured_source_host)" ]; then
      sql "$(cellar_sql_stop_replica_io)" >/dev/null
      deadline=$((SECONDS + ${CELLAR_APPLY_SECONDS:-20}))
      until relay_log_applied; do
        if [ "$SECONDS" -ge "$deadline" ]; then
          cellar_warn "the relay log was not applied within ${CELLAR_APPLY_SECONDS:-20} s; promoting anyway"
          break
        fi
        sleep 0.2
      done
      { cellar_sql_stop_replica && cellar_sql_reset_replica_all; } | cellar_local_sql
    fi
    # Sync: commits wait for a replica before any is accepted here (as server-args.sh starts a
    # primary).
    if [ "${CELLAR_REPLICATION_MODE:-async}" = sync ]; then
      cellar_sql_semi_sync_primary | cellar_local_sql
    fi
    cellar_sql_writable | cellar_local_sql
    rm -f "$data/cellar-demoted"
    bash "$here/primary-setup.sh" >&2
    if cellar_has_replication_account && [ -d "$data" ]; then
      rm -f "$data/cellar-replica.done"
      cellar_fingerprint primary "$CELLAR_REPLICATION_USER" "$CELLAR_REPLICATION_PASSWORD" \
        >"$data/cellar-primary.done"
    fi
    echo promoted
    ;;
  demote)
    touch "$data/cellar-demoted"
    cellar_sql_read_only | cellar_local_sql
    gtids=$(sql "$(cellar_sql_own_gtids)")
    printf 'position=%s demoted\n' "$(cellar_gtid_count "$gtids")"
    ;;
  credentials)
    cellar_read_credentials
    {
      printf '%s\n' 'SET SESSION sql_log_bin = 0;'
      cellar_sql_admin_writes_begin
      printf "ALTER USER IF EXISTS %s@'%%' IDENTIFIED BY %s;\n" "$(cellar_mysql_quote "$CELLAR_APP_USER")" \
        "$(cellar_mysql_quote "$CELLAR_APP_PASSWORD")"
      if cellar_has_replication_account; then
        printf "ALTER USER IF EXISTS %s@'%%' IDENTIFIED BY %s;\n" \
          "$(cellar_mysql_quote "$CELLAR_REPLICATION_USER")" "$(cellar_mysql_quote "$CELLAR_REPLICATION_PASSWORD")"
      fi
      cellar_sql_admin_writes_end
    } | cellar_local_sql
    role=primary
    if [ -n "$(cellar_configured_source_host)" ]; then
      role=replica
      if cellar_has_replication_account; then
        {
          cellar_sql_stop_replica
          cellar_sql_source_password "$(cellar_mysql_quote "$CELLAR_REPLICATION_PASSWORD")"
          cellar_sql_start_replica
        } | cellar_local_sql
        cellar_fingerprint replica "$CELLAR_REPLICATION_USER" "$CELLAR_REPLICATION_PASSWORD" \
          "$CELLAR_PRIMARY_HOST" "$(cellar_primary_port)" "${CELLAR_TLS_MODE:-disabled}" \
          >"$data/cellar-replica.done"
      fi
    elif cellar_has_replication_account && [ -d "$data" ]; then
      cellar_fingerprint primary "$CELLAR_REPLICATION_USER" "$CELLAR_REPLICATION_PASSWORD" \
        >"$data/cellar-primary.done"
    fi
    echo "applied role=$role"
    ;;
  tls-reload)
    # The renewed certificate, once the kubelet has replaced the mounted files.
    IFS= read -r want || true
    cellar_tls_await_certificate "$want"
    cellar_sql_reload_tls | cellar_local_sql
    echo reloaded
    ;;
  replicating)
    running=$(cellar_replica_status_field '(Slave|Replica)_SQL_Running')
    if [ -n "$running" ] && [ "$running" != Yes ]; then
      error=$(cellar_replica_status_field 'Last_SQL_Error')
      echo "replication from $(cellar_configured_source_host) does not apply: its SQL thread is not running (last error: ${error:-none})"
      exit 1
    fi
    echo "replicating=${running:-none}"
    ;;
  restart)
    cellar_local_client_cmd "$CELLAR_ADMIN" shutdown >/dev/null 2>&1 || kill -TERM 1
    echo restarting
    ;;
  *)
    cellar_die "usage: role.sh position|lag|promote|demote|restart|replicating|credentials|tls-reload"
    ;;
esac
