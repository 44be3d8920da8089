#!/usr/bin/env bash
# The full test command (README.md): installs what is missing, then runs every tier.
#   scripts/test.sh [check] [unit] [fixtures] [differential] [integration] [e2e]
#   (default: all, in that order)
# What it installs when missing: npm packages (npm ci), the Debian and PyPI test peers
# (scripts/setup-system-deps.sh), ironic-python-agent 13 with Ironhook's sandbox plugin for the
# real-agent tests (scripts/setup-ipa.sh) and the Go-built control-plane binaries
# and upstream Metal3's code as the differential tier's oracle (scripts/setup-test-binaries.sh,
# cached in ~/.cache/ironhook/bin). Before the integration and e2e tiers it builds the container
# images (npm run image, docs/images.md), which test/integration/images.test.ts runs.
set -euo pipefail
cd "$(dirname "$0")/.."
# This command installs every real peer, so a test that finds one missing fails instead of
# skipping (test/support/peers.ts).
export IRONHOOK_REQUIRE_PEERS=1

tiers=("$@")
[ ${#tiers[@]} -gt 0 ] || tiers=(check unit fixtures differential integration e2e)

needs() { for t in "${tiers[@]}"; do for n in "$@"; do [ "$t" = "$n" ] && return 0; done; done; return 1; }

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== installing npm packages"
  npm ci --no-audit --no-fund
fi
if needs integration e2e unit differential; then
  bash scripts/setup-system-deps.sh
  bash scripts/setup-ipa.sh
  bash scripts/setup-test-binaries.sh
fi
if needs integration e2e; then
  echo "== images"
  npm run --silent image
  # Cluster API's managers, which `clusterctl init` installs in the clusterctl e2e.
  if needs e2e; then npm run --silent image -- capi; fi
fi

for tier in "${tiers[@]}"; do
  echo "== ${tier}"
  case "$tier" in
    check)
      npm run --silent typecheck
      npm run --silent lint
      npm run --silent layering
      npm run --silent format:check
      npm run --silent deadcode
      ;;
    unit | fixtures | differential | integration | e2e) npx vitest run --project "$tier" ;;
    *) echo "unknown tier: $tier" >&2; exit 2 ;;
  esac
done
