# shellcheck shell=bash
# sv_root, sv_prefix, cache and COMPONENTS come from the sourcing script:
# shellcheck disable=SC2154
# Process supervision shared by e2e/local-cluster and e2e/realnode/node.sh: pid files, launching a
# component in its own session, waiting until it is healthy, stopping it by pid.
#
# The sourcing script sets, before calling anything here:
#   sv_root    the state directory: pids/NAME.pid, logs/NAME.log; every component's command line
#              names it, which is how a pid is told apart from a reused one
#   sv_prefix  the prefix of messages ("local-cluster", "real-node")
# and may define on_early_exit NAME STATUS, called when a component exits before it is healthy
# (to explain the exit better than "exited early"; it must not return normally to keep going).

sv_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

say() { echo "$sv_prefix: $*" >&2; }
die() { echo "$sv_prefix: error: $*" >&2; exit 1; }
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }
# elapsed START_MICROS: seconds since then, with one decimal
elapsed() { local us=$((${EPOCHREALTIME/[.,]/} - $1)); printf '%d.%d' $((us / 1000000)) $((us / 100000 % 10)); }

pidfile() { echo "$sv_root/pids/$1.pid"; }
logfile() { echo "$sv_root/logs/$1.log"; }

# The pid of a component if it runs. A pid alone could have been reused by another process since,
# so it only counts if that process is alive (not a zombie) and its command line names the state
# directory, which every component's flags do.
pid_of() {
  local f pid state cmdline
  f=$(pidfile "$1")
  [ -f "$f" ] || return 1
  pid=$(<"$f")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [ "$state" != Z ] || return 1
  cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || return 1
  [[ $cmdline == *"$sv_root/"* ]] || return 1
  echo "$pid"
}
running() { pid_of "$1" >/dev/null; }

# How long a component gets between SIGTERM and SIGKILL. Every component here, healthy, exits
# within a second of SIGTERM; one that takes longer is waiting for something that will not come
# (etcd stopped under a running API server waits for its watch streams). All state lives in
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

# launch NAME COMMAND...: start it in the background, in its own session, logging to logs/NAME.log.
# launched_at (microseconds) and log_from (the first line of the log this launch wrote) are for
# the caller's messages.
declare -A launched_at log_from
# shellcheck disable=SC2034
launch() {
  local name=$1 log; shift
  mkdir -p "$sv_root/logs" "$sv_root/pids"
  log=$(logfile "$name")
  echo "---- $(date -u +%FT%TZ) starting: $*" >>"$log"
  log_from[$name]=$(($(wc -l <"$log") + 1))
  launched_at[$name]=${EPOCHREALTIME/[.,]/}
  # setsid: the component must not die with the terminal or process group that started it;
  # 9>&-: nor hold the command lock (fd 9) for as long as it runs.
  setsid "$@" </dev/null >>"$log" 2>&1 9>&- &
  echo "$!" >"$(pidfile "$name")"
}

# await NAME TIMEOUT_SECONDS CHECK...: poll CHECK until it passes; fail at once if the component
# exits, or when the time runs out.
await() {
  local name=$1 timeout=$2 pid status deadline; shift 2
  pid=$(<"$(pidfile "$name")")
  deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ]; then
      status=0; wait "$pid" 2>/dev/null || status=$?
      if declare -F on_early_exit >/dev/null; then on_early_exit "$name" "$status"; fi
      fail "$name" "exited early (status $status)"
    fi
    [ $SECONDS -lt $deadline ] || fail "$name" "did not become healthy within $timeout s"
    sleep 0.2
  done
}

# log_since_launch NAME: what the component logged since its last launch
log_since_launch() { tail -n "+${log_from[$1]:-1}" "$(logfile "$1")" 2>/dev/null; }

# fail NAME REASON: name the component, its log and show the end of it; then exit (the caller's
# EXIT trap cleans up).
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

# check_component NAME: die unless NAME is one of the caller's COMPONENTS.
check_component() {
  local c
  for c in "${COMPONENTS[@]}"; do [ "$c" = "${1:-}" ] && return 0; done
  die "unknown component '${1:-}'; one of: ${COMPONENTS[*]}"
}

# ensure_built TARGET DIR BINARY...: e2e/cluster/build.sh TARGET, into DIR. build.sh builds only
# what its cache lacks (a changed go.mod is a new cache entry) and takes a tenth of a second
# otherwise, so it runs every time; without Go, binaries already built will do. One build at a
# time per cache ($cache): two clusters (or CI and a test) could start at once.
ensure_built() {
  local target=$1 bindir=$2 b missing=false; shift 2
  for b in "$@"; do [ -x "$bindir/$b" ] || missing=true; done
  if ! $missing && ! command -v go >/dev/null; then return 0; fi
  $missing && say "$* missing in $bindir; building them (the first build takes several minutes)"
  mkdir -p "$cache"
  (
    flock -w 3600 8 || die "another build holds $cache/build.lock for an hour"
    "$sv_lib/../cluster/build.sh" "$target" >/dev/null
  ) 8>"$cache/build.lock" || exit 1
}

# wait_for TIMEOUT_SECONDS COMMAND...: poll until the command succeeds; 1 if it never does.
wait_for() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.3
  done
}

# render TEMPLATE NAME...: the template with every @NAME@ replaced by the value of $NAME.
render() {
  local template=$1 name value script=(); shift
  for name in "$@"; do
    value=${!name}
    value=${value//\\/\\\\}; value=${value//|/\\|}; value=${value//&/\\&}
    script+=(-e "s|@$name@|$value|g")
  done
  sed "${script[@]}" "$template"
}
