#!/usr/bin/env bash
# Fails on an #include that runs up the layers (DESIGN.md's parts):
#   platform -> probes -> tasks -> agent, coordinator -> cli
# with controlplane beside tasks (it may use platform, never probes' results
# or anything above). tests/, bench/ and hwtests/ may include anything.
# Each layer lists the folders it may include besides itself; proto's
# generated headers (nodeprobe/v1/) and third-party headers are below all.
#   scripts/check_layers.sh    prints each violation as FILE:LINE: include, exit 1
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A allowed=(
  [platform]=""
  [probes]="platform"
  [controlplane]="platform"
  [tasks]="platform probes"
  [agent]="platform probes tasks controlplane"
  [coordinator]="platform probes tasks controlplane"
  [cli]="platform probes tasks controlplane agent coordinator"
)
status=0
for layer in "${!allowed[@]}"; do
  [ -d "$layer" ] || continue
  ok="$layer ${allowed[$layer]}"
  while IFS=: read -r file line text; do
    target=$(sed -E 's/^#include "([^/"]+)\/.*/\1/' <<<"$text")
    # Only the project's own folders have a layer; absl/, gtest/, the
    # generated nodeprobe/v1/ and other libraries are below everything.
    case " ${!allowed[*]} tests " in *" $target "*) ;; *) continue ;; esac
    case " $ok " in *" $target "*) continue ;; esac
    # Tests beside the code may use the shared test helpers.
    if [ "$target" = tests ] && [[ "$file" == *_test.cc || "$file" == */testing/* ]]; then continue; fi
    echo "$file:$line: $text  ($layer may include: ${allowed[$layer]:-nothing above it})"
    status=1
  done < <(grep -rn --include='*.h' --include='*.cc' -E '^#include "[a-z_]+/' "$layer")
done
[ "$status" = 0 ] && echo "check_layers.sh: every include goes down the layers" >&2
exit "$status"
