#!/usr/bin/env bash
# The Kubernetes manifests validate offline against the API's schemas
# (tests/deploy/k8s/validate.mjs), the per-node agent manifests as
# render-agents.sh writes them included, and the validator rejects each
# known-bad manifest in tests/deploy/k8s/invalid/. Exit 77 (skip) when the
# validator's npm packages are not installed (scripts/test.sh installs them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tool="$root/tests/deploy/k8s"
if ! command -v node >/dev/null || [ ! -d "$tool/node_modules/kubernetes-models" ]; then
  echo "SKIP: the validator is not installed (node and 'npm ci' in tests/deploy/k8s; scripts/test.sh does both)"
  exit 77
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$root/deploy/kubernetes/render-agents.sh" gpu-node-0 dgx-h100-017.cluster.local > "$work/agents.yaml"
# Two nodes: two Certificates and two DaemonSets, each with its own name.
[ "$(grep -c '^kind: Certificate' "$work/agents.yaml")" = 2 ] || { echo "FAIL: render-agents.sh did not write one Certificate per node"; exit 1; }
if "$root/deploy/kubernetes/render-agents.sh" 'Node_1' > /dev/null 2>&1; then
  echo "FAIL: render-agents.sh accepted a name that is not a node name"; exit 1
fi
node "$tool/validate.mjs" "$root"/deploy/kubernetes/*.yaml "$work/agents.yaml"
node "$tool/validate.mjs" --expect-invalid "$tool"/invalid/*.yaml
