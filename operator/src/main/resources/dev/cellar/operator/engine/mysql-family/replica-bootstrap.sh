#!/usr/bin/env bash
# The replica's part of replication, against this server while it runs (see mysql-lib.sh for the
# connection). Idempotent:
#   - a server that never replicated is seeded from the primary: its accounts (missing ones are
#     created, existing ones keep their password) and a consistent dump of every user database,
#     which carries the primary's GTID position. This works for a fresh primary and for a
#     populated one whose old binary logs are purged; the dump streams, nothing lands on disk.
#   - a former primary (CELLAR_REJOIN=1) first tries to resume from its own GTID position: when the
#     new primary has every transaction it has (MySQL: GTID_SUBSET; MariaDB: the primary's binary
#     log holds its position), it simply replicates from there; when it diverged (writes that never
#     reached the new primary), it is seeded afresh, which drops them.
#   - then replication is pointed at CELLAR_PRIMARY_HOST:CELLAR_PRIMARY_PORT with the replication
#     account (GTID auto-positioning) and started, and the script waits until it connects.
# Root must be able to write while it seeds (MySQL's super_read_only off; read_only is fine).
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=../mysql/dialect.sh
. "$here/dialect.sh"
# shellcheck source=mysql-lib.sh
. "$here/mysql-lib.sh"

! cellar_is_primary || cellar_die "replica-bootstrap.sh runs on replicas; this server's role is primary"
cellar_require_replication_account
cellar_require CELLAR_PRIMARY_HOST
cellar_require_commands "$CELLAR_CLIENT" "$CELLAR_DUMP"
primary="$CELLAR_PRIMARY_HOST:$(cellar_primary_port)"
wait_seconds=${CELLAR_WAIT_SECONDS:-600}

output=$(cellar_local_sql --connect-timeout=10 -e 'SELECT 1' 2>&1) || cellar_die \
  "this server (${CELLAR_LOCAL_HOST:-127.0.0.1}) does not answer as root: $output." \
  "Check that it runs and that root's password matches the credentials Secret."

# Semi-sync (spec.replication.mode sync): the primary holds each commit until a replica has
# received it, and a held commit keeps its locks, a new table's metadata lock among them, which the
# dump needs. With no other replica to acknowledge them, this one would wait for them and they for
# it. So it first receives the primary's current binary log without applying it, which
# acknowledges the held commits, and forgets it: the dump then carries them. Until this replica is
# seeded they are on the primary only, as every commit of a primary without replicas.
acknowledge_held_commits() {
  local held file deadline
  held=$(cellar_primary_sql -e "$(cellar_sql_semi_sync_waiting)" 2>/dev/null) || return 0
  case "$held" in '' | 0 | *[!0-9]*) return 0 ;; esac
  file=$(cellar_primary_sql -e 'SHOW BINARY LOGS' | tail -n 1 | cut -f 1)
  cellar_note "the primary holds $held commit(s) until a replica receives them: receiving its binary log $file"
  cellar_sql_receive_from "$(cellar_mysql_quote "$CELLAR_PRIMARY_HOST")" "$(cellar_primary_port)" \
    "$(cellar_mysql_quote "$CELLAR_REPLICATION_USER")" "$(cellar_mysql_quote "$CELLAR_REPLICATION_PASSWORD")" \
    "$(cellar_mysql_quote "$file")" | cellar_local_sql \
    || cellar_die "receiving the binary log of $primary failed (see above)"
  deadline=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$deadline" ]; do
    held=$(cellar_primary_sql -e "$(cellar_sql_semi_sync_waiting)" 2>/dev/null) || held=unknown
    [ "$held" != 0 ] || break
    sleep 0.5
  done
  [ "$held" = 0 ] || cellar_warn "$held commit(s) of the primary still wait for a replica; the seed may wait for them"
  { cellar_sql_stop_replica && cellar_sql_reset_replica_all; } | cellar_local_sql \
    || cellar_die "forgetting the received binary log failed (see above)"
}

seed() {
  cellar_note "this replica has never replicated: seeding it from the primary $primary"
  cellar_wait_until "$wait_seconds" "the primary $primary (as root)" \
    "Check that the primary pod runs and is ready, and that root's password is the same on both servers." \
    cellar_primary_ping
  local started=$SECONDS databases
  cellar_local_sql -e "$(cellar_sql_stop_replica)" >/dev/null 2>&1 || true
  cellar_sql_reset_for_seed "$(cellar_server_version_number)" | cellar_local_sql \
    || cellar_die "resetting this server's replication state before the seed failed (see above)"
  acknowledge_held_commits
  { printf '%s\n' 'SET SESSION sql_log_bin = 0;' && cellar_dump_accounts; } | cellar_local_sql \
    || cellar_die "copying the accounts of $primary failed (see above): check root's grants on both servers"
  databases=$(cellar_primary_sql -e "SELECT schema_name FROM information_schema.schemata WHERE schema_name NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') ORDER BY schema_name")
  if [ -n "$databases" ]; then
    local names
    mapfile -t names <<<"$databases"
    { printf '%s\n' 'SET SESSION sql_log_bin = 0;' && cellar_dump_databases "${names[@]}"; } \
      | cellar_local_sql \
      || cellar_die "seeding from $primary failed (see above): check the primary's log and this server's free disk"
    cellar_note "seeded ${#names[@]} database(s) (${names[*]}) from $primary in $((SECONDS - started)) s"
  else
    local position
    position=$(cellar_primary_sql -e "$(cellar_sql_primary_position)")
    cellar_sql_position_from "$position" | cellar_local_sql
    cellar_note "the primary $primary has no user database; replicating from its position '$position'"
  fi
}

# The former primary resumes from its own position, if the new primary has all of it.
rejoin() {
  cellar_note "rejoining $primary from this server's own GTID position"
  cellar_wait_until "$wait_seconds" "the primary $primary (as root)" \
    "Check that the primary pod runs and is ready, and that root's password is the same on both servers." \
    cellar_primary_ping
  local own contained
  own=$(cellar_local_sql -e "$(cellar_sql_own_gtids)")
  if ! contained=$(cellar_gtids_on_primary "$own") || [ "$contained" != 1 ]; then
    cellar_warn "this server has transactions the new primary lacks ($own): it is seeded afresh"
    return 1
  fi
  cellar_local_sql -e "$(cellar_sql_stop_replica)" >/dev/null 2>&1 || true
  {
    cellar_sql_rejoin_position
    cellar_sql_change_source "$CELLAR_PRIMARY_HOST" "$(cellar_primary_port)" \
      "$CELLAR_REPLICATION_USER" "$CELLAR_REPLICATION_PASSWORD"
    cellar_sql_start_replica
  } | cellar_local_sql || return 1
  local deadline=$((SECONDS + ${CELLAR_REJOIN_SECONDS:-30})) running state errno
  while [ "$SECONDS" -lt "$deadline" ]; do
    running=$(cellar_replica_status_field '(Slave|Replica)_IO_Running')
    state=$(cellar_replica_status_field '(Slave|Replica)_IO_State')
    errno=$(cellar_replica_status_field 'Last_IO_Errno')
    if [ "${errno:-0}" != 0 ]; then
      cellar_warn "rejoining failed: $(cellar_replica_status_field 'Last_IO_Error'); seeding afresh"
      return 1
    fi
    # Running is not enough: the primary refuses a position it lacks (error 1236) only after the
    # IO thread has connected; once it waits for events the position was accepted.
    if [ "$running" = Yes ] && [[ $state == *'to send event'* ]]; then
      cellar_note "rejoined $primary from position $own"
      return 0
    fi
    sleep 1
  done
  cellar_warn "replication from $primary did not connect within ${CELLAR_REJOIN_SECONDS:-30} s; seeding afresh"
  return 1
}

source_host=$(cellar_configured_source_host)
if [ "${CELLAR_REJOIN:-0}" = 1 ] && [ -z "$source_host" ]; then
  if ! rejoin; then
    cellar_local_sql -e "$(cellar_sql_stop_replica)" >/dev/null 2>&1 || true
    seed
  fi
elif [ -z "$source_host" ]; then
  seed
elif [ "$source_host" != "$CELLAR_PRIMARY_HOST" ]; then
  cellar_note "replication source changes from $source_host to $CELLAR_PRIMARY_HOST"
fi

cellar_local_sql -e "$(cellar_sql_stop_replica)" >/dev/null 2>&1 || true
{
  cellar_sql_change_source "$CELLAR_PRIMARY_HOST" "$(cellar_primary_port)" \
    "$CELLAR_REPLICATION_USER" "$CELLAR_REPLICATION_PASSWORD"
  cellar_sql_start_replica
} | cellar_local_sql || cellar_die "configuring replication from $primary failed (see above)"

# Replication must connect: a wrong password or a missing account shows here, not later.
replication_connected() {
  local running error
  running=$(cellar_replica_status_field '(Slave|Replica)_IO_Running')
  if [ "$running" = Yes ]; then
    return 0
  fi
  error=$(cellar_replica_status_field 'Last_IO_Error')
  printf 'IO thread %s; last IO error: %s\n' "${running:-not running}" "${error:-none}"
  return 1
}
cellar_wait_until "$wait_seconds" "replication from $primary as '$CELLAR_REPLICATION_USER'" \
  "Check that the primary created that account (primary-setup.sh) with the password of the credentials Secret." \
  replication_connected
cellar_note "replicating from $primary as '$CELLAR_REPLICATION_USER'"
