#!/usr/bin/env bash
# The evidence bundle's memory against the size of the run it bundles.
# A fleet's run (NODES node reports, each a pcie result with 60 evidence
# values of 200 bytes) is written as JSON; `nodeprobe evidence --from-json`
# bundles it under /usr/bin/time, beside `python3 -m json.tool` reading and
# printing the same file (the reference: a plain parse and print).
# Prints the JSON's size, each peak RSS and its ratio to the JSON.
# Usage: bench/evidence_memory.sh [BUILD] [NODES...]   (default: build 600)
set -euo pipefail
build=${1:-build}
shift || true
sizes=("${@:-600}")
bin="$build/bin/nodeprobe"
[[ -x $bin ]] || { echo "no $bin: build first (./scripts/test.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
printf '%-7s %9s %14s %8s %16s %8s\n' nodes json_MB evidence_RSS_MB ratio json.tool_RSS_MB ratio
for n in "${sizes[@]}"; do
  python3 - "$n" > "$work/run.json" <<'PY'
import json, sys
n = int(sys.argv[1])
ev = {f"k{i}": "x" * 200 for i in range(60)}
reports = [{"node": f"gpu{i:04d}", "verdict": "PASS",
            "results": [{"probe": "pcie", "verdict": "PASS", "evidence": ev}]}
           for i in range(n)]
json.dump({"runId": "r-bench", "stage": "TWO_NODE", "state": "done", "verdict": "PASS",
           "nodes": [r["node"] for r in reports], "nodeReports": reports}, sys.stdout)
PY
  mb=$(( $(stat -c %s "$work/run.json") / 1048576 ))
  rm -f "$work/b.tgz"
  ours=$(rss "$bin" evidence --from-json "$work/run.json" --out "$work/b.tgz")
  ref=$(rss python3 -m json.tool "$work/run.json")
  awk -v n="$n" -v mb="$mb" -v o="$ours" -v r="$ref" 'BEGIN {
    printf "%-7d %9d %14.0f %8.1f %16.0f %8.1f\n", n, mb, o/1024, o/1024/(mb?mb:1), r/1024, r/1024/(mb?mb:1) }'
done
