#!/usr/bin/env bash
# Prints the agent's manifests for each node named: a Certificate whose CN
# is the node and a DaemonSet pinned to it (see agent.yaml.in for why one
# per node). Typical use:
#   kubectl get nodes -l nvidia.com/gpu.present=true -o name | cut -d/ -f2 |
#     xargs deploy/kubernetes/render-agents.sh | kubectl apply -f -
set -euo pipefail
if [ $# -eq 0 ]; then
  echo "usage: render-agents.sh NODE..." >&2
  exit 2
fi
template="$(dirname "${BASH_SOURCE[0]}")/agent.yaml.in"
for node in "$@"; do
  # Kubernetes node names are DNS-1123 subdomains; refuse anything else
  # rather than write it into YAML and object names.
  if ! [[ "$node" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ ]] || [ ${#node} -gt 63 ]; then
    echo "render-agents.sh: '$node' is not a Kubernetes node name (lower-case DNS-1123, at most 63 characters here)" >&2
    exit 2
  fi
  echo "---"
  sed "s/@NODE@/$node/g" "$template"
done
