# shellcheck shell=bash
# What e2e/local-cluster and e2e/realnode/node.sh share, sourced by both: where the cluster's state
# and binaries live, the admin's kubectl, the API server's readiness, one command at a time, the
# usage text; and with it the process supervisor (supervise.sh) and the certificates (pki.sh).
#
# The sourcing script sets sv_prefix (its messages' prefix) first, and sv_root (the directory of
# its components' pids/ and logs/) before it starts or stops anything.

cluster_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=supervise.sh
. "$cluster_lib/supervise.sh"
# shellcheck source=pki.sh
. "$cluster_lib/pki.sh"

cache=${CELLAR_CACHE:-$HOME/.cache/cellar}
bin=$cache/bin/current # the control plane, kubectl, etcd, kwok (e2e/cluster/build.sh core)
dir=${CELLAR_CLUSTER_DIR:-/dev/shm/cellar-local-cluster}
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
dir=${dir%/}
kubeconfig=$dir/kubeconfig # the admin's (system:masters)
pki=$dir/pki               # the cluster's CAs

kubectl_() { "$bin/kubectl" --kubeconfig="$kubeconfig" "$@"; }

# load_ports: the ports the cluster's components listen on (NAME_PORT=N lines, chosen by `up`).
load_ports() {
  [ -f "$dir/ports" ] || die "no local cluster in $dir (run: e2e/local-cluster up)"
  # shellcheck source=/dev/null
  . "$dir/ports"
}

apiserver_health() { curl -fsS --noproxy '*' --max-time 2 --cacert "$pki/ca.crt" "https://127.0.0.1:$APISERVER_PORT/readyz" >/dev/null 2>&1; }

# ensure_built TARGET DIR BINARY...: e2e/cluster/build.sh TARGET, into DIR. build.sh builds only
# what its cache lacks (a changed go.mod is a new cache entry) and takes a tenth of a second
# otherwise, so it runs every time; without Go, binaries already built will do. One build at a
# time per cache: two clusters (or CI and a test) could start at once.
ensure_built() {
  local target=$1 bindir=$2 b missing=false; shift 2
  for b in "$@"; do [ -x "$bindir/$b" ] || missing=true; done
  if ! $missing && ! command -v go >/dev/null; then return 0; fi
  $missing && say "$* missing in $bindir; building them (the first build takes several minutes)"
  mkdir -p "$cache"
  (
    flock -w 3600 8 || die "another build holds $cache/build.lock for an hour"
    "$cluster_lib/../cluster/build.sh" "$target" >/dev/null
  ) 8>"$cache/build.lock" || exit 1
}

# render TEMPLATE NAME...: the template (a config file kept as a file, not in a script) with every
# @NAME@ replaced by the value of $NAME; dies if it names a value it was not given.
render() {
  local template=$1 name value out
  out=$(<"$template"); shift
  for name in "$@"; do
    value=${!name}
    out=${out//"@$name@"/"$value"}
  done
  [[ ! $out =~ @[A-Z][A-Z_]*@ ]] || die "render: $template: no value for ${BASH_REMATCH[0]}"
  printf '%s\n' "$out"
}

# lock FILE: one command at a time; waits up to 10 minutes for the one that holds FILE. The lock
# is fd 9, which launched components do not inherit (supervise.sh).
lock() {
  mkdir -p "$(dirname "$1")"
  exec 9>"$1"
  flock -w 600 9 || die "another $sv_prefix command holds $1 for 10 minutes"
}

# usage: the calling script's header comment, from its second line to `set -euo`; exit 2.
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
