#!/usr/bin/env bash
# check_unit_exposure.sh UNIT_FILE MAX (0..100, systemd's exposure x 10):
# fails when `systemd-analyze security --offline` rates the unit above MAX,
# printing what it still allows. Exit 77 (CTest: skipped) without systemd.
set -uo pipefail
unit="$1"; max="$2"
command -v systemd-analyze >/dev/null || { echo "systemd-analyze not installed"; exit 77; }
cd "$(dirname "$unit")" || exit 1
out=$(systemd-analyze security --offline=yes --threshold="$max" "$(basename "$unit")" 2>&1)
rc=$?
echo "$out" | tail -1
if [ "$rc" -ne 0 ]; then
  echo "$out" | grep "✗"
  echo "$(basename "$unit") is above its exposure bar $max/100: tighten it or say why in the unit"
fi
exit "$rc"
