#!/usr/bin/env bash
# Builds the local cluster's binaries from Go modules, once per version: each lands in
# $CELLAR_CACHE/bin/<component>-<version>-<recipe hash>/ and is never rebuilt while there.
# Usage: build.sh [core|node|all]   (core: control plane, kubectl, etcd, kwok; node: kubelet, kube-proxy)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${CELLAR_CACHE:-$HOME/.cache/cellar}
what=${1:-core}

die() { echo "local-cluster build: $*" >&2; exit 1; }
command -v go >/dev/null || die "no Go toolchain on PATH: install Go 1.24 or newer (e.g. apt-get install golang-go, or from go.dev) and retry"

# The version a wrapper module pins, read from its go.mod require line.
pinned() { awk -v m="$2" '$1==m {print $2; exit} $1=="require" && $2==m {print $3; exit}' "$here/$1/go.mod"; }
# The cache dir of a wrapper: its version plus a hash of its recipe, so an edited go.mod rebuilds.
dir_of() {
  local mod=$1 version=$2 sum
  sum=$(cat "$here/$mod/go.mod" "$here/$mod/go.sum" "$here/build.sh" | sha256sum | cut -c1-10)
  echo "$cache/bin/$mod-$version-$sum"
}

# go build names a binary after its package path, skipping a major version suffix (/v3).
binname() { local b; b=$(basename "$1"); [[ $b =~ ^v[0-9]+$ ]] && b=$(basename "$(dirname "$1")"); echo "$b"; }

# build MODULE VERSION LDFLAGS PKG... : builds the named main packages that are missing.
build() {
  local mod=$1 version=$2 ldflags=$3; shift 3
  local out missing=() pkg
  out=$(dir_of "$mod" "$version")
  for pkg in "$@"; do [ -x "$out/$(binname "$pkg")" ] || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && { echo "$out"; return; }
  echo "local-cluster build: building ${missing[*]##*/} ($mod $version) into $out; the first build takes a while" >&2
  mkdir -p "$out.tmp"
  local start=$SECONDS
  ( cd "$here/$mod" && GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
      go build -trimpath -ldflags "-s -w $ldflags" -o "$out.tmp/" "${missing[@]}" ) >&2 \
    || die "go build failed for ${missing[*]} (module $here/$mod). A module download failure means the Go module proxy is unreachable: check 'go env GOPROXY' and the network"
  mkdir -p "$out"
  mv "$out.tmp"/* "$out/" && rmdir "$out.tmp"
  echo "local-cluster build: built ${missing[*]##*/} in $((SECONDS - start)) s" >&2
  echo "$out"
}

k8s_version=$(pinned kubernetes k8s.io/kubernetes)
k8s_ldflags() {
  local v=$k8s_version minor p
  minor=$(echo "$v" | cut -d. -f2)
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    printf -- '-X %s.gitVersion=%s -X %s.gitMajor=1 -X %s.gitMinor=%s -X %s.gitTreeState=clean -X %s.buildDate=1970-01-01T00:00:00Z ' \
      "$p" "$v" "$p" "$p" "$minor" "$p" "$p"
  done
}

link() { # link DIR: make stable names under $cache/bin/current for scripts to use
  mkdir -p "$cache/bin/current"
  local f
  for f in "$1"/*; do ln -sfn "$f" "$cache/bin/current/$(basename "$f")"; done
}

if [ "$what" = core ] || [ "$what" = all ]; then
  link "$(build kubernetes "$k8s_version" "$(k8s_ldflags)" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)"
  etcd_dir=$(build etcd "$(pinned etcd go.etcd.io/etcd/server/v3)" "" go.etcd.io/etcd/server/v3)
  mkdir -p "$cache/bin/current" && ln -sfn "$etcd_dir/server" "$cache/bin/current/etcd"
  link "$(build kwok "$(pinned kwok sigs.k8s.io/kwok)" "-X sigs.k8s.io/kwok/pkg/consts.Version=$(pinned kwok sigs.k8s.io/kwok)" sigs.k8s.io/kwok/cmd/kwok)"
fi
if [ "$what" = node ] || [ "$what" = all ]; then
  link "$(build kubernetes "$k8s_version" "$(k8s_ldflags)" \
    k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy)"
fi
echo "$cache/bin/current"
