#!/usr/bin/env bash
# `npm run demo`: Ironhook's main job.
#  - With KUBECONFIG pointing at a reachable cluster (other than this checkout's own local
#    environment): install the Helm chart there, with upstream Metacontroller as its dependency
#    unless the cluster already runs one (docs/helm.md).
#  - With KUBECONFIG pointing at this checkout's environment started with a real node
#    (`npm run env:up -- --node`): install the chart onto that node with the local profile
#    (charts/ironhook/ci/local-node-values.yaml, the images `npm run image` built, imported by
#    env:up) and the environment's BMC ports (.ironhook/local-node-values.yaml), then apply the
#    demo hosts and watch them, as below, with Metacontroller, hooks and pool running as pods.
#  - Otherwise: start the local environment on 127.0.0.1 (etcd, kube-apiserver,
#    controller-manager, upstream Metacontroller v4.17.2, the hook server, the driver pool and the
#    emulated BMCs of examples/demo/hosts.yaml: ipmi_sim on 16230, the Redfish emulator on
#    18000, the fake agent, images on 18080), apply the demo hosts, and watch them progress.
#    With Cluster API's manager and the workload cluster running (env:up starts them when the
#    manager is built), apply examples/demo/cluster.yaml once the worker pool is available, play
#    the kubelet of the host Cluster API's machine gets, and watch the providerID and nodeRef.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DEMO_SECONDS="${DEMO_SECONDS:-150}"

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

KUBECTL="${IRONHOOK_CACHE:-$HOME/.cache/ironhook}/bin/kubectl"
if [ -n "${KUBECONFIG:-}" ] && [ "$KUBECONFIG" != "$ROOT/.ironhook/kubeconfig" ]; then
  bash scripts/setup-test-binaries.sh helm kubectl
  HELM="${IRONHOOK_CACHE:-$HOME/.cache/ironhook}/bin/helm"
  echo "== installing the Helm chart into $("$KUBECTL" config current-context 2>/dev/null || echo "\$KUBECONFIG")"
  # The chart's dependency, upstream Metacontroller's chart, packaged from its v4.17.2 source.
  bash scripts/chart-deps.sh
  # Metacontroller comes with the release unless the cluster runs one already; an upgrade keeps
  # what the installed release chose.
  bundled=true
  if current="$("$HELM" get values ironhook -n ironhook-system --all -o json 2>/dev/null)"; then
    bundled="$(python3 -c 'import json,sys; print(str(json.load(sys.stdin).get("metacontroller", {}).get("enabled", True)).lower())' <<<"$current")"
  elif "$KUBECTL" get crd compositecontrollers.metacontroller.k8s.io >/dev/null 2>&1; then
    bundled=false
    echo "   (the cluster already has Metacontroller's CRDs: using its Metacontroller, metacontroller.enabled=false)"
  fi
  "$HELM" upgrade --install ironhook charts/ironhook -n ironhook-system --create-namespace --set "metacontroller.enabled=$bundled" "$@"
  exit 0
fi

NODE_VALUES="$ROOT/.ironhook/local-node-values.yaml"
if [ "${KUBECONFIG:-}" = "$ROOT/.ironhook/kubeconfig" ] && [ -f "$NODE_VALUES" ]; then
  HELM="${IRONHOOK_CACHE:-$HOME/.cache/ironhook}/bin/helm"
  echo "== installing the Helm chart onto the local node (ci/local-node-values.yaml, local images)"
  bash scripts/chart-deps.sh
  started=$SECONDS
  "$HELM" upgrade --install ironhook charts/ironhook -n ironhook-system --create-namespace \
    -f charts/ironhook/ci/local-node-values.yaml -f "$NODE_VALUES" --wait --timeout 5m "$@"
  echo "   installed and ready in $((SECONDS - started))s:"
  "$KUBECTL" -n ironhook-system get pods -o wide
else
  bash scripts/setup-system-deps.sh
  npm run --silent env:up
  export KUBECONFIG="$ROOT/.ironhook/kubeconfig"
fi

WORKLOAD_KUBECONFIG="$ROOT/.ironhook/workload/kubeconfig"
POOL=demo.ironhook.dev/pool=workers
# The Cluster API half needs the workload cluster and Cluster API's manager (env:up starts them
# when ~/.cache/ironhook/bin/capi-manager is built).
stage=none
[ -f "$WORKLOAD_KUBECONFIG" ] && stage=hosts

echo
echo "== applying the demo hosts (examples/demo/hosts.yaml; their BMCs are emulators on 127.0.0.1)"
"$KUBECTL" apply -f examples/demo/hosts.yaml
applied=$SECONDS
# Seconds since the hosts were applied, for the phase lines.
since() { echo "+$((SECONDS - applied))s"; }
# When each host first reached each state, for the summary at the end ("demo-02: registering +1s, …").
declare -A reached=()
declare -a reached_order=()
record_states() {
  local host state
  while read -r host state; do
    [ -n "$host" ] && [ -n "$state" ] || continue
    if [ -z "${reached[$host/$state]:-}" ]; then
      reached[$host/$state]=$(since)
      reached_order+=("$host/$state")
    fi
  done < <("$KUBECTL" get bmh -o jsonpath='{range .items[*]}{.metadata.name} {.status.provisioning.state}{"\n"}{end}' 2>/dev/null)
}
print_phases() {
  local host key line
  for host in $("$KUBECTL" get bmh -o jsonpath='{.items[*].metadata.name}' 2>/dev/null); do
    line=""
    for key in "${reached_order[@]}"; do
      [ "${key%%/*}" = "$host" ] && line+="${line:+, }${key#*/} ${reached[$key]}"
    done
    printf '   %-10s %s\n' "$host:" "$line"
  done
}

# hosts → cluster: once the pool's hosts are available, apply examples/demo/cluster.yaml.
# cluster → kubelet: once Cluster API's machine holds a provisioned host, play that host's kubelet:
# register its Node in the workload cluster, labelled metal3.io/uuid=<host uid>.
all_available() {
  [ -n "$1" ] || return 1
  local state
  for state in $1; do
    [ "$state" = available ] || return 1
  done
}

advance() {
  case "$stage" in
    hosts)
      local states
      states="$("$KUBECTL" get bmh -l "$POOL" -o jsonpath='{.items[*].status.provisioning.state}' 2>/dev/null)"
      if all_available "$states"; then
        printf '\n== %s the worker pool is available (%s): applying examples/demo/cluster.yaml\n' "$(since)" "$POOL"
        "$KUBECTL" apply -f examples/demo/cluster.yaml
        stage=cluster
      fi
      ;;
    cluster)
      local host uid state
      read -r host uid state < <("$KUBECTL" get bmh -l "$POOL" -o jsonpath='{range .items[?(@.spec.consumerRef.kind=="Metal3Machine")]}{.metadata.name} {.metadata.uid} {.status.provisioning.state}{"\n"}{end}' 2>/dev/null | head -1) || true
      if [ "${state:-}" = provisioned ]; then
        printf '\n== %s %s is provisioned: playing its kubelet (Node %s, label metal3.io/uuid=%s, in the workload cluster)\n' "$(since)" "$host" "$host" "$uid"
        "$KUBECTL" --kubeconfig "$WORKLOAD_KUBECONFIG" create -f - <<<"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"$host\",\"labels\":{\"kubernetes.io/hostname\":\"$host\",\"metal3.io/uuid\":\"$uid\"}}}"
        stage=kubelet
      fi
      ;;
  esac
}

snapshot() {
  "$KUBECTL" get bmh -o wide 2>/dev/null
  echo
  "$KUBECTL" get hop 2>/dev/null
  [ "$stage" = none ] && return 0
  [ "$stage" = hosts ] && return 0
  echo
  "$KUBECTL" get metal3machines -o custom-columns='METAL3MACHINE:.metadata.name,HOST:.metadata.annotations.metal3\.io/BareMetalHost,PROVISIONED:.status.initialization.provisioned,PROVIDERID:.spec.providerID' 2>/dev/null
  echo
  "$KUBECTL" get machines.cluster.x-k8s.io -o custom-columns='MACHINE:.metadata.name,PHASE:.status.phase,PROVIDERID:.spec.providerID,NODEREF:.status.nodeRef.name' 2>/dev/null
  echo
  "$KUBECTL" get objectpatches 2>/dev/null
  echo
  echo "workload cluster:"
  "$KUBECTL" --kubeconfig "$WORKLOAD_KUBECONFIG" get nodes -o custom-columns='NODE:.metadata.name,UUID:.metadata.labels.metal3\.io/uuid,PROVIDERID:.spec.providerID' 2>/dev/null
}

echo
echo "== watching for ${DEMO_SECONDS}s (bmh, hop; with Cluster API also metal3machines, machines, objectpatches, workload nodes)"
last=""
end=$((SECONDS + DEMO_SECONDS))
while [ $SECONDS -lt $end ]; do
  advance
  record_states
  # Without the AGE column, so a snapshot is printed only when something changed.
  now="$(snapshot | sed -E 's/ +(AGE|[0-9]+[smhd]([0-9]+[smhd])?|<invalid>)$//')"
  if [ "$now" != "$last" ]; then
    printf '\n--- %s (%s)\n%s\n' "$(date +%T)" "$(since)" "$now"
    last="$now"
  fi
  sleep 2
done
echo
echo "== when each host reached each state (seconds after the hosts were applied, sampled every 2 s, so a state shorter than that may be missing)"
print_phases
echo
if [ -f .ironhook/logs/hooks.log ]; then
  echo "== the last hook calls upstream Metacontroller made (.ironhook/logs/hooks.log)"
  grep '"msg":"hook call"' .ironhook/logs/hooks.log | tail -n 6 || true
else
  echo "== the last hook calls upstream Metacontroller made (the hook server's pod log)"
  "$KUBECTL" -n ironhook-system logs deploy/ironhook-hooks --tail=200 | grep '"msg":"hook call"' | tail -n 6 || true
fi
echo "== why is each host where it is? (ironhook explain, docs/cli.md)"
for name in demo-01 demo-03; do
  echo "\$ ironhook explain $name"
  node bin/ironhook.js explain "$name" -n default || true
  echo
done
cat <<TXT

The environment keeps running. Try:
  export KUBECONFIG=$KUBECONFIG PATH=$(dirname "$KUBECTL"):\$PATH   # the kubectl built for this environment
  kubectl get bmh -o wide
  npx ironhook explain demo-02          # or, with bin/ on PATH: kubectl ironhook explain demo-02
  kubectl patch bmh demo-01 --type merge -p '{"spec":{"online":true}}'
  kubectl annotate bmh demo-02 reboot.metal3.io=
  npx ironhook bmc check redfish+http://127.0.0.1:18000/redfish/v1/Systems/demo-03 --credentials-secret default/demo-bmc-secret --allowed-networks 127.0.0.0/8
  curl -s 127.0.0.1:18100/hosts   # what the fake agent did
TXT
if [ "$stage" != none ]; then
  cat <<TXT
  kubectl get metal3machines,machines.cluster.x-k8s.io,objectpatches
  kubectl --kubeconfig $WORKLOAD_KUBECONFIG get nodes   # the workload cluster
  kubectl scale machinedeployment demo-workers --replicas=0   # the host is deprovisioned and released
TXT
fi
cat <<TXT
Logs: .ironhook/logs/
Stop everything with: npm run env:down
TXT
