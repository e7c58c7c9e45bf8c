#!/usr/bin/env bash
# Tunes one stencil on a lent GPU with several methods and seeds, one run after another (the GPU
# is timed by one run at a time), with a smart binary built elsewhere (cgo, x86-64) and carried.
# Usage, from the repository root on the GPU machine:
#   SMART=bin/smart.gz bench/device/tune.sh STENCIL-FILE SECONDS METHOD:SEED...
# Each run gets SECONDS of wall time (compiles included) and at most 400 evaluations, its own
# empty nvcc build directory (no run reuses another's compiles), and writes METHOD-sSEED.json,
# METHOD-sSEED.csv (the trace), METHOD-sSEED.cu (the winner) and METHOD-sSEED.log, packed as
# $OUT/tune.tgz (the device tool returns only a few loose files); a table comes last.
# TUNE_FLAGS adds flags to every run (e.g. "--classifier embedded") and TAG prefixes its files.
set -uo pipefail
stencil=$1 limit=$2
shift 2
export PATH=/usr/local/cuda/bin:$PATH
out=/tmp/tune-out
. "$(dirname "$0")/lib.sh"
smart=$(smart_binary) || { echo "cannot unpack ${SMART:-the smart binary}"; exit 1; }
mkdir -p "$out" "${OUT:-/tmp/out}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
nvcc --version | tail -1
for run in "$@"; do
  m=${run%%:*} s=${run##*:}
  f="$out/${TAG:+$TAG-}$m-s$s"
  batch=""
  case $m in random | bayes) batch="--batch 4" ;; esac # the pipeline runs 4 per generation itself
  # shellcheck disable=SC2086 # TUNE_FLAGS and batch are lists of flags
  timeout -s INT $((limit + 120)) $smart tune "$stencil" --evaluator cuda --method "$m" $batch \
    --budget 400 --time "${limit}s" --seed "$s" --build-dir "/tmp/build-${TAG:+$TAG-}$m-$s" --json \
    --trace "$f.csv" --emit "$f.cu" ${TUNE_FLAGS:-} >"$f.json" 2>"$f.log"
  echo "${TAG:+$TAG }$m seed $s: exit $?"
done
tar czf "${OUT:-/tmp/out}/tune.tgz" -C "$out" .
printf '%-24s %6s %10s %-14s %8s\n' run evals best_ms oc over_ms
for f in "$out"/*.json; do
  python3 -c 'import json,os,sys; d=json.load(open(sys.argv[1])); print("%-24s %6d %10.4f %-14s %8.2f" % (os.path.basename(sys.argv[1])[:-5], d["evaluations"], d["best_time_ms"], d["best_oc"], d["overhead_ms_per_evaluation"]))' "$f" 2>/dev/null || echo "$f: no result"
done
