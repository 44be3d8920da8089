#!/usr/bin/env bash
# `npm run demo`: Ironhook's main job.
#  - With KUBECONFIG pointing at a reachable cluster (other than this checkout's own local
#    environment): install the Helm chart there (Metacontroller must be installed already, or
#    pass the upstream chart; see docs/helm.md).
#  - Otherwise: start the local environment on 127.0.0.1 (etcd, kube-apiserver,
#    controller-manager, the Metacontroller stand-in, the hook server, the driver pool and the
#    emulated BMCs of examples/demo/hosts.yaml: ipmi_sim on 16230, the Redfish emulator on
#    18000, the fake agent, images on 18080), apply the demo hosts, and watch them progress.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DEMO_SECONDS="${DEMO_SECONDS:-90}"

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

KUBECTL="${IRONHOOK_CACHE:-$HOME/.cache/ironhook}/bin/kubectl"
if [ -n "${KUBECONFIG:-}" ] && [ "$KUBECONFIG" != "$ROOT/.ironhook/kubeconfig" ]; then
  command -v helm >/dev/null || bash scripts/setup-test-binaries.sh helm
  HELM="$(command -v helm || echo "${IRONHOOK_CACHE:-$HOME/.cache/ironhook}/bin/helm")"
  echo "== installing the Helm chart into $(kubectl config current-context 2>/dev/null || echo "\$KUBECONFIG")"
  if bash scripts/chart-deps.sh >/dev/null 2>&1; then
    CHART=charts/ironhook
  else
    echo "   (the upstream metacontroller-helm chart is not available offline: installing without it;"
    echo "    Metacontroller must already run in the cluster, see docs/helm.md)"
    npx tsx scripts/chart-standalone.ts .ironhook/chart-standalone/ironhook >/dev/null
    CHART=.ironhook/chart-standalone/ironhook
  fi
  "$HELM" upgrade --install ironhook "$CHART" -n ironhook-system --create-namespace --set metacontroller.enabled=false "$@"
  exit 0
fi

bash scripts/setup-system-deps.sh
npm run --silent env:up
export KUBECONFIG="$ROOT/.ironhook/kubeconfig"

echo
echo "== applying the demo hosts (examples/demo/; their BMCs are emulators on 127.0.0.1)"
"$KUBECTL" apply -f examples/demo/
echo
echo "== watching for ${DEMO_SECONDS}s (kubectl get bmh -o wide; requests: kubectl get hop)"
last=""
end=$((SECONDS + DEMO_SECONDS))
while [ $SECONDS -lt $end ]; do
  now="$("$KUBECTL" get bmh -o wide 2>/dev/null; echo; "$KUBECTL" get hop 2>/dev/null)"
  if [ "$now" != "$last" ]; then
    printf '\n--- %s\n%s\n' "$(date +%T)" "$now"
    last="$now"
  fi
  sleep 2
done
cat <<TXT

The environment keeps running. Try:
  export KUBECONFIG=$KUBECONFIG
  kubectl get bmh -o wide
  kubectl patch bmh demo-01 --type merge -p '{"spec":{"online":true}}'
  kubectl annotate bmh demo-02 reboot.metal3.io=
  npx ironhook bmc check redfish+http://127.0.0.1:18000/redfish/v1/Systems/demo-03   # BMC_USERNAME=admin BMC_PASSWORD=demo-password
  curl -s 127.0.0.1:18100/hosts   # what the fake agent did
Logs: .ironhook/logs/
Stop everything with: npm run env:down
TXT
