#!/usr/bin/env bash
# A real node for the local cluster: containerd and runc run real containers, a kubelet registers
# the node with the cluster's control plane, kube-proxy (iptables) makes ClusterIP Services work,
# CoreDNS answers for cluster.local, a small provisioner turns PVCs of the StorageClass
# `real-local` into local volumes (directories under the cluster's state directory), and a relay
# lets the node's pods reach the API server through the `kubernetes` Service (in-cluster config).
#
# Usage (normally through e2e/local-cluster node COMMAND):
#   e2e/realnode/node.sh up       install what is missing, build kubelet, kube-proxy, CoreDNS and the
#                                 images, start the node in the running cluster, wait until it is Ready
#   e2e/realnode/node.sh down     stop its pods and components, remove its network and state
#   e2e/realnode/node.sh status   each component: running or not; exit 0 if all run, 3 if not
#   e2e/realnode/node.sh stop|start COMPONENT   one of containerd, kubelet, kube-proxy, coredns,
#                                 provisioner, apiserver-relay (fault tests); `up` restarts whatever
#                                 is stopped
#   e2e/realnode/node.sh load ARCHIVE...   import image archives (docker save or OCI, e.g. Jib's
#                                 target/jib-image.tar) into the node's containerd, as `kind load
#                                 image-archive` does; an archive imported before is skipped
#   e2e/realnode/node.sh tag IMAGE NAME   IMAGE, in the node's containerd, also as NAME (a new
#                                 version of an image for the rolling update test)
#
# The node is `cellar-real-node`, labelled cellar.dev/real-node=true and tainted
# cellar.dev/real-node=true:PreferNoSchedule, so the scheduler keeps pods that could run anywhere
# on the kwok nodes; pods whose volumes are on it (class real-local) or that select it run here.
# Images: cellar.local/pause:1, cellar.local/postgres:15, cellar.local/postgres:17,
# cellar.local/mariadb:10.11, and the exporters cellar.local/postgres-exporter:0.17.1 and
# cellar.local/mysqld-exporter:0.17.2 (images.sh).
# Network: the bridge cellar-br0 with 10.244.0.1/24 (pods 10.244.0.2-254); the node's address,
# the kubelet, kube-proxy and CoreDNS (clusterDNS) listen there. Forwarded traffic of the pods
# may not leave the bridge: they reach each other, Services and the node, nothing else. Nothing
# is pulled: containerd's registry traffic goes to a closed port on 127.0.0.1.
#
# The API server listens on 127.0.0.1 only and the local cluster runs it with
# --endpoint-reconciler-type=none (an endpoint may not be a loopback address), so the `kubernetes`
# Service has no endpoints and a pod could not use its in-cluster config. The node adds them: a
# relay (socat) on $NODE_IP:$RELAY_PORT forwards to the API server, and the EndpointSlice
# `kubernetes-real-node` (config/objects.yaml) names it, so kube-proxy sends 10.96.0.1:443 there.
# The API server's certificate names 10.96.0.1 and kubernetes.default.svc: TLS checks pass.
#
# Kubernetes v1.34 is the last release whose kubelet starts on cgroup v1 without being told to
# (failCgroupV1 turns on in v1.35): these machines mount cgroup v1, so the pinned version stays.
#
# Needs root and a running local cluster (e2e/local-cluster up) in CELLAR_CLUSTER_DIR.
# State: $CELLAR_CLUSTER_DIR/node/ (config, logs/, pids/, containerd/, kubelet/, volumes/).
set -euo pipefail

realnode=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
e2e=$(dirname "$realnode")
sv_prefix=real-node
# The cluster's state directory and binaries, supervision and certificates: as local-cluster's.
# shellcheck source=../lib/cluster.sh
. "$e2e/lib/cluster.sh"
nodebin=$cache/bin/node # kubelet, kube-proxy, coredns (e2e/cluster/build.sh node)
node=$dir/node
# shellcheck disable=SC2034 # read by e2e/lib/supervise.sh and pki.sh
sv_root=$node certs=$node/pki

NODE_NAME=cellar-real-node
BRIDGE=cellar-br0
POD_CIDR=10.244.0.0/24
NODE_IP=10.244.0.1
GUARD_CHAIN=CELLAR-REAL-NODE
POD_ACCEPT=(-i "$BRIDGE" -o "$BRIDGE" -m comment --comment "cellar real node: pod traffic" -j ACCEPT)
# shellcheck disable=SC2034 # in config/objects.yaml
PROVISIONER=cellar.dev/real-node-volume
RELAY_PORT=6443
COMPONENTS=(containerd kubelet kube-proxy coredns provisioner apiserver-relay)

ctr_() { ctr --address "$node/containerd/containerd.sock" -n k8s.io "$@"; }

# ---------------------------------------------------------------------------------------------
# Configuration files: e2e/realnode/config/, with the node's values filled in

conf=$realnode/config
SANDBOX_IMAGE=
# render_config TEMPLATE FILE: config/TEMPLATE with the node's values, to FILE
render_config() {
  # shellcheck disable=SC2034 # read by render through indirection
  local NODE=$node PKI=$pki
  [ -n "$SANDBOX_IMAGE" ] || SANDBOX_IMAGE=$("$realnode/images.sh" ref pause)
  render "$conf/$1" NODE PKI BRIDGE POD_CIDR NODE_IP NODE_NAME PROVISIONER SANDBOX_IMAGE RELAY_PORT >"$2"
}

write_containerd_config() {
  mkdir -p "$node/containerd" "$node/cni/net.d"
  render_config containerd.toml "$node/containerd/config.toml"
  # The pods' network: one bridge, addresses from host-local, the node as gateway (no masquerade:
  # nothing is routed beyond this machine). portmap serves hostPort.
  render_config 10-cellar.conflist "$node/cni/net.d/10-cellar.conflist"
}

write_kubelet_config() {
  mkdir -p "$node/kubelet" "$node/pod-logs"
  # Pods get the cluster's DNS only; nothing of this machine's resolver configuration.
  cp "$conf/resolv.conf" "$node/resolv.conf"
  render_config kubelet.yaml "$node/kubelet.yaml"
}

write_kube_proxy_config() {
  render_config kube-proxy.yaml "$node/kube-proxy.yaml"
}

write_coredns_config() {
  mkdir -p "$node/coredns"
  # The cluster domain from the API server; every other name is answered NXDOMAIN here and
  # nothing is forwarded.
  render_config Corefile "$node/coredns/Corefile"
}

# Cluster objects the node needs once: CoreDNS's read access, the StorageClass of its volumes.
bootstrap_objects() {
  render_config objects.yaml /dev/stdout | kubectl_ apply -f - >/dev/null
}

# ---------------------------------------------------------------------------------------------
# The network: the bridge (made here, so the node's address exists before its components listen
# on it), forwarding for the pods, and a guard that keeps their traffic on this machine.

# The API server reaches a kubelet by the node's Hostname address first: the node's name must
# resolve on this machine, without asking any DNS server.
HOSTS_MARK="# cellar real node (e2e/realnode/node.sh)"
hosts_add() { grep -qF "$HOSTS_MARK" /etc/hosts || printf '%s %s %s\n' "$NODE_IP" "$NODE_NAME" "$HOSTS_MARK" >>/etc/hosts; }
hosts_remove() {
  local kept
  grep -qF "$HOSTS_MARK" /etc/hosts || return 0
  kept=$(grep -vF "$HOSTS_MARK" /etc/hosts)
  printf '%s\n' "$kept" >/etc/hosts # in place: /etc/hosts may be a mount point
}

network_up() {
  hosts_add
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
  fi
  local addresses
  addresses=$(ip -o -4 addr show dev "$BRIDGE") # not piped into grep -q: SIGPIPE under pipefail
  [[ $addresses == *" $NODE_IP/24 "* ]] || ip addr add "$NODE_IP/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  # Pod to Service to pod through the node: routed (forwarding), and bridged replies seen by
  # iptables (br_netfilter), so that kube-proxy's DNAT is undone on the way back.
  [ -f "$node/sysctl.saved" ] || {
    echo "ip_forward=$(cat /proc/sys/net/ipv4/ip_forward)"
    echo "bridge_nf=$(cat /proc/sys/net/bridge/bridge-nf-call-iptables)"
  } >"$node/sysctl.saved"
  echo 1 >/proc/sys/net/ipv4/ip_forward
  echo 1 >/proc/sys/net/bridge/bridge-nf-call-iptables
  iptables -w -N "$GUARD_CHAIN" 2>/dev/null || iptables -w -F "$GUARD_CHAIN"
  iptables -w -A "$GUARD_CHAIN" -i "$BRIDGE" -o "$BRIDGE" -j RETURN
  iptables -w -A "$GUARD_CHAIN" -s "$POD_CIDR" -j DROP
  iptables -w -A "$GUARD_CHAIN" -d "$POD_CIDR" -j DROP
  iptables -w -C FORWARD -j "$GUARD_CHAIN" 2>/dev/null || iptables -w -I FORWARD 1 -j "$GUARD_CHAIN"
  # The pods' own traffic (pod to pod, pod to Service to pod through the node), once the guard,
  # kube-proxy's chains and whatever else is in FORWARD have seen it, is accepted by a rule of its
  # own at the end, not left to the policy: Docker sets that to DROP on machines that run it.
  iptables -w -C FORWARD "${POD_ACCEPT[@]}" 2>/dev/null || iptables -w -A FORWARD "${POD_ACCEPT[@]}"
}

# The chains kube-proxy (after its own --cleanup) and the kubelet leave: every KUBE-* chain and
# the rules that jump to them. One real node runs on a machine, so they are all this node's.
remove_kube_chains() {
  local cmd table rule chain
  for cmd in iptables ip6tables; do
    command -v "$cmd" >/dev/null || continue
    for table in filter nat mangle; do
      { "$cmd" -w -t "$table" -S 2>/dev/null || true; } | awk '$1 == "-A" && $2 !~ /^KUBE-/ && / -j KUBE-/' |
        while read -r rule; do
          read -r -a parts <<<"${rule/-A/-D}"
          "$cmd" -w -t "$table" "${parts[@]}" 2>/dev/null || true
        done
      for chain in $({ "$cmd" -w -t "$table" -S 2>/dev/null || true; } | awk '$1 == "-N" && $2 ~ /^KUBE-/ {print $2}'); do
        "$cmd" -w -t "$table" -F "$chain" 2>/dev/null || true
      done
      for chain in $({ "$cmd" -w -t "$table" -S 2>/dev/null || true; } | awk '$1 == "-N" && $2 ~ /^KUBE-/ {print $2}'); do
        "$cmd" -w -t "$table" -X "$chain" 2>/dev/null || true
      done
    done
  done
}

network_down() {
  local ip_forward=0 bridge_nf=0
  remove_kube_chains
  if iptables -w -C FORWARD -j "$GUARD_CHAIN" 2>/dev/null; then iptables -w -D FORWARD -j "$GUARD_CHAIN"; fi
  while iptables -w -C FORWARD "${POD_ACCEPT[@]}" 2>/dev/null; do iptables -w -D FORWARD "${POD_ACCEPT[@]}"; done
  iptables -w -F "$GUARD_CHAIN" 2>/dev/null || true
  iptables -w -X "$GUARD_CHAIN" 2>/dev/null || true
  if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link delete "$BRIDGE"; fi
  hosts_remove
  if [ -f "$node/sysctl.saved" ]; then
    # shellcheck source=/dev/null
    . "$node/sysctl.saved"
    echo "$ip_forward" >/proc/sys/net/ipv4/ip_forward
    echo "$bridge_nf" >/proc/sys/net/bridge/bridge-nf-call-iptables
  fi
}

# ---------------------------------------------------------------------------------------------
# Components: the command line of each (`start` runs exactly the same again), how to tell it is
# healthy, and what e2e/lib/supervise.sh asks besides.

containerd_cmd() {
  # Registry traffic goes to a closed port on loopback: nothing is ever pulled.
  cmd=(env HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY=
    containerd --config "$node/containerd/config.toml" --log-level warn)
}
containerd_health() { ctr_ version >/dev/null 2>&1; }
containerd_poststart() { "$realnode/images.sh" import "$node/containerd/containerd.sock"; }

kubelet_cmd() {
  cmd=("$nodebin/kubelet" --config="$node/kubelet.yaml" --kubeconfig="$node/kubelet.kubeconfig"
    --root-dir="$node/kubelet" --cert-dir="$node/kubelet/pki" --hostname-override="$NODE_NAME"
    --node-ip="$NODE_IP" --node-labels="cellar.dev/real-node=true" --v=1)
}
# Healthy: it serves /healthz and has registered the node, which is Ready.
kubelet_health() {
  curl -fsS --noproxy '*' --max-time 2 "http://$NODE_IP:10248/healthz" >/dev/null 2>&1 &&
    [ "$(kubectl_ get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]
}

kube_proxy_cmd() { cmd=("$nodebin/kube-proxy" --config="$node/kube-proxy.yaml" --v=1); }
kube_proxy_health() { curl -fsS --noproxy '*' --max-time 2 "http://$NODE_IP:10256/healthz" >/dev/null 2>&1; }

coredns_cmd() { cmd=("$nodebin/coredns" -conf "$node/coredns/Corefile"); }
coredns_health() { curl -fsS --noproxy '*' --max-time 2 "http://$NODE_IP:8181/ready" >/dev/null 2>&1; }

provisioner_cmd() {
  cmd=(env CELLAR_CLUSTER_DIR="$dir" CELLAR_CACHE="$cache" bash "$realnode/provisioner.sh" "$node/")
}
provisioner_health() { running provisioner; }

# The API server for the node's pods (see the header): socat names its log file, which puts the
# state directory on its command line (how supervise.sh tells its pid from a reused one).
apiserver_relay_cmd() {
  cmd=(socat -lf "$node/logs/apiserver-relay.socat.log"
    "TCP-LISTEN:$RELAY_PORT,bind=$NODE_IP,reuseaddr,fork" "TCP:127.0.0.1:$APISERVER_PORT")
}
# Healthy: the API server answers through it, by the name its certificate gives it.
apiserver_relay_health() {
  curl -fsS --noproxy '*' --max-time 2 --cacert "$pki/ca.crt" \
    --connect-to "kubernetes.default.svc:443:$NODE_IP:$RELAY_PORT" https://kubernetes.default.svc/readyz >/dev/null 2>&1
}

timeout_of() { case $1 in kubelet) echo 120 ;; *) echo 60 ;; esac; }
detail() {
  case $1 in
    containerd) echo ", $(containerd --version | awk '{print $3}')" ;;
    kubelet) echo ", $NODE_NAME Ready, $("$nodebin/kubelet" --version)" ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# Commands

ensure_binaries() { ensure_built node "$nodebin" kubelet kube-proxy coredns; }

# Every component that is not running, in order; running pods and volumes are kept.
start_stopped() {
  local c
  network_up
  for c in "${COMPONENTS[@]}"; do running "$c" || start_component "$c"; done
}

load_cluster() {
  load_ports
  [ -f "$pki/ca.key" ] || die "no local cluster's CA in $pki: run e2e/local-cluster up first"
  apiserver_health || die "the local cluster in $dir does not answer: run e2e/local-cluster up first"
}

cmd_up() {
  local t0=$SECONDS c
  [ "$(id -u)" = 0 ] || die "the real node needs root (containerd, mounts, iptables, a bridge)"
  load_cluster
  if [ -f "$node/.complete" ]; then
    if all_running; then say "already running in $node"; return 0; fi
    say "restarting the stopped components of the node in $node (pods and volumes are kept)"
    ensure_binaries
    guard stop_started
    start_stopped
    finish
    say "node $NODE_NAME ready in $((SECONDS - t0)) s"
    return 0
  elif [ -d "$node" ]; then
    cmd_down
  fi
  if ip link show "$BRIDGE" >/dev/null 2>&1; then
    die "the bridge $BRIDGE exists already: another real node runs on this machine (one at a time; stop it with its 'node down')"
  fi
  "$realnode/install-deps.sh"
  ensure_binaries
  mkdir -p "$node"/{logs,pids,pki,volumes}
  guard up_failed
  cert kubelet "/O=system:nodes/CN=system:node:$NODE_NAME"
  cert kube-proxy "/CN=system:kube-proxy"
  cert coredns "/CN=cellar-real-node-coredns"
  for c in kubelet kube-proxy coredns; do write_kubeconfig "$node/$c.kubeconfig" "$c"; done
  write_containerd_config
  write_kubelet_config
  write_kube_proxy_config
  write_coredns_config
  network_up
  bootstrap_objects
  start_stopped
  date -u +%FT%TZ >"$node/.complete"
  finish
  say "node $NODE_NAME ready in $((SECONDS - t0)) s; logs in $node/logs; StorageClass real-local"
}

up_failed() { say "node up did not finish; removing what it started"; cmd_down; }

# stop COMPONENT / start COMPONENT: for fault tests; pods keep running without the kubelet or
# containerd, as on any node.
cmd_stop() {
  check_component "${1:-}"
  [ -f "$node/.complete" ] || die "no real node in $dir"
  running "$1" || say "$1 is not running"
  stop_running "$1"
}
cmd_start() {
  check_component "${1:-}"
  [ -f "$node/.complete" ] || die "no real node in $dir (run: node up)"
  load_cluster
  start_one "$1"
}

# Every pod sandbox of the node stopped and removed through containerd, which tears down their
# network namespaces; what the kubelet mounted for pods is unmounted.
remove_pods() {
  local id ns
  if containerd_health; then
    for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true; done
    local deadline=$((SECONDS + 20))
    while [ -n "$(ctr_ tasks ls -q 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do
      for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks delete -f "$id" >/dev/null 2>&1 || true; done
      sleep 0.5
    done
    for id in $(ctr_ containers ls -q 2>/dev/null); do
      ns=$(ctr_ containers info "$id" 2>/dev/null | jq -r '.Spec.linux.namespaces[]? | select(.type == "network") | .path // empty' || true)
      case $ns in /var/run/netns/cni-* | /run/netns/cni-*) umount "$ns" 2>/dev/null || true; rm -f "$ns" 2>/dev/null || true ;; esac
      ctr_ containers delete "$id" >/dev/null 2>&1 || true
    done
  fi
}

unmount_under() { # unmount everything mounted below $1, deepest first
  local m
  awk -v p="$1/" 'index($5, p) == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
}

# What the kubelet and containerd keep at fixed places outside the state directory: the CNI
# results cache, the kubelet's links to container logs, its device-plugin socket.
host_leftovers() {
  rm -f /var/lib/cni/results/cellar-real-node-*
  [ ! -d /var/log/containers ] || find /var/log/containers -maxdepth 1 -type l -lname "$node/*" -delete
  rm -f /var/lib/kubelet/device-plugins/kubelet.sock
  rmdir /var/lib/kubelet/device-plugins /var/lib/kubelet 2>/dev/null || true
}

cmd_down() {
  local c
  [ -d "$node" ] || { say "no real node in $dir"; return 0; }
  for c in apiserver-relay provisioner coredns kubelet; do stop_component "$c" || true; done
  remove_pods
  stop_component kube-proxy || true
  stop_component containerd || true
  if [ -x "$nodebin/kube-proxy" ] && [ -f "$node/kube-proxy.yaml" ]; then
    "$nodebin/kube-proxy" --cleanup --config="$node/kube-proxy.yaml" >/dev/null 2>&1 || true
  fi
  unmount_under "$node"
  network_down
  host_leftovers
  if [ -f "$kubeconfig" ] && [ -f "$dir/ports" ]; then
    kubectl_ delete node "$NODE_NAME" --ignore-not-found --wait=false >/dev/null 2>&1 || true
    kubectl_ -n default delete endpointslice kubernetes-real-node --ignore-not-found --wait=false >/dev/null 2>&1 || true
    # Their directories go with the node: claims bound to them become Lost, not silently empty.
    kubectl_ delete pv -l cellar.dev/real-node-volume=true --wait=false >/dev/null 2>&1 || true
  fi
  rm -rf "$node"
  say "down; removed $node"
}

# load ARCHIVE...: image archives into the node's containerd (`ctr images import` reads docker
# save archives, as Jib writes them, and OCI layouts). An archive's digest and the images it held
# are noted in $node/loaded/: one imported before, whose images are all still there, is skipped.
cmd_load() {
  local archive sum note names name start missing
  [ $# -gt 0 ] || die "usage: node load ARCHIVE..."
  [ -f "$node/.complete" ] || die "no real node in $dir (run: node up)"
  containerd_health || die "the node's containerd does not run (run: node up)"
  mkdir -p "$node/loaded"
  for archive in "$@"; do
    [ -f "$archive" ] || die "no image archive $archive"
    sum=$(sha256sum "$archive" | cut -c1-64)
    note=$node/loaded/$sum
    if [ -s "$note" ]; then
      missing=false
      names=$(ctr_ images ls -q)
      while read -r name; do grep -qxF "$name" <<<"$names" || missing=true; done <"$note"
      if ! $missing; then say "$archive: loaded before ($(paste -sd' ' "$note"))"; continue; fi
    fi
    start=$(now_ms)
    # "unpacking NAME (sha256:...)...done" for each image of the archive.
    ctr_ images import "$archive" | awk '$1 == "unpacking" {print $2}' >"$note.tmp" ||
      { rm -f "$note.tmp"; die "ctr could not import $archive"; }
    mv "$note.tmp" "$note"
    say "loaded $(paste -sd' ' "$note") from $archive in $(( ($(now_ms) - start) / 100 ))e-1 s"
  done
}

# tag IMAGE NAME: the node's IMAGE also under NAME, as `ctr images tag` does (replacing a NAME
# that names another image).
cmd_tag() {
  [ $# -eq 2 ] || die "usage: node tag IMAGE NAME"
  [ -f "$node/.complete" ] || die "no real node in $dir (run: node up)"
  containerd_health || die "the node's containerd does not run (run: node up)"
  ctr_ images tag --force "$1" "$2" >/dev/null || die "ctr could not tag $1 as $2"
  say "$1 is also $2"
}

cmd_status() {
  [ -d "$node" ] || { echo "no real node in $dir"; return 3; }
  print_status
}

# One command at a time for this cluster's node.
lock "$dir.node.lock"
case ${1:-} in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  stop) cmd_stop "${2:-}" ;;
  start) cmd_start "${2:-}" ;;
  load) shift; cmd_load "$@" ;;
  tag) shift; cmd_tag "$@" ;;
  *) usage ;;
esac
