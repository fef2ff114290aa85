#!/usr/bin/env bash
# Builds the local cluster's binaries from Go modules (Prometheus: Debian's), once per version:
# each lands in $CELLAR_CACHE/bin/<component>-<version>-<recipe hash>/ and is never rebuilt while
# there.
# Usage: build.sh [core|node|kind|tools|prometheus|all]
#   core: control plane, kubectl, etcd, kwok; linked in $CELLAR_CACHE/bin/current (printed)
#   node: the real node's kubelet, kube-proxy and CoreDNS; linked in $CELLAR_CACHE/bin/node
#         (printed), so that building them does not change what the kwok cluster is made of
#   kind: what the kind node image and its component images are made of (e2e/kind): kubeadm,
#         kubelet, kubectl, the control plane, kube-proxy, etcd, CoreDNS with kubeadm's plugins and
#         local-path-provisioner; linked in $CELLAR_CACHE/bin/kind (printed)
#   prometheus: Prometheus, Debian's package's binary, for the metrics test on the real node;
#               linked in $CELLAR_CACHE/bin/prometheus (printed)
#   tools: helm, for the Helm chart's tests, and kube-score, the manifest linter of the build
#          (ManifestLintIT); linked in $CELLAR_CACHE/bin/tools (printed)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${CELLAR_CACHE:-$HOME/.cache/cellar}
what=${1:-core}

die() { echo "local-cluster build: $*" >&2; exit 1; }
command -v go >/dev/null || die "no Go toolchain on PATH: install Go 1.24 or newer (e.g. apt-get install golang-go, or from go.dev) and retry"

# The version a wrapper module pins, read from its go.mod require line.
pinned() { awk -v m="$2" '$1==m {print $2; exit} $1=="require" && $2==m {print $3; exit}' "$here/$1/go.mod"; }
# The cache dir of a wrapper: its version plus a hash of its recipe (go.mod, go.sum, its own Go
# files, the build function and the linker flags), so an edited go.mod rebuilds and an edit
# elsewhere in this script does not.
dir_of() {
  local mod=$1 version=$2 ldflags=$3 sum
  sum=$({ cat "$here/$mod/go.mod" "$here/$mod/go.sum"; cat "$here/$mod"/*.go 2>/dev/null || true
    declare -f build; echo "$ldflags"; } | sha256sum | cut -c1-10)
  echo "$cache/bin/$mod-$version-$sum"
}

# go build names a binary after its package path, skipping a major version suffix (/v3).
binname() { local b; b=$(basename "$1"); [[ $b =~ ^v[0-9]+$ ]] && b=$(basename "$(dirname "$1")"); echo "$b"; }

# build MODULE VERSION LDFLAGS PKG... : builds the named main packages that are missing. One
# build of a directory at a time: a second caller (bin/test builds the real node's binaries and
# Prometheus in the background; the real node and MetricsRealNodeIT ask for them too) waits on the
# lock, then finds the binaries.
build() {
  local mod=$1 version=$2 ldflags=$3; shift 3
  local out missing=() pkg lock
  out=$(dir_of "$mod" "$version" "$ldflags")
  for pkg in "$@"; do [ -x "$out/$(binname "$pkg")" ] || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && { echo "$out"; return; }
  # Binaries already there are used without waiting: the lock only orders builds.
  mkdir -p "$(dirname "$out")"
  exec {lock}>"$out.lock"
  flock "$lock"
  missing=()
  for pkg in "$@"; do [ -x "$out/$(binname "$pkg")" ] || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && { exec {lock}>&-; echo "$out"; return; }
  echo "local-cluster build: building ${missing[*]##*/} ($mod $version) into $out; the first build takes a while" >&2
  mkdir -p "$out.tmp"
  local start=$SECONDS
  ( cd "$here/$mod" && GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
      go build -trimpath -ldflags "-s -w $ldflags" -o "$out.tmp/" "${missing[@]}" ) >&2 \
    || die "go build failed for ${missing[*]} (module $here/$mod). A module download failure means the Go module proxy is unreachable: check 'go env GOPROXY' and the network"
  mkdir -p "$out"
  mv "$out.tmp"/* "$out/" && rmdir "$out.tmp"
  echo "local-cluster build: built ${missing[*]##*/} in $((SECONDS - start)) s" >&2
  exec {lock}>&-
  echo "$out"
}

# debian_binary PACKAGE PATH: the one binary a Debian package holds at PATH, unpacked into
# $cache/bin/PACKAGE-debian-<version>/ (printed), without installing the package: neither its
# Depends (Prometheus's are its web UI's JavaScript) nor its service come along. Taken from Debian
# rather than built where the package is a real build of the program: Prometheus from source took
# ten minutes of both CPUs on a new machine, beside the tests.
debian_binary() {
  local pkg=$1 path=$2 version out lock tmp
  version=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2}')
  if [ -z "$version" ] || [ "$version" = "(none)" ]; then
    [ "$(id -u)" = 0 ] || die "Debian's package $pkg is not known to apt: run apt-get update as root and retry"
    apt-get update -qq >&2 || die "apt-get update failed: Debian's package $pkg is needed"
    version=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2}')
  fi
  if [ -z "$version" ] || [ "$version" = "(none)" ]; then die "Debian has no package $pkg for this machine"; fi
  out=$cache/bin/$pkg-debian-${version//[:+~]/_}
  if [ ! -x "$out/$(basename "$path")" ]; then
    mkdir -p "$(dirname "$out")"
    exec {lock}>"$out.lock"
    flock "$lock"
    if [ ! -x "$out/$(basename "$path")" ]; then
      tmp=$(mktemp -d)
      ( cd "$tmp" && apt-get download -qq "$pkg=$version" ) >&2 2>&1 \
        || { rm -rf "$tmp"; die "apt-get download $pkg=$version failed: Debian's package mirror is needed"; }
      dpkg-deb -x "$tmp"/*.deb "$tmp/root"
      mkdir -p "$out"
      install -m 0755 "$tmp/root/$path" "$out/"
      rm -rf "$tmp"
      echo "local-cluster build: $pkg $version unpacked into $out" >&2
    fi
    exec {lock}>&-
  fi
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

link() { # link DIR [NAME...]: stable names under $cache/bin/current for scripts to use
  link_into current "$@"
}
link_into() { # link_into LINKDIR DIR [NAME...]: $cache/bin/LINKDIR/NAME -> DIR/NAME (default: all)
  local to=$cache/bin/$1 from=$2 f; shift 2
  mkdir -p "$to"
  if [ $# -eq 0 ]; then set -- "$from"/*; fi
  for f in "$@"; do ln -sfn "$from/$(basename "$f")" "$to/$(basename "$f")"; done
}

if [ "$what" = core ] || [ "$what" = all ]; then
  # Only the core's names: the kubelet and kube-proxy built into the same directory stay out.
  link "$(build kubernetes "$k8s_version" "$(k8s_ldflags)" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)" \
    kube-apiserver kube-controller-manager kube-scheduler kubectl
  etcd_dir=$(build etcd "$(pinned etcd go.etcd.io/etcd/server/v3)" "" go.etcd.io/etcd/server/v3)
  mkdir -p "$cache/bin/current" && ln -sfn "$etcd_dir/server" "$cache/bin/current/etcd"
  link "$(build kwok "$(pinned kwok sigs.k8s.io/kwok)" "-X sigs.k8s.io/kwok/pkg/consts.Version=$(pinned kwok sigs.k8s.io/kwok)" sigs.k8s.io/kwok/cmd/kwok)"
fi
if [ "$what" = node ] || [ "$what" = all ]; then
  # v1.34 is the last release whose kubelet runs on cgroup v1 by default, as these machines have.
  link_into node "$(build kubernetes "$k8s_version" "$(k8s_ldflags)" \
    k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy)" kubelet kube-proxy
  # CoreDNS with the plugins the real node and kind use (coredns/main.go).
  link_into node "$(build coredns "$(pinned coredns github.com/coredns/coredns)" "" cellar.dev/localcluster/coredns)"
fi
if [ "$what" = kind ]; then
  [ "$(pinned kubeadm k8s.io/kubernetes)" = "$k8s_version" ] ||
    die "kubeadm/go.mod pins k8s.io/kubernetes $(pinned kubeadm k8s.io/kubernetes), kubernetes/go.mod $k8s_version: make them agree"
  link_into kind "$(build kubernetes "$k8s_version" "$(k8s_ldflags)" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl \
    k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy)" \
    kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy
  link_into kind "$(build kubeadm "$k8s_version" "$(k8s_ldflags)" k8s.io/kubernetes/cmd/kubeadm)" kubeadm
  etcd_dir=$(build etcd "$(pinned etcd go.etcd.io/etcd/server/v3)" "" go.etcd.io/etcd/server/v3)
  ln -sfn "$etcd_dir/server" "$cache/bin/kind/etcd"
  # The real node's CoreDNS build: its wrapper has kubeadm's plugins too.
  link_into kind "$(build coredns "$(pinned coredns github.com/coredns/coredns)" "" cellar.dev/localcluster/coredns)"
  lpp_version=$(pinned local-path github.com/rancher/local-path-provisioner)
  link_into kind "$(build local-path "$lpp_version" "-X main.VERSION=$lpp_version" github.com/rancher/local-path-provisioner)"
fi
if [ "$what" = tools ]; then
  helm_version=$(pinned helm helm.sh/helm/v4)
  link_into tools "$(build helm "$helm_version" "-X helm.sh/helm/v4/internal/version.version=$helm_version" helm.sh/helm/v4/cmd/helm)" helm
  kube_score_version=$(pinned kube-score github.com/zegl/kube-score)
  link_into tools "$(build kube-score "$kube_score_version" "-X main.version=$kube_score_version" github.com/zegl/kube-score/cmd/kube-score)" kube-score
fi
if [ "$what" = prometheus ]; then
  link_into prometheus "$(debian_binary prometheus usr/bin/prometheus)" prometheus
fi
case $what in node) echo "$cache/bin/node" ;; kind) echo "$cache/bin/kind" ;; tools) echo "$cache/bin/tools" ;; prometheus) echo "$cache/bin/prometheus" ;; *) echo "$cache/bin/current" ;; esac
