# shellcheck shell=bash
# MariaDB's programs and SQL, for the shared MySQL-family scripts (sourced after lib.sh).
# shellcheck disable=SC2034 # the variables are read by the scripts that source this file

CELLAR_ENGINE=mariadb
CELLAR_SERVER=mariadbd
CELLAR_CLIENT=mariadb
CELLAR_ADMIN=mariadb-admin
CELLAR_DUMP=mariadb-dump
# Extra client options for connections to the primary.
CELLAR_REMOTE_OPTIONS=()

cellar_root_password() { printf '%s' "${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-}}"; }

# Server options of a read-only replica. read_only does not bind root or the replication applier.
cellar_read_only_options() { printf '%s\n' --read-only; }

# spec.replication.mode sync, on the primary only (server-args.sh, role.sh promote): each commit
# waits for a replica's acknowledgement. The other semi-sync settings are in cellar.cnf.
cellar_semi_sync_primary_options() { printf '%s\n' --rpl-semi-sync-master-enabled=ON; }
cellar_sql_semi_sync_primary() { printf '%s\n' 'SET GLOBAL rpl_semi_sync_master_enabled = ON;'; }

cellar_sql_replica_status() { printf '%s\n' 'SHOW SLAVE STATUS\G'; }

cellar_sql_stop_replica() { printf '%s\n' 'STOP SLAVE;'; }

cellar_sql_start_replica() { printf '%s\n' 'START SLAVE;'; }

# cellar_sql_reset_for_seed VERSION_NUMBER: forgets any replication setup and this server's own
# binary log, before a fresh seed.
cellar_sql_reset_for_seed() {
  cat <<'EOF'
RESET SLAVE ALL;
RESET MASTER;
EOF
}

# cellar_sql_change_source_to QUOTED_HOST PORT QUOTED_USER QUOTED_PASSWORD: GTID replication from the primary, starting at
# @@gtid_slave_pos (set by the seed). The host is the primary's Service, which a failover moves:
# retried every second, a replica follows within a second of the move (a sync primary's commits
# wait for it), and master_retry_count (the config) keeps it trying for days.
cellar_sql_change_source_to() {
  local host=$1 port=$2 user=$3 password=$4
  cat <<EOF
CHANGE MASTER TO MASTER_HOST=${host}, MASTER_PORT=${port}, MASTER_USER=${user}, MASTER_PASSWORD=${password}, MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1$(cellar_sql_source_tls);
EOF
}

# cellar_sql_receive_from QUOTED_HOST PORT QUOTED_USER QUOTED_PASSWORD QUOTED_FILE: receives the
# primary's binary log from the start of FILE, without applying it (replica-bootstrap.sh).
cellar_sql_receive_from() {
  cat <<EOF
CHANGE MASTER TO MASTER_HOST=${1}, MASTER_PORT=${2}, MASTER_USER=${3}, MASTER_PASSWORD=${4}, MASTER_USE_GTID=no, MASTER_LOG_FILE=${5}, MASTER_LOG_POS=4, MASTER_CONNECT_RETRY=1$(cellar_sql_source_tls);
START SLAVE IO_THREAD;
EOF
}

# How many sessions of the primary wait for a semi-sync acknowledgement.
cellar_sql_semi_sync_waiting() {
  printf '%s\n' "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'RPL_SEMI_SYNC_MASTER_WAIT_SESSIONS';"
}

# The SQL that sets the GTID position when the primary has no database to dump.
cellar_sql_position_from() { printf "SET GLOBAL gtid_slave_pos = %s;\n" "$(cellar_mysql_quote "$1")"; }

# cellar_sql_source_password QUOTED_PASSWORD: a new password for the connection to the primary,
# the rest of the replication settings kept (replication stopped around it).
cellar_sql_source_password() { printf 'CHANGE MASTER TO MASTER_PASSWORD=%s;\n' "$1"; }

# Account changes on a read-only replica: read_only does not bind root.
cellar_sql_admin_writes_begin() { :; }
cellar_sql_admin_writes_end() { :; }

cellar_sql_primary_position() { printf '%s\n' 'SELECT @@GLOBAL.gtid_binlog_pos;'; }

# Accounts that each server keeps for itself: root (the same password everywhere, from the
# Secret; copying its grants would need PROXY rights), the image's healthcheck user (a random
# password per server) and the system's own.
CELLAR_LOCAL_ACCOUNTS_REGEX="[\`']((root)|(healthcheck)|(mariadb\\.sys))[\`']@"

# The primary's accounts, as SQL that creates the missing ones on this server and grants what the
# primary grants. Accounts that exist here keep their password.
cellar_dump_accounts() {
  cellar_primary_client_cmd "$CELLAR_DUMP" --system=users --insert-ignore \
    | grep -Ev "$CELLAR_LOCAL_ACCOUNTS_REGEX"
}

# A consistent dump of DATABASES... from the primary. Loading it sets @@gtid_slave_pos to the
# primary's position at the dump, so replication resumes exactly after it.
cellar_dump_databases() {
  cellar_primary_client_cmd "$CELLAR_DUMP" --single-transaction --gtid --master-data=1 \
    --routines --events --triggers --add-drop-database --databases "$@"
}

# Failover and rejoin (role.sh, replica-bootstrap.sh).

cellar_sql_reset_replica_all() { printf '%s\n' 'RESET SLAVE ALL;'; }

cellar_sql_stop_replica_io() { printf '%s\n' 'STOP SLAVE IO_THREAD;'; }

cellar_sql_writable() { printf '%s\n' 'SET GLOBAL read_only = 0;'; }

# Every GTID this server has applied or written.
cellar_sql_own_gtids() { printf '%s\n' 'SELECT @@GLOBAL.gtid_current_pos;'; }

# The last GTID of each domain this replica has received into its relay log, applied or not: a
# semi-synchronous commit is acknowledged once a replica has it there, and a promotion applies it.
cellar_received_gtids() { cellar_replica_status_field 'Gtid_IO_Pos'; }

# A former primary resumes from what it wrote itself (its slave position may be older or empty).
cellar_sql_rejoin_position() { printf '%s\n' 'SET GLOBAL gtid_slave_pos = @@GLOBAL.gtid_current_pos;'; }

# cellar_gtids_on_primary GTIDS: 1 when the primary has every transaction of GTIDS (a
# gtid_current_pos: the last GTID of each domain), else 0. MariaDB has no GTID_SUBSET, but a
# server's gtid_binlog_state keeps the last GTID of each domain and server id it logged, and a
# server id's sequence numbers only grow within a domain: the primary holds domain-server-seq when
# it logged that domain and server id up to seq or beyond, or replicated up to it (gtid_slave_pos,
# which MariaDB also accepts as a starting point). Asked before connecting: the primary's own
# refusal (error 1236) comes only after the replica's IO thread says it runs.
cellar_gtids_on_primary() {
  local state
  state=$(cellar_primary_sql -e 'SELECT CONCAT_WS(",", @@GLOBAL.gtid_binlog_state, @@GLOBAL.gtid_slave_pos);') \
    || return 1
  cellar_gtids_within "$1" "$state"
}

# cellar_gtids_within OWN STATE: 1 when every domain-server-seq of OWN is covered by STATE (the same
# domain and server id with a sequence number at least as high), else 0.
cellar_gtids_within() {
  awk -v own="$1" -v state="$2" 'BEGIN {
    gsub(/[ \t\n]/, "", own); gsub(/[ \t\n]/, "", state)
    n = split(state, s, ",")
    for (i = 1; i <= n; i++) if (split(s[i], g, "-") == 3 && g[3] + 0 > high[g[1] "-" g[2]] + 0) high[g[1] "-" g[2]] = g[3]
    n = split(own, o, ",")
    for (i = 1; i <= n; i++) if (split(o[i], g, "-") == 3 && !((g[1] "-" g[2]) in high && high[g[1] "-" g[2]] + 0 >= g[3] + 0)) { print 0; exit }
    print 1
  }'
}

# cellar_gtid_count GTIDS: how far a position is, as one number: the sum of the sequence numbers
# of its domains ("0-1-100,1-2-5" -> 105).
cellar_gtid_count() {
  printf '%s\n' "$1" | tr ',' '\n' | awk -F- 'NF == 3 { n += $3 } END { printf "%d\n", n }'
}

cellar_sql_read_only() { printf '%s\n' 'SET GLOBAL read_only = 1;'; }

# Throwaway servers (backup verification): how to make an empty data directory with root on the
# socket and no password, and the extra options such a server needs.
cellar_initialize_scratch_datadir() {
  mariadb-install-db --no-defaults --datadir="$1" --auth-root-authentication-method=normal \
    --skip-test-db
}
CELLAR_SCRATCH_SERVER_OPTIONS=()

# TLS (spec.tls, lib.sh's cellar_tls_on). Connections to the primary verify it: the CA and the
# host name (its certificate names the Service's DNS names).
cellar_tls_primary_options() {
  if cellar_tls_on; then
    printf '%s\n' --ssl "--ssl-ca=$(cellar_tls_dir)/ca.crt" --ssl-verify-server-cert
  fi
}

# A TCP connection to this server (refused without TLS when the mode is required; the
# certificate names 127.0.0.1 for the clients that verify by default, 11.4 on).
cellar_tls_local_options() {
  if cellar_tls_on; then
    printf '%s\n' --ssl "--ssl-ca=$(cellar_tls_dir)/ca.crt"
  fi
}

# The replication connection's TLS, appended to CHANGE MASTER.
cellar_sql_source_tls() {
  if cellar_tls_on; then
    printf ', MASTER_SSL=1, MASTER_SSL_CA=%s, MASTER_SSL_VERIFY_SERVER_CERT=1' \
      "$(cellar_mysql_quote "$(cellar_tls_dir)/ca.crt")"
  elif [ "${CELLAR_TLS_MODE:-}" = disabled ]; then
    # Explicitly off (in pods the mode is always set): the primary offers no TLS any more.
    printf ', MASTER_SSL=0'
  fi
}

# Re-reads ssl_cert, ssl_key and ssl_ca (MariaDB 10.4 on): a renewed certificate, no restart.
cellar_sql_reload_tls() { printf '%s\n' 'FLUSH SSL;'; }

# What the metrics exporter's account is granted on *.*: REPLICATION CLIENT is BINLOG MONITOR here,
# and SHOW SLAVE STATUS (replication lag) needs SLAVE MONITOR.
cellar_monitoring_privileges() { printf '%s' 'PROCESS, REPLICATION CLIENT, SLAVE MONITOR'; }
