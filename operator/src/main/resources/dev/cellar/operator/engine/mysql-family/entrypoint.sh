#!/usr/bin/env bash
# Container entrypoint of MySQL and MariaDB pods: bash /etc/cellar/entrypoint.sh [server options]
#
# The image's own entrypoint (docker-entrypoint.sh) still initialises an empty data directory and
# runs the server. Around it, for replication, by the role the operator gave this pod (lib.sh's
# cellar_role: the pod's label cellar.dev/role; a pod without one waits for it; a primary with an
# empty data directory starts only for a new Database, else it waits for a failover):
#   1. When this server's replication setup is missing or stale (first start, a changed account,
#      a changed primary), the server runs once without networking, so no client sees it
#      half-ready: the primary creates the replication account (primary-setup.sh); a replica seeds
#      itself from the primary and starts replicating (replica-bootstrap.sh). Then it stops.
#   2. The server runs for real, in the foreground (exec), with its server_id and, on replicas,
#      read_only (and super_read_only on MySQL).
# A fingerprint of the setup in the data directory (cellar-*.done) skips step 1 on restarts. A
# former primary (cellar-primary.done) that is now a replica always goes through step 1: it
# rejoins the new primary by GTID, or is seeded afresh when it has diverged.
#
# Environment: lib.sh's and mysql-lib.sh's, plus
#   CELLAR_DATA_DIR         the data directory (default /var/lib/mysql)
#   CELLAR_IMAGE_ENTRYPOINT the image's entrypoint (default docker-entrypoint.sh, on PATH)
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=../mysql/dialect.sh
. "$here/dialect.sh"
# shellcheck source=mysql-lib.sh
. "$here/mysql-lib.sh"

image_entrypoint=${CELLAR_IMAGE_ENTRYPOINT:-docker-entrypoint.sh}
data=${CELLAR_DATA_DIR:-/var/lib/mysql}
server_options=("$@")
has_data=0
if [ -d "$data/mysql" ]; then has_data=1; fi
role=$(cellar_await_role_with_data "$has_data" "$data/cellar-demoted")
cellar_require_commands "$CELLAR_SERVER" "$CELLAR_CLIENT" "$CELLAR_ADMIN"

# The socket the server listens on with these options (as the image finds it).
server_socket() {
  "$CELLAR_SERVER" "${server_options[@]}" --verbose --help --log-bin-index="$(mktemp -u)" 2>/dev/null \
    | awk '!found && /^socket[ \t]/ { found = 1; print $2 }'
}

# Ready: the image's entrypoint has exec'd the server (its temporary init server has come and
# gone) and root gets an answer on the socket.
own_server_ready() {
  [ "$(cat "/proc/$CELLAR_CHILD/comm" 2>/dev/null)" = "$CELLAR_SERVER" ] && cellar_local_ping 2>/dev/null
}

# run_without_network SCRIPT: step 1, with SCRIPT as the setup.
run_without_network() {
  local script=$1 socket id_option
  socket=$(server_socket)
  [ -n "$socket" ] || cellar_die "cannot tell $CELLAR_SERVER's socket from its options (${server_options[*]})"
  mapfile -t id_option < <(CELLAR_WRITABLE=1 bash "$here/server-args.sh")
  cellar_note "starting $CELLAR_SERVER without networking for $script"
  cellar_start_child "$image_entrypoint" "$CELLAR_SERVER" "${server_options[@]}" "${id_option[@]}" --skip-networking
  export CELLAR_LOCAL_HOST=$socket
  cellar_await_own_server "$CELLAR_SERVER" "$script" "accept root on $socket" \
    " and root's password in the Secret"
  if ! bash "$here/$script"; then
    cellar_local_client_cmd "$CELLAR_ADMIN" shutdown || kill -TERM "$CELLAR_CHILD"
    cellar_wait_pid_exit "$CELLAR_CHILD" 300 "$CELLAR_SERVER"
    cellar_die "$script failed (see above); the pod restarts and tries again"
  fi
  cellar_local_client_cmd "$CELLAR_ADMIN" shutdown \
    || cellar_die "stopping $CELLAR_SERVER after $script failed; see its messages above"
  cellar_wait_pid_exit "$CELLAR_CHILD" 300 "$CELLAR_SERVER"
  cellar_clear_traps
  unset CELLAR_LOCAL_HOST
}

if [ "$role" = primary ]; then
  if [ -f "$data/cellar-replica.done" ]; then
    # The operator chose this replica as the primary while it was stopped: primary-setup.sh
    # forgets its replication source.
    cellar_note "this replica is now the primary"
    rm -f "$data/cellar-replica.done" "$data/cellar-primary.done"
  fi
  if cellar_has_replication_account || [ "${CELLAR_TLS_CLIENT_CERTIFICATES:-}" = required ]; then
    # With client certificates required too (only then, so other primaries keep their marker).
    fingerprint=$(cellar_fingerprint primary "${CELLAR_REPLICATION_USER:-}" "${CELLAR_REPLICATION_PASSWORD:-}" \
      ${CELLAR_TLS_CLIENT_CERTIFICATES:+"$CELLAR_TLS_CLIENT_CERTIFICATES"})
    if ! cellar_marker_matches "$data/cellar-primary.done" "$fingerprint"; then
      run_without_network primary-setup.sh
      printf '%s\n' "$fingerprint" >"$data/cellar-primary.done"
    fi
  else
    bash "$here/primary-setup.sh" # only warns
  fi
else
  cellar_require_replication_account
  cellar_require CELLAR_PRIMARY_HOST
  # The TLS mode too: a change points replication at the primary with or without TLS again.
  fingerprint=$(cellar_fingerprint replica "$CELLAR_REPLICATION_USER" "$CELLAR_REPLICATION_PASSWORD" \
    "$CELLAR_PRIMARY_HOST" "$(cellar_primary_port)" "${CELLAR_TLS_MODE:-disabled}")
  if [ -f "$data/cellar-primary.done" ]; then
    cellar_note "this server was the primary and is now a replica: it rejoins the new primary"
    rm -f "$data/cellar-replica.done"
    export CELLAR_REJOIN=1
  fi
  if ! cellar_marker_matches "$data/cellar-replica.done" "$fingerprint"; then
    run_without_network replica-bootstrap.sh
    rm -f "$data/cellar-primary.done"
    printf '%s\n' "$fingerprint" >"$data/cellar-replica.done"
  fi
fi

mapfile -t role_options < <(bash "$here/server-args.sh")
cellar_note "starting $CELLAR_SERVER as $role (${role_options[*]})"
exec "$image_entrypoint" "$CELLAR_SERVER" "${server_options[@]}" "${role_options[@]}"
