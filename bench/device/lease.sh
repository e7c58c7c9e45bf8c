#!/usr/bin/env bash
# A lent GPU's first call: the campaign measured for MINUTES, then, with LOODIR, the picks of
# `smart predict` measured for what PICKS_SECONDS allows; with KATTR=1 first, the compiler's
# facts checked on one kernel (20-40 s; expect about 40 registers and 640 bytes). With a smart binary built elsewhere and carried (bench/device/pack.sh:
# bin/smart.gz). Usage, from the repository root on the GPU machine:
#   SMART=bin/smart.gz bench/device/lease.sh MINUTES [LOODIR]
# Every step ends by DEADLINE seconds from the start (560 by default: a call may run 600 s), each
# packing what it measured under $OUT as it goes, so a call the device tool ends early keeps
# them. LOODIR holds the leave-one-stencil-out runtime models of bench/device/loo-models.sh
# (carry it); without it, or on a card that is not an H100 (the picks are the H100's), no picks
# are measured. Back under $OUT (a lent machine returns at most 8 files): campaign.tgz,
# call.json, call.log, gpu.txt and build-times.csv (bench/device/campaign.sh), picks.tgz
# (bench/device/picks.sh; PICKS names it otherwise) and with KATTR=1 kattr.tgz. Extract
# campaign.tgz with `tar xzf campaign.tgz -C data/measured` and commit it.
# BACKEND=sim GPU=h100-sxm runs it without a GPU (the analytic model; the compiler's facts need a
# GPU and are skipped); MANIFEST and DATASET go to campaign.sh.
set -uo pipefail
minutes=${1:?usage: bench/device/lease.sh MINUTES [LOODIR]}
loo=${2:-}
here=$(dirname "$0")
# shellcheck source=bench/device/lib.sh
. "$here/lib.sh"
device_setup
start=$(date +%s)
export OUT=$out SMART=$smart BACKEND=$backend DEADLINE_AT=$((start + ${DEADLINE:-560}))
card=simulated
if [ "$backend" = cuda ]; then
  export PATH=/usr/local/cuda/bin:$PATH
  card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
fi
kattr_limit=$(seconds_left 420 150)
if [ "$backend" = cuda ] && [ "${KATTR:-0}" = 1 ] && [ "$kattr_limit" -gt 0 ]; then
  echo "== the compiler's facts of one kernel"
  timeout -k 10 -s INT "$kattr_limit" "$smart" bench data/stencils/j2d17pt.json \
    --setting ST_CM_RT_PR:bx=256,by=1,shared=0,const=1,sd=2,sb=1,ufx=2,ufy=1,cmx=8,cmy=1 \
    --out /tmp/kattr --build-dir /tmp/kattr-build >/tmp/kattr.log 2>&1
  grep -v '^bench \[' /tmp/kattr.log | tail -4
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
case $card in
*H100* | simulated) ;;
*)
  [ -n "$loo" ] && echo "== no picks: they are the H100's predictions, and this card is the $card"
  loo=
  ;;
esac
picks_budget=0
if [ -n "$loo" ]; then
  picks_budget=${PICKS_SECONDS:-150}
fi
echo "== the campaign on the $card, $minutes minutes (within the deadline)"
# The campaign leaves the picks their seconds.
DEADLINE_AT=$((DEADLINE_AT - picks_budget)) bash "$here/campaign.sh" "$minutes"
rc=$?
limit=$(seconds_left 5 "$picks_budget")
if [ -n "$loo" ] && [ "$limit" -le 0 ]; then
  echo "== no picks: no time left before the deadline"
elif [ -n "$loo" ]; then
  echo "== the picks of smart predict, at most $limit s"
  # picks.sh packs $PICKS.tgz after each stencil; stopped early, what it measured is there.
  timeout -k 10 -s INT "$limit" bash "$here/picks.sh" "$loo" data/stencils/*.json
fi
echo "== done in $(($(date +%s) - start)) s; under $out:"
ls "$out"
exit $rc
