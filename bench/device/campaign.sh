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
# another manifest, DATASET another data set directory, and PER_UNIT the variants a translation
# unit (--per-unit). With cuda it also leaves build-times.csv: each translation unit this call
# compiled, when its compile began and ended (the build cache's source and cubin times), its
# variants and source bytes, and prints how long they took: where the GPU waited on which units.
# At most 8 files come back from a lent machine's $OUT: keep the count.
set -uo pipefail
minutes=${1:?usage: bench/device/campaign.sh MINUTES}
smart=${SMART:-bin/smart}
out=${OUT:-/tmp/out}
backend=${BACKEND:-cuda}
mkdir -p "$out"
args=(--backend "$backend" --time "${minutes}m" --manifest "${MANIFEST:-data/campaign}" --json)
[ -n "${GPU:-}" ] && args+=(--gpu "$GPU")
[ -n "${DATASET:-}" ] && args+=(--out "$DATASET")
[ -n "${PER_UNIT:-}" ] && args+=(--per-unit "$PER_UNIT")
if [ "$backend" = cuda ]; then
  export PATH=/usr/local/cuda/bin:$PATH
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$out/gpu.txt"
  nvcc --version | tail -1
  args+=(--build-dir /tmp/smart-build)
fi
# --time stops the call cleanly (the variants in flight are measured again next time); the outer
# timeout only guards against a call that does not stop.
limit=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 + 120 }')
began=$(date +%s)
timeout -s INT "$limit" "$smart" campaign run "${args[@]}" >"$out/call.json" 2>"$out/call.log"
rc=$?
if [ "$backend" = cuda ]; then
  python3 - /tmp/smart-build "$began" "$out/build-times.csv" <<'PY'
import csv, glob, os, statistics, sys
build, began, path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
rows = []
for cubin in glob.glob(os.path.join(build, "*.cubin")):
    src = cubin[:-len(".cubin")] + ".cu"
    if not os.path.exists(src) or os.path.getmtime(cubin) < began:
        continue
    text = open(src, errors="replace").read()
    start, end = os.path.getmtime(src), os.path.getmtime(cubin)
    rows.append((round(start - began, 2), round(end - began, 2), round(end - start, 2), text.count("\nnamespace smart_"), len(text)))
rows.sort()
with open(path, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["start_s", "end_s", "seconds", "variants", "source_bytes"])
    w.writerows(rows)
if rows:
    secs = sorted(r[2] for r in rows)
    print(f"build times: {len(rows)} units, {statistics.median(secs):.1f} s median, {secs[int(0.9 * (len(secs) - 1))]:.1f} s 90th percentile, {secs[-1]:.1f} s longest; {sum(r[3] for r in rows)} variants")
PY
fi
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
