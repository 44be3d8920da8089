#!/usr/bin/env bash
# The full test command (README.md): installs what is missing, then runs every tier.
# Tiers can be chosen: scripts/test.sh [check] [unit] [fixtures] [e2e]
set -euo pipefail
cd "$(dirname "$0")/.."

tiers=("$@")
[ ${#tiers[@]} -gt 0 ] || tiers=(check unit fixtures)

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== installing npm packages"
  npm ci --no-audit --no-fund
fi

for tier in "${tiers[@]}"; do
  echo "== ${tier}"
  case "$tier" in
    check) npm run --silent typecheck && npm run --silent lint && npm run --silent layering ;;
    unit) npx vitest run --project unit ;;
    fixtures) npx vitest run --project fixtures ;;
    e2e) npx vitest run --project e2e ;;
    *) echo "unknown tier: $tier" >&2; exit 2 ;;
  esac
done
