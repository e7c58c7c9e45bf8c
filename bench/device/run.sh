#!/usr/bin/env bash
# Measures stencils on a lent GPU machine with a smart binary built elsewhere (cgo, x86-64) and
# carried along. Usage, from the repository root on the GPU machine:
#   SMART=bin/smart.gz bench/device/run.sh NAME SECONDS [smart bench flags and stencil files...]
# It checks the toolchain with a small smoke run, then benchmarks into /tmp/NAME (resuming the
# data set carried in bench/device/carry/NAME.tgz when there is one) until `smart bench --time`
# stops it cleanly after SECONDS, and leaves the data set as $OUT/NAME.tgz.
set -uo pipefail
name=$1 limit=$2
shift 2
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}
. "$(dirname "$0")/lib.sh"
smart=$(smart_binary) || { echo "cannot unpack ${SMART:-the smart binary}"; exit 1; }
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
nvcc --version | tail -1
if [ -f "bench/device/carry/$name.tgz" ] && [ ! -d "/tmp/$name" ]; then
  tar xzf "bench/device/carry/$name.tgz" -C /tmp
fi
if [ ! -f /tmp/smoke/rows.csv ] && [ -z "${SKIP_SMOKE:-}" ]; then
  # Smoke: every OC once on a small 2-D stencil must give some ok rows before the long run.
  $smart bench data/stencils/j2d5pt.json --samples 1 --seed 99 --out /tmp/smoke --build-dir /tmp/build 2>&1 | tail -8
  ok=$(awk -F, 'NR>1' /tmp/smoke/rows.csv | grep -c ',ok,' || true)
  echo "smoke: $ok ok rows"
  [ "$ok" -gt 0 ] || { tar czf "$out/smoke.tgz" -C /tmp smoke; exit 1; }
fi
# --time stops between batches; the outer timeout only guards against a stuck run.
timeout -s INT $((limit + 150)) $smart bench "$@" --time "${limit}s" --out "/tmp/$name" --build-dir /tmp/build 2>&1 | grep -v '^bench \[\|^drawing settings \[' | tail -20
tar czf "$out/$name.tgz" -C /tmp "$name"
