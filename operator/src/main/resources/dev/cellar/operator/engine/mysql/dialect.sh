# shellcheck shell=bash
# MySQL's programs and SQL, for the shared MySQL-family scripts (sourced after lib.sh).
# Needs MySQL 8.0.23 or newer (CHANGE REPLICATION SOURCE, START REPLICA); 8.4 and 9 dropped the
# old MASTER/SLAVE statements.
# shellcheck disable=SC2034 # the variables are read by the scripts that source this file

CELLAR_ENGINE=mysql
CELLAR_SERVER=mysqld
CELLAR_CLIENT=mysql
CELLAR_ADMIN=mysqladmin
CELLAR_DUMP=mysqldump
# caching_sha2_password over a connection without TLS needs the server's RSA key.
CELLAR_REMOTE_OPTIONS=(--get-server-public-key)

cellar_root_password() { printf '%s' "${MYSQL_ROOT_PASSWORD:-}"; }

# Server options of a read-only replica: super_read_only binds root too; the replication applier
# is never bound.
cellar_read_only_options() { printf '%s\n' --read-only --super-read-only; }

# spec.replication.mode sync, on the primary only (server-args.sh, role.sh promote): each commit
# waits for a replica's acknowledgement. The plugin and the other settings are in cellar.cnf.
cellar_semi_sync_primary_options() { printf '%s\n' --loose-rpl-semi-sync-source-enabled=ON; }
cellar_sql_semi_sync_primary() { printf '%s\n' 'SET GLOBAL rpl_semi_sync_source_enabled = ON;'; }

cellar_sql_replica_status() { printf '%s\n' 'SHOW REPLICA STATUS\G'; }

cellar_sql_stop_replica() { printf '%s\n' 'STOP REPLICA;'; }

cellar_sql_start_replica() { printf '%s\n' 'START REPLICA;'; }

# cellar_sql_reset_for_seed VERSION_NUMBER: forgets any replication setup and this server's own
# GTIDs, before a fresh seed. RESET MASTER was renamed RESET BINARY LOGS AND GTIDS in 8.2 and
# removed in 8.4.
cellar_sql_reset_for_seed() {
  local reset='RESET MASTER;'
  if [ "${1:?version number}" -ge 80200 ]; then
    reset='RESET BINARY LOGS AND GTIDS;'
  fi
  cat <<EOF
RESET REPLICA ALL;
${reset}
EOF
}

# cellar_sql_change_source_to QUOTED_HOST PORT QUOTED_USER QUOTED_PASSWORD: GTID auto-positioned replication from the
# primary; the RSA key exchange lets caching_sha2_password work without TLS. The host is the
# primary's Service, which a failover moves: retried every second, a replica follows within a
# second of the move (a sync primary's commits wait for it), for a million tries (days).
cellar_sql_change_source_to() {
  local host=$1 port=$2 user=$3 password=$4
  cat <<EOF
CHANGE REPLICATION SOURCE TO SOURCE_HOST=${host}, SOURCE_PORT=${port}, SOURCE_USER=${user}, SOURCE_PASSWORD=${password}, SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=1000000$(cellar_sql_source_tls);
EOF
}

# cellar_sql_receive_from QUOTED_HOST PORT QUOTED_USER QUOTED_PASSWORD QUOTED_FILE: receives the
# primary's binary log from the start of FILE, without applying it (replica-bootstrap.sh).
cellar_sql_receive_from() {
  cat <<EOF
CHANGE REPLICATION SOURCE TO SOURCE_HOST=${1}, SOURCE_PORT=${2}, SOURCE_USER=${3}, SOURCE_PASSWORD=${4}, SOURCE_AUTO_POSITION=0, SOURCE_LOG_FILE=${5}, SOURCE_LOG_POS=4, GET_SOURCE_PUBLIC_KEY=1, SOURCE_CONNECT_RETRY=1$(cellar_sql_source_tls);
START REPLICA IO_THREAD;
EOF
}

# How many sessions of the primary wait for a semi-sync acknowledgement.
cellar_sql_semi_sync_waiting() {
  printf '%s\n' "SELECT VARIABLE_VALUE FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Rpl_semi_sync_source_wait_sessions';"
}

# The SQL that sets the GTID position when the primary has no database to dump.
cellar_sql_position_from() { printf "SET GLOBAL gtid_purged = %s;\n" "$(cellar_mysql_quote "$1")"; }

# cellar_sql_source_password QUOTED_PASSWORD: a new password for the connection to the primary,
# the rest of the replication settings kept (replication stopped around it).
cellar_sql_source_password() { printf 'CHANGE REPLICATION SOURCE TO SOURCE_PASSWORD=%s;\n' "$1"; }

# Account changes on a replica: super_read_only binds root too, so it is lifted for them (in one
# session) and put back as it was.
cellar_sql_admin_writes_begin() {
  printf '%s\n' 'SET @cellar_super_read_only = @@GLOBAL.super_read_only;' 'SET GLOBAL super_read_only = 0;'
}
cellar_sql_admin_writes_end() { printf '%s\n' 'SET GLOBAL super_read_only = @cellar_super_read_only;'; }

cellar_sql_primary_position() { printf '%s\n' 'SELECT @@GLOBAL.gtid_executed;'; }

# Accounts that each server keeps for itself: root (same password everywhere, from the Secret)
# and the system's own.
CELLAR_LOCAL_ACCOUNTS_SQL="user NOT IN ('root', 'mysql.sys', 'mysql.session', 'mysql.infoschema') AND user <> ''"

# The primary's accounts, as SQL that creates the missing ones on this server and grants what the
# primary grants: SHOW CREATE USER (hashes as hex, so binary hashes survive) and SHOW GRANTS.
# Accounts that exist here keep their password.
cellar_dump_accounts() {
  local accounts account grants=()
  accounts=$(cellar_primary_client_cmd "$CELLAR_CLIENT" --batch --skip-column-names \
    -e "SELECT CONCAT(QUOTE(user), '@', QUOTE(host)) FROM mysql.user WHERE ${CELLAR_LOCAL_ACCOUNTS_SQL} ORDER BY user, host")
  while IFS= read -r account; do
    [ -n "$account" ] || continue
    cellar_primary_client_cmd "$CELLAR_CLIENT" --batch --skip-column-names --raw \
      -e "SET SESSION print_identified_with_as_hex = ON; SHOW CREATE USER ${account};" \
      | sed -E 's/^CREATE USER /CREATE USER IF NOT EXISTS /; s/$/;/'
    grants+=("$account")
  done <<<"$accounts"
  # Grants after every account exists: roles are accounts too.
  for account in "${grants[@]}"; do
    cellar_primary_client_cmd "$CELLAR_CLIENT" --batch --skip-column-names --raw \
      -e "SHOW GRANTS FOR ${account};" | sed -E 's/$/;/'
  done
}

# A consistent dump of DATABASES... from the primary. It carries SET @@GLOBAL.GTID_PURGED with the
# primary's GTIDs at the dump, so auto-positioned replication resumes exactly after it.
cellar_dump_databases() {
  cellar_primary_client_cmd "$CELLAR_DUMP" --single-transaction --set-gtid-purged=ON \
    --routines --events --triggers --add-drop-database --databases "$@"
}

# Failover and rejoin (role.sh, replica-bootstrap.sh).

cellar_sql_reset_replica_all() { printf '%s\n' 'RESET REPLICA ALL;'; }

cellar_sql_stop_replica_io() { printf '%s\n' 'STOP REPLICA IO_THREAD;'; }

cellar_sql_writable() { printf '%s\n' 'SET GLOBAL super_read_only = 0;' 'SET GLOBAL read_only = 0;'; }

cellar_sql_own_gtids() { printf '%s\n' 'SELECT @@GLOBAL.gtid_executed;'; }

# MySQL's Retrieved_Gtid_Set is what this IO thread fetched, a part of the history only: it would
# count against gtid_executed only as their union, which no MySQL server here could test. Applied
# GTIDs only, then (a promotion applies the relay log first all the same).
cellar_received_gtids() { :; }

# Auto-positioning sends gtid_executed: nothing to set.
cellar_sql_rejoin_position() { :; }

# cellar_gtids_on_primary GTIDS: 1 when the primary has executed every transaction of GTIDS.
cellar_gtids_on_primary() {
  cellar_primary_sql -e "SELECT GTID_SUBSET($(cellar_mysql_quote "$(cellar_gtid_set_clean "$1")"), @@GLOBAL.gtid_executed);"
}

# A GTID set as the client prints it, without the escaped newlines between UUIDs.
cellar_gtid_set_clean() { printf '%s' "$1" | sed -e 's/\\n//g' | tr -d '\n '; }

# cellar_gtid_count GTIDS: how many transactions a GTID set holds ("u:1-100:105,v:1-5" -> 106).
cellar_gtid_count() {
  cellar_gtid_set_clean "$1" | tr ',' '\n' | awk -F: '
    { for (i = 2; i <= NF; i++) { split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } }
    END { printf "%d\n", n }'
}

cellar_sql_read_only() { printf '%s\n' 'SET GLOBAL super_read_only = 1;'; }

# Throwaway servers (backup verification): how to make an empty data directory with root on the
# socket and no password, and the extra options such a server needs (no X plugin socket in the
# image's run directory, no secure_file_priv directory).
cellar_initialize_scratch_datadir() {
  mysqld --no-defaults --initialize-insecure --datadir="$1"
}
CELLAR_SCRATCH_SERVER_OPTIONS=(--mysqlx=OFF --secure-file-priv=NULL)

# TLS (spec.tls, lib.sh's cellar_tls_on). Connections to the primary verify it: the CA and the
# host name (its certificate names the Service's DNS names).
cellar_tls_primary_options() {
  if cellar_tls_on; then
    printf '%s\n' --ssl-mode=VERIFY_IDENTITY "--ssl-ca=$(cellar_tls_dir)/ca.crt"
  fi
}

# A TCP connection to this server: the client's default ssl-mode (PREFERRED) takes TLS where the
# server offers it, which a required mode needs.
cellar_tls_local_options() { :; }

# The replication connection's TLS, appended to CHANGE REPLICATION SOURCE.
cellar_sql_source_tls() {
  if cellar_tls_on; then
    printf ', SOURCE_SSL=1, SOURCE_SSL_CA=%s, SOURCE_SSL_VERIFY_SERVER_CERT=1' \
      "$(cellar_mysql_quote "$(cellar_tls_dir)/ca.crt")"
  elif [ "${CELLAR_TLS_MODE:-}" = disabled ]; then
    # Explicitly off (in pods the mode is always set): the primary offers no TLS any more.
    printf ', SOURCE_SSL=0'
  fi
}

# Re-reads the TLS files (MySQL 8.0.16 on): a renewed certificate, no restart.
cellar_sql_reload_tls() { printf '%s\n' 'ALTER INSTANCE RELOAD TLS;'; }

# What the metrics exporter's account is granted on *.* (REPLICATION CLIENT covers SHOW REPLICA
# STATUS).
cellar_monitoring_privileges() { printf '%s' 'PROCESS, REPLICATION CLIENT'; }
