#!/usr/bin/env bash
# Fails on an #include that runs up the layers (DESIGN.md's parts):
#   platform -> probes -> tasks -> agent, coordinator -> cli
# with controlplane beside tasks (it may use platform, never probes' results
# or anything above). tests/, bench/ and hwtests/ may include anything; a
# test beside the code may include the shared test helpers (tests/).
# Each layer lists the folders it may include besides itself; proto's
# generated headers (nodeprobe/v1/) and other libraries are below all.
#   scripts/check_layers.sh    prints each violation as FILE:LINE: include, exit 1
set -euo pipefail
cd "$(dirname "$0")/.."
layers="platform probes controlplane tasks agent coordinator cli"
# shellcheck disable=SC2086
grep -rn --include='*.h' --include='*.cc' -E '^#include "[a-z_]+/' $layers |
awk -F: '
  BEGIN {
    allowed["platform"] = ""
    allowed["probes"] = "platform"
    allowed["controlplane"] = "platform"
    allowed["tasks"] = "platform probes"
    allowed["agent"] = "platform probes tasks controlplane"
    allowed["coordinator"] = "platform probes tasks controlplane"
    allowed["cli"] = "platform probes tasks controlplane agent coordinator"
    bad = 0
  }
  {
    file = $1; line = $2; text = substr($0, length(file) + length(line) + 3)
    split(file, parts, "/"); layer = parts[1]
    target = text; sub(/^#include "/, "", target); sub(/\/.*/, "", target)
    if (!(target in allowed) && target != "tests") next   # a library, or proto
    if (target == layer || index(" " allowed[layer] " ", " " target " ")) next
    if (target == "tests" && file ~ /_test\.cc$/) next
    printf "%s:%s: %s  (%s may include: %s)\n", file, line, text, layer,
           allowed[layer] == "" ? "nothing above it" : allowed[layer]
    bad = 1
  }
  END {
    if (!bad) print "check_layers.sh: every include goes down the layers" > "/dev/stderr"
    exit bad
  }'
