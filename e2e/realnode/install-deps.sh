#!/usr/bin/env bash
# Installs what the real node runs on, from Debian's packages, once: containerd and runc (the
# container runtime), the CNI plugins (bridge, host-local, loopback, portmap), iptables and
# conntrack (kube-proxy), socat (the pods' relay to the API server), mmdebstrap and jq (the
# database images are built from Debian's packages).
# Skips every package that is already installed; needs root (apt-get).
# Usage: e2e/realnode/install-deps.sh [--check]   (--check: list what is missing, install nothing)
set -euo pipefail

packages=(containerd runc containernetworking-plugins iptables conntrack socat mmdebstrap jq)

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }

missing=()
for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then
  echo "realnode deps: all installed (${packages[*]})" >&2
  exit 0
fi
if [ "${1:-}" = --check ]; then
  echo "realnode deps: missing: ${missing[*]}" >&2
  exit 1
fi
[ "$(id -u)" = 0 ] || { echo "realnode deps: missing ${missing[*]}; run this as root (apt-get install)" >&2; exit 1; }

echo "realnode deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# One update, and only when an install is needed: the package lists of a new machine may be empty.
apt-get update -qq
# No service is started by the packages (the node starts its own containerd with its own state).
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for p in "${missing[@]}"; do installed "$p" || { echo "realnode deps: $p did not install" >&2; exit 1; }; done
echo "realnode deps: installed ${missing[*]}" >&2
