#!/usr/bin/env bash
# Measures the campaign (data/campaign, see `smart campaign --help`) on a lent GPU for MINUTES,
# with a smart binary built elsewhere (cgo, x86-64) and carried. Usage, from the repository root
# on the GPU machine:
#   SMART=bin/smart.gz bench/device/campaign.sh MINUTES
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
# At most 8 files come back from a lent machine's $OUT: keep the count. The device tool ends a
# call at its limit (600 s, or the device time left), and what is not under $OUT then is lost:
# the call is held to CALL_SECONDS (570) with the packing, campaign.tgz is rewritten every minute
# while it runs, and an interrupt packs before it exits. DEADLINE_AT (epoch seconds, set by
# lease.sh) shortens it to end in time.
set -uo pipefail
minutes=${1:?usage: bench/device/campaign.sh MINUTES}
here=$(dirname "$0")
# shellcheck source=bench/device/lib.sh
. "$here/lib.sh"
device_setup
# The call's seconds: MINUTES, within CALL_SECONDS and the deadline, less a minute for the
# compiles in flight to be left and the data set packed.
cap=$(seconds_left 0 "${CALL_SECONDS:-570}")
secs=$(awk -v m="$minutes" -v c="$cap" 'BEGIN { s = int(m * 60); if (s > c - 60) s = c - 60; if (s < 0) s = 0; print s }')
[ "$secs" -gt 0 ] || { echo "no time left for the campaign (${cap} s)"; exit 1; }
args=(--backend "$backend" --time "${secs}s" --manifest "${MANIFEST:-data/campaign}" --json)
[ -n "${GPU:-}" ] && args+=(--gpu "$GPU")
[ -n "${DATASET:-}" ] && args+=(--out "$DATASET")
[ -n "${PER_UNIT:-}" ] && args+=(--per-unit "$PER_UNIT")
if [ "$backend" = cuda ]; then
  export PATH=/usr/local/cuda/bin:$PATH
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv >"$out/gpu.txt"
  cat "$out/gpu.txt"
  nvcc --version | tail -1
  args+=(--build-dir /tmp/smart-build)
fi
# pack leaves the data sets DIR... (each .../GPU/campaign) as campaign.tgz, whole or not at all.
pack() {
  local d members=()
  for d in "$@"; do
    [ -d "$d" ] && members+=("$(basename "$(dirname "$d")")/$(basename "$d")")
  done
  [ ${#members[@]} -gt 0 ] || return 0
  local part=$out/.campaign.tgz.$BASHPID.part # the packer's and the last pack's apart
  tar czf "$part" -C "$(dirname "$(dirname "$1")")" "${members[@]}" && mv "$part" "$out/campaign.tgz"
}
# The data set the call resumes: DATASET, else this card's (GPU, or the card nvidia-smi names),
# else every GPU's campaign.
gpu_dir=$(card_dir "${GPU:-}")
if [ -n "${DATASET:-}" ]; then
  sets=("$DATASET")
elif [ -n "$gpu_dir" ]; then
  sets=("data/measured/$gpu_dir/campaign")
else
  sets=(data/measured/*/campaign)
fi
# The packer ends between packs: a pack it began finishes before the last one starts.
( trap 'exit 0' TERM; while :; do sleep 60 & wait $!; pack "${sets[@]}"; done ) >/dev/null 2>&1 &
packer=$!
stop_packer() { kill "$packer" 2>/dev/null; wait "$packer" 2>/dev/null; }
trap 'stop_packer; pack "${sets[@]}"; exit 130' INT TERM
# --time stops the call cleanly (the variants in flight are measured again next time); the outer
# timeout only guards against a call that does not stop.
began=$(date +%s)
timeout -k 20 -s INT "$((secs + 40))" "$smart" campaign run "${args[@]}" >"$out/call.json" 2>"$out/call.log"
rc=$?
stop_packer
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
  pack "$dir"
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
[ -f "$out/campaign.tgz" ] || pack "${sets[@]}"
exit $rc
