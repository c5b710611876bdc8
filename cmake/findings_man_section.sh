#!/bin/sh
# The FINDING CODES section of nodeprobe-findings(1), written for help2man's
# --include from the binary's own finding table (`nodeprobe findings`), so
# the page lists exactly the codes, severities and fixes the binary has.
#   findings_man_section.sh NODEPROBE OUTPUT
set -eu
{
  echo "[FINDING CODES]"
  echo "Each code with its severity (\"varies\": set by the rule in the JSON output), the"
  echo "probe or stage that emits it, what it means, and what to do."
  "$1" findings | awk -F'\t' '{
    gsub(/\\/, "\\e")
    printf ".TP\n\\fB%s\\fR (%s; %s)\n%s.\n.br\nFix: %s.\n", $1, $2, $3, $4, $5
  }'
} >"$2"
