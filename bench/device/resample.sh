#!/usr/bin/env bash
# Measures on a lent GPU a subset of the settings another GPU's data sets hold, so the two GPUs'
# times of the same settings can be compared (does one GPU's ranking hold on another?) and so
# this GPU gets a reference of random settings for bench/picks. Usage, from the repository root:
#   SMART=bin/smart.gz bench/device/resample.sh NAME SECONDS DATASET...
# For each stencil of the data sets it takes the TOP (default 10) fastest ok settings and the
# first PEROC (default 2) ok rows of each OC (random draws, whatever their time), and measures
# them with `smart bench --setting` into /tmp/NAME/STENCIL, one data set per stencil, stopping
# cleanly after SECONDS in all. The data sets are left as $OUT/NAME.tgz. GPU names the catalogue
# entry (default: found through NVML); BACKEND=sim tries it without a GPU.
set -uo pipefail
name=$1 limit=$2
shift 2
export PATH=/usr/local/cuda/bin:$PATH
. "$(dirname "$0")/lib.sh"
smart=$(smart_binary) || { echo "cannot unpack ${SMART:-the smart binary}"; exit 1; }
out=${OUT:-/tmp/out}
work=/tmp/$name
mkdir -p "$work" "$out"
end=$((SECONDS + limit))
backend=${BACKEND:-cuda}
gpuflag=()
[ -n "${GPU:-}" ] && gpuflag=(--gpu "$GPU")
# One line per stencil: the stencil file, then its settings as OC:k=v,...
python3 - "${TOP:-10}" "${PEROC:-2}" "$@" >"$work/plan.txt" <<'EOF'
import csv, os, sys
top, peroc = int(sys.argv[1]), int(sys.argv[2])
rows = {}
files = {}
for ds in sys.argv[3:]:
    for r in csv.DictReader(open(os.path.join(ds, "rows.csv"))):
        if r["status"] == "ok":
            rows.setdefault(r["stencil_id"], []).append(r)
            files[r["stencil_id"]] = os.path.join(ds, "stencils", r["stencil_id"] + ".json")
params = ["bx", "by", "bz", "shared", "const", "sd", "sb", "ufx", "ufy", "ufz",
          "bmx", "bmy", "bmz", "cmx", "cmy", "cmz", "tt"]
def setting(r):
    return r["oc"] + ":" + ",".join(f"{k}={r[k]}" for k in params if r[k] != "")
for sid, rs in sorted(rows.items()):
    chosen = [setting(r) for r in sorted(rs, key=lambda r: float(r["time_ms"]))[:top]]
    per = {}
    for r in rs:
        if per.get(r["oc"], 0) < peroc:
            per[r["oc"]] = per.get(r["oc"], 0) + 1
            s = setting(r)
            if s not in chosen:
                chosen.append(s)
    print(files[sid], *chosen)
EOF
while read -r file settings; do
  left=$((end - SECONDS))
  [ "$left" -gt 10 ] || { echo "time is up before $file"; break; }
  args=()
  for s in $settings; do args+=(--setting "$s"); done
  id=$(basename "$file" .json)
  timeout -s INT $((left + 120)) $smart bench "$file" --backend "$backend" "${gpuflag[@]}" "${args[@]}" --time "${left}s" \
    --out "$work/$id" --build-dir /tmp/build-resample 2>&1 | grep -v '^bench \[\|^drawing settings \[' | tail -3
done <"$work/plan.txt"
tar czf "$out/$name.tgz" -C /tmp "$name"
