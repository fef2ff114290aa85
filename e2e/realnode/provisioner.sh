#!/usr/bin/env bash
# The real node's volume provisioner, run by node.sh: what an external provisioner and resizer
# do for the StorageClass real-local (provisioner cellar.dev/real-node-volume), by polling the
# API server once a second:
#  - provision: a claim that the PV controller handed to this provisioner gets a directory under
#    NODE_DIR/volumes and a local PersistentVolume on the real node, pre-bound to the claim (the
#    PV controller then binds both); the kubelet applies the pod's fsGroup to it;
#  - resize: a Bound claim that requests more than its capacity gets it (a directory has no size);
#  - delete: a Released volume with reclaim policy Delete loses its PV and its directory.
# Usage: provisioner.sh NODE_DIR   (CELLAR_CLUSTER_DIR, CELLAR_CACHE as for e2e/local-cluster)
set -uo pipefail
node=${1:?usage: provisioner.sh NODE_DIR}
node=${node%/}
dir=$(dirname "$node")
bin=${CELLAR_CACHE:-$HOME/.cache/cellar}/bin/current
PROVISIONER=cellar.dev/real-node-volume
NODE_NAME=cellar-real-node

kubectl_() { "$bin/kubectl" --kubeconfig="$dir/kubeconfig" --request-timeout=10s "$@"; }
log() { echo "$(date -u +%FT%TZ) $*"; }

provision() { # provision NAMESPACE NAME UID SIZE CLASS ACCESS_MODES(comma separated)
  local path=$node/volumes/pvc-$3 modes
  mkdir -p "$path"
  modes=$(tr ',' '\n' <<<"$6" | sed 's/^/  - /')
  if kubectl_ create -f - >/dev/null 2>"$node/provisioner.err" <<EOF2
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pvc-$3
  labels:
    cellar.dev/real-node-volume: "true"
  annotations:
    pv.kubernetes.io/provisioned-by: $PROVISIONER
spec:
  storageClassName: "$5"
  accessModes:
$modes
  capacity:
    storage: "$4"
  volumeMode: Filesystem
  persistentVolumeReclaimPolicy: Delete
  claimRef:
    apiVersion: v1
    kind: PersistentVolumeClaim
    namespace: "$1"
    name: "$2"
    uid: "$3"
  local:
    path: $path
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - key: kubernetes.io/hostname
          operator: In
          values: [$NODE_NAME]
EOF2
  then
    log "provisioned pvc-$3 ($4) for $1/$2 at $path"
  elif ! grep -q AlreadyExists "$node/provisioner.err"; then
    log "could not create the PV for $1/$2: $(cat "$node/provisioner.err")"
  fi
}

resize() { # resize NAMESPACE NAME VOLUME SIZE
  kubectl_ patch pv "$3" --type=merge -p "{\"spec\":{\"capacity\":{\"storage\":\"$4\"}}}" >/dev/null &&
    kubectl_ patch pvc "$2" -n "$1" --subresource=status --type=merge \
      -p "{\"status\":{\"capacity\":{\"storage\":\"$4\"},\"allocatedResources\":{\"storage\":\"$4\"}}}" >/dev/null &&
    log "resized $3 for $1/$2 to $4"
}

remove() { # remove VOLUME
  kubectl_ delete pv "$1" --wait=false >/dev/null && rm -rf "${node:?}/volumes/$1" && log "deleted $1 and its directory"
}

log "provisioner $PROVISIONER for node $NODE_NAME: volumes in $node/volumes"
while :; do
  if claims=$(kubectl_ get pvc -A -o json 2>/dev/null); then
    jq -r --arg p "$PROVISIONER" '.items[]
      | select(.metadata.annotations["volume.kubernetes.io/storage-provisioner"] == $p and .metadata.deletionTimestamp == null)
      | if (.spec.volumeName // "") == "" and ((.status.phase // "Pending") == "Pending") then
          ["provision", .metadata.namespace, .metadata.name, .metadata.uid, .spec.resources.requests.storage,
           .spec.storageClassName, (.spec.accessModes | join(","))]
        elif .status.phase == "Bound" and .status.capacity.storage != null
             and .spec.resources.requests.storage != .status.capacity.storage then
          ["resize", .metadata.namespace, .metadata.name, .spec.volumeName, .spec.resources.requests.storage]
        else empty end | @tsv' <<<"$claims" |
      while IFS=$'\t' read -r action a b c d e f; do
        case $action in
          provision) provision "$a" "$b" "$c" "$d" "$e" "$f" ;;
          resize) resize "$a" "$b" "$c" "$d" ;;
        esac
      done
  fi
  if volumes=$(kubectl_ get pv -o json 2>/dev/null); then
    jq -r --arg p "$PROVISIONER" '.items[]
      | select(.metadata.annotations["pv.kubernetes.io/provisioned-by"] == $p and .metadata.deletionTimestamp == null
               and .spec.persistentVolumeReclaimPolicy == "Delete" and .status.phase == "Released")
      | .metadata.name' <<<"$volumes" |
      while read -r v; do remove "$v"; done
  fi
  sleep 1
done
