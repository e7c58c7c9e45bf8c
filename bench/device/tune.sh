#!/usr/bin/env bash
# Tunes one stencil on a lent GPU with several methods and seeds, one run after another (the GPU
# is timed by one run at a time), with a smart binary built elsewhere (cgo, x86-64) and carried.
# Usage, from the repository root on the GPU machine:
#   SMART=.smartbin/smart bench/device/tune.sh STENCIL-FILE SECONDS METHOD:SEED...
# Each run gets SECONDS of wall time (compiles included) and at most 400 evaluations, its own
# empty nvcc build directory (no run reuses another's compiles), and leaves METHOD-sSEED.json,
# METHOD-sSEED.csv (the trace) and METHOD-sSEED.cu (the winner) in $OUT; a table comes last.
set -uo pipefail
stencil=$1 limit=$2
shift 2
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}
smart=${SMART:-bin/smart}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
nvcc --version | tail -1
for run in "$@"; do
  m=${run%%:*} s=${run##*:}
  timeout -s INT $((limit + 120)) $smart tune "$stencil" --evaluator cuda --method "$m" --batch 4 \
    --budget 400 --time "${limit}s" --seed "$s" --build-dir "/tmp/build-$m-$s" --json \
    --trace "$out/$m-s$s.csv" --emit "$out/$m-s$s.cu" >"$out/$m-s$s.json" 2>"$out/$m-s$s.log"
  echo "$m seed $s: exit $?"
done
printf '%-10s %4s %6s %10s %-10s %8s\n' method seed evals best_ms oc over_ms
for f in "$out"/*.json; do
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%-10s %4d %6d %10.4f %-10s %8.2f" % (d["method"], d["seed"], d["evaluations"], d["best_time_ms"], d["best_oc"], d["overhead_ms_per_evaluation"]))' "$f" 2>/dev/null || echo "$f: no result"
done
