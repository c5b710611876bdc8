#!/usr/bin/env bash
# nodeprobe's storage probe vs fio on the same directory, same shape,
# run alternately.
#
#   bench/storage_vs_fio.sh [BUILD_DIR] [DIR] [REPS] [WRITERS] [SHARD_MB]
#
# Same sizes and flags on both sides: WRITERS files of SHARD_MB each,
# 1 MiB calls, one call in flight per writer (fio's psync engine, depth 1),
# O_DIRECT, and the write phase ending with each file's fsync (fio
# end_fsync=1). Phases: sequential write, sequential read, random read of
# whole blocks each once (fio's random map). fio's read jobs read the files
# its write job made; nodeprobe reads its own. Prints each phase's median
# in Gb/s and the ratio nodeprobe/fio (target >= 0.9: the probe must not
# under-report a filesystem). DIR defaults to a fresh directory under
# /var/tmp (removed afterwards).
set -euo pipefail
BUILD="${1:-build}"
DIR="${2:-}"
REPS="${3:-3}"
WRITERS="${4:-4}"
SHARD_MB="${5:-512}"
NP="$BUILD/bin/nodeprobe"
command -v fio >/dev/null || { echo "fio not installed (apt-get install fio)"; exit 2; }
[ -x "$NP" ] || { echo "no $NP: build first"; exit 2; }

WORK=$(mktemp -d /var/tmp/np-storage-bench.XXXXXX)
[ -n "$DIR" ] || DIR="$WORK/dir"
mkdir -p "$DIR"
cleanup() {
  rm -rf "$WORK"
  rm -f "$DIR"/np-fio.*
}
trap cleanup EXIT

cat > "$WORK/profile.yaml" <<EOF
storage:
  paths: [$DIR]
  writers: $WRITERS
  shard_mb: $SHARD_MB
  block_kb: 1024
  metadata_files: 0
EOF

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# fio_phase RW -> Gb/s over all jobs
fio_phase() {
  local field=read
  [ "$1" = write ] && field=write
  fio --name=np-fio --directory="$DIR" --rw="$1" --bs=1M --size="${SHARD_MB}M" \
      --numjobs="$WRITERS" --direct=1 --ioengine=psync --iodepth=1 --end_fsync=1 --fallocate=none \
      --group_reporting --output-format=json 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin)['jobs'][0]['$field']['bw_bytes']*8/1e9)"
}

np_w=(); np_r=(); np_x=(); fio_w=(); fio_r=(); fio_x=()
for _ in $(seq "$REPS"); do
  read -r w r x < <("$NP" run --stage single-node --probe storage --profile "$WORK/profile.yaml" \
      --force --format json | python3 -c '
import json, sys
p = json.load(sys.stdin)["results"][0]["storage"]["paths"][0]
print(p["write_gbps"], p["read_seq_gbps"], p["read_random_gbps"])')
  np_w+=("$w"); np_r+=("$r"); np_x+=("$x")
  rm -f "$DIR"/np-fio.*
  fio_w+=("$(fio_phase write)")
  fio_r+=("$(fio_phase read)")
  fio_x+=("$(fio_phase randread)")
done

fs=$(df --output=fstype "$DIR" | tail -1)
echo "storage vs fio: $DIR ($fs), $WRITERS writers x $SHARD_MB MiB, 1 MiB calls, O_DIRECT, $REPS reps (medians)"
printf '%-18s %12s %12s %8s\n' phase nodeprobe fio ratio
row() {
  local a b
  a=$(printf '%s\n' "${@:2:$REPS}" | median)
  b=$(printf '%s\n' "${@:$((REPS + 2))}" | median)
  printf '%-18s %9.2f Gb/s %7.2f Gb/s %8.2f\n' "$1" "$a" "$b" "$(python3 -c "print($a/$b if $b else 0)")"
}
row "sequential write" "${np_w[@]}" "${fio_w[@]}"
row "sequential read" "${np_r[@]}" "${fio_r[@]}"
row "random read" "${np_x[@]}" "${fio_x[@]}"
