#!/usr/bin/env bash
# Measures on a lent GPU the settings `smart predict` recommends, with a smart binary built
# elsewhere (cgo, x86-64) and carried. Usage, from the repository root on the GPU machine:
#   SMART=bin/smart.gz bench/device/picks.sh MODELDIR STENCIL-FILE...
# For each stencil it asks `smart predict --gpu $GPU --json` for its candidates (the best setting
# of each OC searched in depth) with the embedded default models, and again with
# MODELDIR/no-NAME.model.gz where there is one (a runtime model trained on the other stencils'
# measurements), then measures them all with `smart bench --setting` into /tmp/picks/NAME. The
# predictions (NAME-default.json, NAME-h100.json) and the data sets are left as $OUT/picks.tgz.
# PICKS names the directory instead of picks (for a second round beside the first).
# SIMULATED=1 also asks with --transfer=false (NAME-simulated.json): on a GPU without an embedded
# model of its own measurements (GPU=H200), the default answers with the H100's model, scaled, and
# this measures the simulated defaults' picks beside them.
# BACKEND=sim runs it without a GPU (the analytic model times the settings), to try it.
set -uo pipefail
models=$1
shift
here=$(dirname "$0")
# shellcheck source=bench/device/lib.sh
. "$here/lib.sh"
export PATH=/usr/local/cuda/bin:$PATH
smart=$(smart_binary) || { echo "cannot unpack ${SMART:-the smart binary}"; exit 1; }
gpu=${GPU:-H100-SXM}
backend=${BACKEND:-cuda}
picks=${PICKS:-picks}
work=/tmp/$picks
out=${OUT:-/tmp/out}
mkdir -p "$work" "$out"
pack() { tar czf "$out/.$picks.tgz.part" -C /tmp "$picks" && mv "$out/.$picks.tgz.part" "$out/$picks.tgz"; }
trap 'pack; exit 130' INT TERM # stopped: what was measured is packed, the next stencil not begun
for f in "$@"; do
  name=$(basename "$f" .json)
  "$smart" predict --gpu "$gpu" --json "$f" >"$work/$name-default.json" || { echo "$name: no prediction"; continue; }
  preds=("$work/$name-default.json")
  if [ "${SIMULATED:-0}" = 1 ]; then
    "$smart" predict --gpu "$gpu" --json --transfer=false "$f" >"$work/$name-simulated.json" && preds+=("$work/$name-simulated.json")
  fi
  if [ -f "$models/no-$name.model.gz" ]; then
    "$smart" predict --gpu "$gpu" --json --model "$models/no-$name.model.gz" "$f" >"$work/$name-h100.json" && preds+=("$work/$name-h100.json")
  fi
  # One --setting OC:k=v,... per distinct candidate of the predictions.
  mapfile -t settings < <(python3 -c '
import json, sys
seen = []
for path in sys.argv[1:]:
    for c in json.load(open(path))["candidates"]:
        s = c["oc"] + ":" + ",".join(f"{k}={v}" for k, v in sorted(c["setting"].items()))
        if s not in seen:
            seen.append(s)
print("\n".join(seen))' "${preds[@]}")
  args=()
  for s in "${settings[@]}"; do args+=(--setting "$s"); done
  "$smart" bench "$f" --backend "$backend" --gpu "$gpu" "${args[@]}" --out "$work/$name" --build-dir /tmp/build-picks >"$work/$name.log" 2>&1 ||
    echo "$name: the bench stopped (exit $?)"
  grep -v '^bench \[\|^drawing settings \[' "$work/$name.log" | tail -4
  pack
done
pack
