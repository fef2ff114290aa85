# shellcheck shell=bash
# Cellar's shared shell library, sourced by every engine script in /etc/cellar.
#
# The scripts run in database pods (called by entrypoint.sh) and outside containers (called by
# tests or by hand). Everything they need comes from the environment:
#   CELLAR_ROLE                 primary or replica. Default: the pod's label cellar.dev/role in
#                               CELLAR_POD_INFO/labels (a downward API volume the kubelet keeps up
#                               to date; only the operator sets the label), and outside a pod
#                               (no such file) ordinal 0 is the primary.
#   CELLAR_POD_INFO             the downward API directory (default /etc/cellar-pod)
#   CELLAR_BOOTSTRAP            1: a primary may initialise an empty data directory. Default: the
#                               pod's annotation cellar.dev/bootstrap=true, and outside a pod yes.
#   CELLAR_ORDINAL              this server's ordinal (MySQL's server_id). Default: the number
#                               after the last '-' of POD_NAME.
#   CELLAR_PORT                 the port of this server (default: the engine's port)
#   CELLAR_LOCAL_HOST           how to reach this server: a host, or a socket directory/path
#   CELLAR_PRIMARY_HOST         the primary's host name
#   CELLAR_PRIMARY_PORT         the primary's port (default: CELLAR_PORT)
#   CELLAR_REPLICATION_USER     the replication account, from the credentials Secret
#   CELLAR_REPLICATION_PASSWORD
#   CELLAR_WAIT_SECONDS         how long a replica waits for its primary (default 600)
#   CELLAR_START_SECONDS        how long the entrypoint waits for its own server (default 900)
#   CELLAR_TLS_MODE             disabled, enabled or required (spec.tls.mode; default disabled)
#   CELLAR_TLS_DIR              the server certificate: tls.crt, tls.key, ca.crt (default
#                               /etc/cellar-tls)
# Engine-specific variables are described in each engine's scripts.

cellar_log() {
  local level=$1
  shift
  printf '%s [cellar] [%s] %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$level" "$*" >&2
}

cellar_note() { cellar_log Note "$@"; }
cellar_warn() { cellar_log Warn "$@"; }

# Logs an error and exits 1. The message says what failed and what to check.
cellar_die() {
  cellar_log ERROR "$@"
  exit 1
}

# The ordinal of this server: CELLAR_ORDINAL, else the suffix of POD_NAME (orders-db-2 -> 2).
cellar_ordinal() {
  local ordinal=${CELLAR_ORDINAL:-}
  if [ -z "$ordinal" ]; then
    [ -n "${POD_NAME:-}" ] \
      || cellar_die "neither CELLAR_ORDINAL nor POD_NAME is set: cannot tell primary (0) from replica"
    ordinal=${POD_NAME##*-}
  fi
  case "$ordinal" in
    '' | *[!0-9]*)
      cellar_die "ordinal '$ordinal' (from CELLAR_ORDINAL or POD_NAME='${POD_NAME:-}') is not a number"
      ;;
  esac
  printf '%d\n' "$((10#$ordinal))"
}

# cellar_pod_info FILE KEY: the value of KEY in the downward API file FILE (labels, annotations),
# empty when absent. The kubelet writes one key="value" per line, the value escaped as in Go.
cellar_pod_info() {
  local file=${CELLAR_POD_INFO:-/etc/cellar-pod}/$1
  [ -f "$file" ] || return 0
  awk -v key="$2" 'index($0, key "=\"") == 1 { v = substr($0, length(key) + 3); sub(/"$/, "", v); print v; exit }' "$file"
}

cellar_in_pod() { [ -f "${CELLAR_POD_INFO:-/etc/cellar-pod}/labels" ]; }

# This server's role as the operator last set it: primary, replica, or empty (none yet).
cellar_role() {
  if [ -n "${CELLAR_ROLE:-}" ]; then
    printf '%s\n' "$CELLAR_ROLE"
  elif cellar_in_pod; then
    cellar_pod_info labels cellar.dev/role
  elif [ "$(cellar_ordinal)" -eq 0 ]; then
    echo primary
  else
    echo replica
  fi
}

cellar_is_primary() { [ "$(cellar_role)" = primary ]; }

# Whether a primary may initialise an empty data directory (see CELLAR_BOOTSTRAP).
cellar_bootstrap_allowed() {
  if [ -n "${CELLAR_BOOTSTRAP:-}" ]; then
    [ "$CELLAR_BOOTSTRAP" = 1 ]
  elif cellar_in_pod; then
    [ "$(cellar_pod_info annotations cellar.dev/bootstrap)" = true ]
  else
    return 0
  fi
}

# Waits until the operator has given this pod a role, and prints it. A pod without a role never
# starts a server: it may be a primary's pod recreated while the operator fails over.
cellar_await_role() {
  local role waited=0
  while role=$(cellar_role) && [ -z "$role" ]; do
    if [ $((waited % 30)) -eq 0 ]; then
      cellar_note "waiting for Cellar to label this pod primary or replica (cellar.dev/role)"
    fi
    sleep 1
    waited=$((waited + 1))
  done
  printf '%s\n' "$role"
}

# cellar_await_role_with_data HAS_DATA DEMOTED: the role, once it is one this server can start in.
# A primary whose data directory is empty (HAS_DATA is 0) starts only when bootstrapping is allowed
# (a new Database); otherwise its data was lost, and it waits for the operator to promote a
# replica and relabel this pod, which then clones from the new primary. A server demoted for a
# switchover (the file DEMOTED exists, written by role.sh demote) never starts as the primary on a
# label the kubelet has not refreshed yet: it waits for the label replica (then the file goes), or
# for the operator to take the demotion back (role.sh promote removes the file).
cellar_await_role_with_data() {
  local has_data=$1 demoted=${2:-/nonexistent} role waited=0
  while true; do
    role=$(cellar_await_role)
    if [ -f "$demoted" ]; then
      if [ "$role" = replica ]; then
        rm -f "$demoted"
        printf '%s\n' "$role"
        return 0
      fi
      if [ $((waited % 30)) -eq 0 ]; then
        cellar_note "demoted for a switchover: waiting for the label replica (or the demotion undone)"
      fi
      sleep 1
      waited=$((waited + 1))
      continue
    fi
    if [ "$role" != primary ] || [ "$has_data" = 1 ] || cellar_bootstrap_allowed; then
      printf '%s\n' "$role"
      return 0
    fi
    if [ $((waited % 30)) -eq 0 ]; then
      cellar_warn "this pod is labelled primary but its data directory is empty, and the Database" \
        "has run before: not starting an empty primary. Waiting for Cellar to fail over to a" \
        "replica (spec.failover); this pod then clones from the new primary."
    fi
    sleep 2
    waited=$((waited + 2))
  done
}

cellar_has_replication_account() {
  [ -n "${CELLAR_REPLICATION_USER:-}" ] && [ -n "${CELLAR_REPLICATION_PASSWORD:-}" ]
}

# A replica cannot work without the replication account: say which Secret keys are missing.
cellar_require_replication_account() {
  cellar_has_replication_account || cellar_die \
    "CELLAR_REPLICATION_USER and CELLAR_REPLICATION_PASSWORD must be set for a replica." \
    "They come from the keys 'replication-user' and 'replication-password' of the Database's" \
    "credentials Secret; a Secret supplied by the user must have them when spec.replicas > 1."
}

# The credentials to apply (role.sh credentials), read from stdin, so that no password shows in a
# process list: lines KEY=VALUE with the credentials Secret's keys (username, password,
# replication-user, replication-password), ending with a line "." or the end of input (the
# operator's pods/exec cannot always close stdin). Sets CELLAR_APP_USER and CELLAR_APP_PASSWORD, and
# replaces CELLAR_REPLICATION_USER/PASSWORD when given (the container's environment has the values
# it started with, which a rotation makes stale).
cellar_read_credentials() {
  local line
  CELLAR_APP_USER='' CELLAR_APP_PASSWORD=''
  while IFS= read -r line || [ -n "$line" ]; do
    [ "$line" != . ] || break
    case "${line%%=*}" in
      username) CELLAR_APP_USER=${line#*=} ;;
      password) CELLAR_APP_PASSWORD=${line#*=} ;;
      replication-user) CELLAR_REPLICATION_USER=${line#*=} ;;
      replication-password) CELLAR_REPLICATION_PASSWORD=${line#*=} ;;
    esac
  done
  if [ -z "$CELLAR_APP_USER" ] || [ -z "$CELLAR_APP_PASSWORD" ]; then
    cellar_die "credentials: expected the lines username=... and password=... on stdin"
  fi
  export CELLAR_APP_USER CELLAR_APP_PASSWORD CELLAR_REPLICATION_USER CELLAR_REPLICATION_PASSWORD
}

cellar_require() {
  local name
  for name in "$@"; do
    [ -n "${!name:-}" ] || cellar_die "$name is not set; it is required here"
  done
}

cellar_require_commands() {
  local cmd
  for cmd in "$@"; do
    command -v "$cmd" >/dev/null 2>&1 \
      || cellar_die "'$cmd' is not on PATH (PATH=$PATH); install the engine's client programs"
  done
}

# Whether the servers speak TLS: connections to the primary then verify it with the CA.
cellar_tls_on() { [ "${CELLAR_TLS_MODE:-disabled}" != disabled ]; }

cellar_tls_dir() { printf '%s\n' "${CELLAR_TLS_DIR:-/etc/cellar-tls}"; }

# The SHA-256 of the mounted certificate, as the operator computes it of the Secret's tls.crt.
cellar_tls_certificate_hash() { sha256sum "$(cellar_tls_dir)/tls.crt" | cut -d' ' -f1; }

# cellar_tls_await_certificate HASH: fails unless the mounted tls.crt is the one hashing to HASH
# (the kubelet replaces the files a minute or two after the Secret changes).
cellar_tls_await_certificate() {
  local want=$1 have
  have=$(cellar_tls_certificate_hash 2>/dev/null || true)
  [ -n "$want" ] || cellar_die "tls-reload needs the certificate's SHA-256 on stdin"
  [ "$have" = "$want" ] \
    || cellar_die "pending: $(cellar_tls_dir)/tls.crt is not the renewed certificate yet (sha256 ${have:-none})"
}

cellar_primary_port() { printf '%s\n' "${CELLAR_PRIMARY_PORT:-${CELLAR_PORT:?CELLAR_PORT is not set}}"; }

# cellar_wait_until SECONDS WHAT HINT COMMAND...: runs COMMAND every 2 s until it succeeds. After
# SECONDS, dies with WHAT, the command's last output and HINT.
cellar_wait_until() {
  local seconds=$1 what=$2 hint=$3
  shift 3
  local deadline=$((SECONDS + seconds)) output=''
  while true; do
    if output=$("$@" 2>&1); then
      return 0
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      cellar_die "$what: not reached within ${seconds} s. Last error: ${output:-none}. $hint"
    fi
    sleep 2
  done
}

# cellar_wait_pid_exit PID SECONDS WHAT: waits for a child to exit; kills it after SECONDS.
cellar_wait_pid_exit() {
  local pid=$1 seconds=$2 what=$3
  local deadline=$((SECONDS + seconds))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      cellar_warn "$what did not stop within ${seconds} s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 1
  done
  wait "$pid" 2>/dev/null || true
}

# A string literal for MySQL and MariaDB (backslash escapes on, the default sql_mode).
cellar_mysql_quote() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\'/\\\'}
  printf "'%s'" "$s"
}

# A string literal for PostgreSQL (standard_conforming_strings on, the default since 9.1).
cellar_pg_quote() {
  local s=$1
  printf "'%s'" "${s//\'/\'\'}"
}

# A quoted identifier for PostgreSQL.
cellar_pg_ident() {
  local s=$1
  printf '"%s"' "${s//\"/\"\"}"
}

# A fingerprint of the replication settings, kept in the data directory so the entrypoint knows
# whether setup must run again (first start, or the account changed).
cellar_fingerprint() {
  printf '%s\n' "$@" | sha256sum | cut -d' ' -f1
}

cellar_marker_matches() {
  local file=$1 fingerprint=$2
  [ -f "$file" ] && [ "$(cat "$file")" = "$fingerprint" ]
}

# Runs COMMAND... in the background as this script's child, forwarding SIGTERM/SIGINT to it, and
# sets CELLAR_CHILD to its pid.
cellar_start_child() {
  "$@" &
  CELLAR_CHILD=$!
  # shellcheck disable=SC2064 # the pid is meant to be expanded now
  trap "kill -TERM $CELLAR_CHILD 2>/dev/null; wait $CELLAR_CHILD; exit 143" TERM
  # shellcheck disable=SC2064
  trap "kill -INT $CELLAR_CHILD 2>/dev/null; wait $CELLAR_CHILD; exit 130" INT
}

cellar_child_alive() { kill -0 "$CELLAR_CHILD" 2>/dev/null; }

# cellar_await_own_server SERVER SCRIPT WHAT [HINT]: waits, for CELLAR_START_SECONDS (900),
# until the caller's own_server_ready answers; dies with the server's exit status if it stops
# first, or saying it did not WHAT in time.
cellar_await_own_server() {
  local server=$1 script=$2 what=$3 hint=${4:-} seconds=${CELLAR_START_SECONDS:-900}
  local deadline=$((SECONDS + seconds)) status
  until own_server_ready; do
    if ! cellar_child_alive; then
      wait "$CELLAR_CHILD" && status=0 || status=$?
      cellar_die "$server exited with status $status before $script could run; see its messages above"
    fi
    [ "$SECONDS" -lt "$deadline" ] || cellar_die "$server did not $what within" \
      "$seconds s (CELLAR_START_SECONDS); check its messages above$hint"
    sleep 1
  done
}

cellar_clear_traps() { trap - TERM INT; }
