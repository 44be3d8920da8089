#!/usr/bin/env bash
# Renders docs/architecture-graph.svg: the product tree's imports (domain/, platform/, hooks/,
# drivers/), collapsed to one level below each root so a controller folder or a driver is one node.
# Needs graphviz's `dot` (Debian: graphviz). The dot source is written next to it so a change
# shows up as a readable diff.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v dot >/dev/null || { echo "dependency-graph: needs graphviz's dot (apt-get install graphviz)" >&2; exit 1; }
npx depcruise --config .dependency-cruiser.cjs \
  --include-only '^(domain|platform|hooks|drivers)/' \
  --collapse '^(domain|platform|hooks|drivers)/[^/]+' \
  --output-type dot domain platform hooks drivers >docs/architecture-graph.dot
dot -Tsvg docs/architecture-graph.dot >docs/architecture-graph.svg
echo "wrote docs/architecture-graph.dot and docs/architecture-graph.svg"
