#!/usr/bin/env bash
# Smoke test of a running local cluster: each property the Java tests rely on, checked with
# kubectl in a namespace of its own (deleted at the end). Run it after changing the stages or the
# flags: `e2e/local-cluster up && e2e/cluster/smoke-test.sh` (about a minute). Exit 0 if all pass.
set -uo pipefail
lc=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/local-cluster
dir=${CELLAR_CLUSTER_DIR:-/dev/shm/cellar-local-cluster}
kubectl_bin=${CELLAR_CACHE:-$HOME/.cache/cellar}/bin/current/kubectl
K() { "$lc" kubectl "$@"; }
pass=0 failed=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { local what=$1; shift; if "$@" >/tmp/smoke.last 2>&1; then ok "$what"; else bad "$what"; sed 's/^/    /' /tmp/smoke.last | tail -5; fi; }
# poll TIMEOUT CMD...: until it succeeds
poll() { local end=$((SECONDS + $1)); shift; until "$@"; do [ $SECONDS -lt $end ] || return 1; sleep 0.5; done; }

ns=smoke-$RANDOM
K create ns "$ns" >/dev/null
N() { K -n "$ns" "$@"; }

# StatefulSet with a volumeClaimTemplate
N apply -f - >/dev/null <<'EOF'
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres:17, volumeMounts: [{name: data, mountPath: /data}]}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
EOF
check "StatefulSet: 3 Ready pods" N rollout status sts/db --timeout=60s
pvcs_bound() { [ "$(N get pvc -l app=db -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' | grep -c '^Bound$')" = 3 ]; }
check "StatefulSet: 3 Bound PVCs" poll 30 pvcs_bound
check "pods have podIP and hostIP" bash -c "[ -n \"\$($lc kubectl -n $ns get pod db-0 -o jsonpath='{.status.podIP}{.status.hostIP}')\" ]"

# CronJob's Job completes, a failing one fails
N apply -f - >/dev/null <<'EOF'
apiVersion: batch/v1
kind: CronJob
metadata: {name: backup}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      backoffLimit: 0
      template:
        spec:
          restartPolicy: Never
          containers: [{name: backup, image: busybox}]
EOF
N create job --from=cronjob/backup ok1 >/dev/null
N create job --from=cronjob/backup bad1 --dry-run=client -o json |
  python3 -c 'import json,sys; j=json.load(sys.stdin); j["spec"]["template"].setdefault("metadata",{}).setdefault("annotations",{})["cellar.dev/kwok-fail"]="true"; print(json.dumps(j))' |
  N create -f - >/dev/null
check "CronJob's Job completes" N wait --for=condition=complete job/ok1 --timeout=30s
check "Job with cellar.dev/kwok-fail fails" N wait --for=condition=failed job/bad1 --timeout=30s

# Garbage collection
N create configmap owner >/dev/null
uid=$(N get cm owner -o jsonpath='{.metadata.uid}')
N apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: dependent
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: $uid}]
EOF
N delete cm owner >/dev/null
gone() { ! N get cm dependent >/dev/null 2>&1; }
check "deleting an owner collects its dependent" poll 30 gone

# PodSecurity
K create ns "$ns-restricted" >/dev/null
K label ns "$ns-restricted" pod-security.kubernetes.io/enforce=restricted >/dev/null
rejected() { local out; out=$(K -n "$ns-restricted" run bad --image=busybox --privileged=true 2>&1); grep -q 'violates PodSecurity' <<<"$out"; }
check "restricted PodSecurity rejects a privileged pod" rejected

# TokenRequest token, authorised exactly as its RBAC says
N create sa reader >/dev/null
N create role pod-reader --verb=get,list --resource=pods >/dev/null
N create rolebinding r --role=pod-reader --serviceaccount="$ns:reader" >/dev/null
token=$(N create token reader --duration=10m)
. "$dir/ports"
# Only the token: the admin kubeconfig's client certificate would win over --token.
TK() { "$kubectl_bin" --kubeconfig=/dev/null --server="https://127.0.0.1:$APISERVER_PORT" \
  --certificate-authority="$dir/pki/ca.crt" --token="$token" "$@"; }
[ "$(TK auth can-i list pods -n "$ns")" = yes ] && ok "token: can list pods in $ns" || bad "token: can list pods in $ns"
[ "$(TK auth can-i create pods -n "$ns")" = no ] && ok "token: cannot create pods" || bad "token: cannot create pods"
[ "$(TK auth can-i list pods -n default)" = no ] && ok "token: cannot list pods elsewhere" || bad "token: cannot list pods elsewhere"
TK get pods -n default >/dev/null 2>&1 && bad "token: a real request outside its RBAC was allowed" || ok "token: a real request outside its RBAC is forbidden"

# Volume growth
N apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: grow}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: stuck}
spec: {storageClassName: fixed, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
EOF
check "PVCs bind" N wait --for=jsonpath='{.status.phase}'=Bound pvc/grow pvc/stuck --timeout=30s
N patch pvc grow -p '{"spec":{"resources":{"requests":{"storage":"3Gi"}}}}' >/dev/null
check "standard PVC grows (status.capacity follows)" N wait --for=jsonpath='{.status.capacity.storage}'=3Gi pvc/grow --timeout=30s
pv=$(N get pvc grow -o jsonpath='{.spec.volumeName}')
check "its PV grows too" bash -c "[ \"\$($lc kubectl get pv $pv -o jsonpath='{.spec.capacity.storage}')\" = 3Gi ]"
out=$(N patch pvc stuck -p '{"spec":{"resources":{"requests":{"storage":"3Gi"}}}}' 2>&1)
if grep -q 'must support resize' <<<"$out"; then
  ok "fixed PVC growth refused by admission"; else bad "fixed PVC growth refused by admission"; fi

# PV deletion follows PVC deletion
N delete pvc grow >/dev/null
pv_gone() { ! K get pv "$pv" >/dev/null 2>&1; }
check "PV with reclaim Delete goes with its PVC" poll 30 pv_gone

# Idle objects stay idle
rv() { N get pods,pvc -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}'; }
a=$(rv); sleep 15; b=$(rv)
[ "$a" = "$b" ] && ok "idle pods and PVCs are not rewritten (15 s)" || bad "idle objects changed: $a -> $b"

K delete ns "$ns" "$ns-restricted" --wait=false >/dev/null
echo "passed $pass, failed $failed"
[ $failed = 0 ]
