#!/usr/bin/env bash
# A lent GPU's first call: the compiler's facts checked on one kernel, the campaign measured for
# MINUTES, then, with LOODIR, the picks of `smart predict` measured for what PICKS_SECONDS allows.
# With a smart binary built elsewhere (cgo, x86-64, stripped to fit the carry limit) and carried.
# A call may run 10 minutes: 6.5 minutes of campaign and PICKS_SECONDS=100 took 442 s on an H100
# (2026-11-26); bench/device/campaign.sh alone spends the rest of the lease in a second call while
# the machine is warm. Usage, from the repository root on the GPU machine:
#   SMART=bin/smart bench/device/lease.sh MINUTES [LOODIR]
# LOODIR holds the leave-one-stencil-out runtime models of bench/device/loo-models.sh (carry it);
# without it no picks are measured. Everything comes back under $OUT, seven files (a lent
# machine returns at most 8): kattr.tgz (the registers and local memory the driver reports for
# the variant the model misses most, also printed: expect about 40 registers and 640 bytes),
# campaign.tgz with call.json, call.log, gpu.txt and build-times.csv (bench/device/campaign.sh),
# and picks.tgz (bench/device/picks.sh; PICKS names it otherwise).
# Extract campaign.tgz with
# `tar xzf campaign.tgz -C data/measured` and commit it.
# BACKEND=sim GPU=h100-sxm runs it without a GPU (the analytic model; the compiler's facts need a
# GPU and are skipped); MANIFEST and DATASET go to campaign.sh.
set -uo pipefail
minutes=${1:?usage: bench/device/lease.sh MINUTES [LOODIR]}
loo=${2:-}
smart=${SMART:-bin/smart}
out=${OUT:-/tmp/out}
backend=${BACKEND:-cuda}
here=$(dirname "$0")
mkdir -p "$out"
export OUT=$out SMART=$smart BACKEND=$backend
start=$(date +%s)
if [ "$backend" = cuda ]; then
  export PATH=/usr/local/cuda/bin:$PATH
  echo "== the compiler's facts of one kernel"
  timeout -s INT 150 "$smart" bench data/stencils/j2d17pt.json \
    --setting ST_CM_RT_PR:bx=256,by=1,shared=0,const=1,sd=2,sb=1,ufx=2,ufy=1,cmx=8,cmy=1 \
    --out /tmp/kattr --build-dir /tmp/kattr-build 2>&1 | grep -v '^bench \[' | tail -4
  python3 - /tmp/kattr/rows.csv <<'PY'
import csv, sys
try:
    rows = list(csv.DictReader(open(sys.argv[1])))
except OSError as e:
    sys.exit(f"kattr: no rows ({e})")
for r in rows:
    print(f"kattr: {r['oc']} status {r['status']} time {r['time_ms']} ms regs {r.get('regs') or '-'} local_bytes {r.get('local_bytes') or '-'}")
PY
  [ -d /tmp/kattr ] && tar czf "$out/kattr.tgz" -C /tmp kattr
fi
echo "== the campaign, $minutes minutes"
bash "$here/campaign.sh" "$minutes"
rc=$?
if [ -n "$loo" ]; then
  limit=${PICKS_SECONDS:-150}
  echo "== the picks of smart predict, at most $limit s"
  # picks.sh leaves $PICKS.tgz when it finishes; stopped early, what it measured is packed here.
  picks=${PICKS:-picks}
  timeout -s INT "$limit" bash "$here/picks.sh" "$loo" data/stencils/*.json
  [ -f "$out/$picks.tgz" ] || { [ -d "/tmp/$picks" ] && tar czf "$out/$picks.tgz" -C /tmp "$picks"; }
fi
echo "== done in $(( $(date +%s) - start )) s; under $out:"
ls "$out"
exit $rc
