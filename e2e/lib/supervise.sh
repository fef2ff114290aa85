# shellcheck shell=bash
# sv_root, sv_prefix and COMPONENTS come from the sourcing script:
# shellcheck disable=SC2154
# Process supervision shared by e2e/local-cluster and e2e/realnode/node.sh (through cluster.sh):
# pid files, launching a component in its own session, waiting until it is healthy, stopping it by
# pid, and stopping what a failed command started.
#
# The sourcing script sets:
#   sv_root     the state directory: pids/NAME.pid, logs/NAME.log; every component's command line
#               names it, which is how a pid is told apart from a reused one
#   sv_prefix   the prefix of messages ("local-cluster", "real-node")
#   COMPONENTS  every component's name, in start order
# and defines, for each component NAME (with - as _ in function names):
#   NAME_cmd        sets the array `cmd` to its command line (`start` runs exactly that again)
#   NAME_health     succeeds once it is healthy (output is discarded)
#   timeout_of      (one function) TIMEOUT_SECONDS for NAME to become healthy
# and may define:
#   NAME_prestart   runs before NAME is launched
#   NAME_poststart  runs once NAME is healthy
#   before_launch NAME    runs before any component is launched (port checks, directories)
#   detail NAME           more words for "NAME is up" (", port N")
#   on_early_exit NAME STATUS   called when a component exits before it is healthy, to explain
#                         the exit better than "exited early" (it must not return to keep going)

say() { echo "$sv_prefix: $*" >&2; }
die() { echo "$sv_prefix: error: $*" >&2; exit 1; }
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }
# elapsed START_MICROS: seconds since then, with one decimal
elapsed() { local us=$((${EPOCHREALTIME/[.,]/} - $1)); printf '%d.%d' $((us / 1000000)) $((us / 100000 % 10)); }

pidfile() { echo "$sv_root/pids/$1.pid"; }
logfile() { echo "$sv_root/logs/$1.log"; }

# alive PID: the process exists and one of its threads is not a zombie. Killed, a Go server's
# main thread can be a zombie while its other threads still exit, and until the last one has, the
# process's sockets stay open: a component started again at once found its own port still
# listening, with no owner ss could name (ControlPlaneRestartIT: "etcd cannot start: port ... is in
# use by another process", after etcd needed SIGKILL).
alive() {
  local stat state
  for stat in /proc/"$1"/task/*/stat; do
    state=$(awk '{print $3}' "$stat" 2>/dev/null) || continue
    [ -n "$state" ] && [ "$state" != Z ] && return 0
  done
  return 1
}

# The pid of a component if it runs. A pid alone could have been reused by another process since,
# so it only counts if that process is alive and its command line names the state directory,
# which every component's flags do.
pid_of() {
  local f pid cmdline
  f=$(pidfile "$1")
  [ -f "$f" ] || return 1
  pid=$(<"$f")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  alive "$pid" || return 1
  cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || return 1
  # Exiting (its main thread a zombie, its other threads not yet: see alive), it has no command
  # line left; a reused pid would have one.
  if [ -z "$cmdline" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ]; then
    echo "$pid"
    return 0
  fi
  [[ $cmdline == *"$sv_root/"* ]] || return 1
  echo "$pid"
}
running() { pid_of "$1" >/dev/null; }
all_running() { local c; for c in "${COMPONENTS[@]}"; do running "$c" || return 1; done; }

# check_component NAME: die unless NAME is one of the caller's COMPONENTS.
check_component() {
  local c
  for c in "${COMPONENTS[@]}"; do [ "$c" = "${1:-}" ] && return 0; done
  die "unknown component '${1:-}'; one of: ${COMPONENTS[*]}"
}

# ---------------------------------------------------------------------------------------------
# Stopping

# How long a component gets between SIGTERM and SIGKILL. Every component here, healthy, exits
# within two seconds of SIGTERM (the API server, which ends its watches, is the slowest); one that
# takes longer is waiting for something that will not come (etcd stopped under a running API
# server waits for its watch streams). All state lives in
# /dev/shm in crash-safe stores (etcd without fsync, containerd's bolt database, the kubelet's
# checkpoints), so a kill loses nothing a graceful stop would keep: a short grace only saves time.
STOP_GRACE_MS=5000

# stop_component NAME: SIGTERM, then SIGKILL after the grace; only ever by pid. Returns 1 (after
# saying so) if the process survives SIGKILL too (stuck in the kernel).
stop_component() {
  local name=$1 pid
  if ! pid=$(pid_of "$name"); then rm -f "$(pidfile "$name")"; return 0; fi
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_stopped "$name" "$STOP_GRACE_MS"; then
    say "$name (pid $pid) did not stop within $((STOP_GRACE_MS / 1000)) s of SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    wait_stopped "$name" 5000 || { say "$name (pid $pid) survived SIGKILL"; return 1; }
  fi
  rm -f "$(pidfile "$name")"
}
wait_stopped() { # wait_stopped NAME MILLIS
  local deadline=$(($(now_ms) + $2))
  while running "$1"; do
    [ "$(now_ms)" -lt $deadline ] || return 1
    sleep 0.1
  done
}

# stop_running NAME: stop it, saying so, if it runs; die if it does not stop.
stop_running() {
  running "$1" || return 0
  say "stopping $1 (pid $(pid_of "$1"))"
  stop_component "$1" || die "$1 did not stop"
}

# ---------------------------------------------------------------------------------------------
# Starting, with clean-up on failure: a command that starts components remembers them, and stops
# exactly those (by pid) if anything goes wrong before it finishes.

started=()
finished=true

# guard CLEANUP: from here on, any exit before `finish` (an error, Ctrl-C, SIGTERM) runs CLEANUP:
# stop_started stops what this command started, newest first.
guard() {
  finished=false
  on_failure=$1
  trap '$finished || $on_failure' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}
finish() { finished=true; }

stop_started() {
  local i
  for ((i = ${#started[@]} - 1; i >= 0; i--)); do
    running "${started[i]}" && say "stopping ${started[i]}, which this run started"
    stop_component "${started[i]}" || true
  done
}

# launched_at (microseconds) and log_from (the first line of the log that this launch wrote).
declare -A launched_at log_from

# launch NAME: start its command line (NAME_cmd) in the background, in its own session, logging
# to logs/NAME.log; `await` then waits for it.
launch() {
  local name=$1 fn=${1//-/_} log cmd=()
  "${fn}_cmd"
  if declare -F before_launch >/dev/null; then before_launch "$name"; fi
  mkdir -p "$sv_root/logs" "$sv_root/pids"
  if declare -F "${fn}_prestart" >/dev/null; then "${fn}_prestart"; fi
  log=$(logfile "$name")
  echo "---- $(date -u +%FT%TZ) starting: ${cmd[*]}" >>"$log"
  log_from[$name]=$(($(wc -l <"$log") + 1))
  launched_at[$name]=${EPOCHREALTIME/[.,]/}
  # setsid: the component must not die with the terminal or process group that started it;
  # 9>&-: nor hold the command lock (fd 9) for as long as it runs.
  setsid "${cmd[@]}" </dev/null >>"$log" 2>&1 9>&- &
  echo "$!" >"$(pidfile "$name")"
  started+=("$name")
}

# await NAME: poll NAME_health until it passes; fail at once if the component exits, or when
# timeout_of NAME runs out. Then say so, and run NAME_poststart.
await() {
  local name=$1 fn=${1//-/_} timeout pid status deadline
  timeout=$(timeout_of "$name")
  pid=$(<"$(pidfile "$name")")
  deadline=$((SECONDS + timeout))
  until "${fn}_health" >/dev/null 2>&1; do
    if ! alive "$pid"; then
      status=0; wait "$pid" 2>/dev/null || status=$?
      if declare -F on_early_exit >/dev/null; then on_early_exit "$name" "$status"; fi
      fail "$name" "exited early (status $status)"
    fi
    [ $SECONDS -lt $deadline ] || fail "$name" "did not become healthy within $timeout s"
    sleep 0.2
  done
  local more=
  if declare -F detail >/dev/null; then more=$(detail "$name"); fi
  say "$name is up in $(elapsed "${launched_at[$name]}") s (pid $pid$more, log $(logfile "$name"))"
  if declare -F "${fn}_poststart" >/dev/null; then "${fn}_poststart"; fi
}

start_component() { launch "$1" && await "$1"; }

# start_one NAME: start it and wait until it is healthy, unless it runs; stop it again if that
# fails.
start_one() {
  if running "$1"; then say "$1 already runs (pid $(pid_of "$1"))"; return 0; fi
  guard stop_started
  start_component "$1"
  finish
}

# log_since_launch NAME: what the component logged since its last launch
log_since_launch() { tail -n "+${log_from[$1]:-1}" "$(logfile "$1")" 2>/dev/null; }

# fail NAME REASON: name the component, its log and show the end of it; then exit (the EXIT trap
# cleans up).
fail() {
  local log
  log=$(logfile "$1")
  {
    echo "$sv_prefix: error: $1 $2"
    echo "$sv_prefix: its log: $log; last 20 lines:"
    tail -n 20 "$log" 2>/dev/null | sed 's/^/    /'
  } >&2
  exit 1
}

# wait_for TIMEOUT_SECONDS COMMAND...: poll until the command succeeds; 1 if it never does.
wait_for() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.3
  done
}

# ---------------------------------------------------------------------------------------------

# print_status [HEADER FUNCTION]: each component, running or not, its pid and log (with a column
# HEADER, FUNCTION NAME's output, before the log); 0 if all run, 3 if not.
print_status() {
  local header=${1:-} column=${2:-} c pid state value='' all=0
  printf '%-19s %-8s %-8s %s%s\n' COMPONENT STATE PID "${header:+$(printf '%-6s ' "$header")}" LOG
  for c in "${COMPONENTS[@]}"; do
    if pid=$(pid_of "$c"); then state=running; else state=stopped pid=- all=3; fi
    [ -z "$column" ] || value=$(printf '%-6s ' "$("$column" "$c")")
    printf '%-19s %-8s %-8s %s%s\n' "$c" "$state" "$pid" "$value" "$(logfile "$c")"
  done
  return $all
}
