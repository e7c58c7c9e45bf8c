#!/usr/bin/env bash
# Measures the campaign (data/campaign, see `smart campaign --help`) on a lent GPU for MINUTES,
# with a smart binary built elsewhere (cgo, x86-64) and carried. Usage, from the repository root
# on the GPU machine:
#   SMART=bin/smart bench/device/campaign.sh MINUTES
# It resumes the GPU's campaign data set, which the working tree carries as committed
# (data/measured/GPU/campaign), measures the manifest's next unmeasured stencils until MINUTES
# have passed (compiling included), logs the call in the data set's calls.csv, and leaves the data
# set as $OUT/campaign.tgz (extract it with `tar xzf campaign.tgz -C data/measured` and commit),
# with the call's summary (call.json), its log (call.log) and the card's state (gpu.txt).
# BACKEND=sim GPU=h100-sxm runs it without a GPU (the analytic model), to try it; MANIFEST names
# another manifest and DATASET another data set directory.
set -uo pipefail
minutes=${1:?usage: bench/device/campaign.sh MINUTES}
smart=${SMART:-bin/smart}
out=${OUT:-/tmp/out}
backend=${BACKEND:-cuda}
mkdir -p "$out"
args=(--backend "$backend" --time "${minutes}m" --manifest "${MANIFEST:-data/campaign}" --json)
[ -n "${GPU:-}" ] && args+=(--gpu "$GPU")
[ -n "${DATASET:-}" ] && args+=(--out "$DATASET")
if [ "$backend" = cuda ]; then
  export PATH=/usr/local/cuda/bin:$PATH
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$out/gpu.txt"
  nvcc --version | tail -1
  args+=(--build-dir /tmp/smart-build)
fi
# --time stops the call cleanly (the variants in flight are measured again next time); the outer
# timeout only guards against a call that does not stop.
limit=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 + 120 }')
timeout -s INT "$limit" "$smart" campaign run "${args[@]}" >"$out/call.json" 2>"$out/call.log"
rc=$?
grep -v '^campaign \[' "$out/call.log" | tail -20
cat "$out/call.json"
dir=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["out"])' "$out/call.json" 2>/dev/null)
if [ -n "$dir" ] && [ -d "$dir" ]; then
  parent=$(dirname "$dir")
  tar czf "$out/campaign.tgz" -C "$(dirname "$parent")" "$(basename "$parent")/$(basename "$dir")"
  "$smart" campaign status --manifest "${MANIFEST:-data/campaign}" "$dir" | tail -8
  # Rows of format 3 carry the compiler's registers and local memory per thread: say how many.
  python3 - "$dir" <<'PY'
import csv, glob, sys
rows = [r for f in glob.glob(sys.argv[1] + "/**/rows.csv", recursive=True) for r in csv.DictReader(open(f))]
ok = [r for r in rows if r.get("status") == "ok"]
known = [r for r in ok if r.get("regs")]
spills = [r for r in known if int(r.get("local_bytes") or 0) > 0]
print(f"compiler facts: {len(known)} of {len(ok)} ok rows have regs; {len(spills)} use local memory")
PY
fi
exit $rc
