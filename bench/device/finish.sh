#!/usr/bin/env bash
# Finishes, on a lent GPU, the named stencils' random-setting data sets whose runs stopped before
# their plan's last variants (data/measured/GPU/random/NAME: rows.csv shorter than items.csv), by
# resuming each in place with its own plan (samples and seed from meta.json), at most SECONDS in
# all, and leaves data/measured/GPU/random as $OUT/random.tgz, packed after each. Usage, from the
# repository root on the GPU machine, with the binary of bench/device/pack.sh carried:
#   SMART=bin/smart.gz bench/device/finish.sh SECONDS
# GPU is the card's catalogue name in lower case as the data sets are named (h100-sxm, h200;
# default: from nvidia-smi). A data set the card or its driver cannot resume (another card, or
# another driver or CUDA version than measured it) is said and left. Extract random.tgz with
# `tar xzf random.tgz -C data/measured` and commit it.
set -uo pipefail
seconds=${1:?usage: bench/device/finish.sh SECONDS}
here=$(dirname "$0")
# shellcheck source=bench/device/lib.sh
. "$here/lib.sh"
device_setup
export PATH=/usr/local/cuda/bin:$PATH
gpu=$(card_dir "${GPU:-}")
[ -n "$gpu" ] || { echo "finish: no data sets of this card"; exit 1; }
export DEADLINE_AT=$(($(date +%s) + seconds))
sets=data/measured/$gpu/random
for d in "$sets"/*/; do
  d=${d%/}
  name=$(basename "$d")
  have=$(($(wc -l <"$d/rows.csv") - 1))
  want=$(($(zcat -f "$d/items.csv" | wc -l) - 1))
  [ "$have" -lt "$want" ] || continue
  read -r samples seed < <(python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["plan"]; print(p["samples"], p["seed"])' "$d/meta.json")
  left=$(seconds_left 20 "$seconds")
  [ "$left" -gt 30 ] || { echo "finish: no time left for $name ($have of $want rows)"; break; }
  echo "== $name on the $gpu: $have of $want rows, at most $left s"
  args=(--samples "$samples" --seed "$seed" --time "$((left - 15))s" --out "$d" --build-dir /tmp/smart-build)
  [ "$backend" = cuda ] || args+=(--backend "$backend" --gpu "$gpu")
  timeout -k 10 -s INT "$left" "$smart" bench "data/stencils/$name.json" "${args[@]}" >"/tmp/finish-$name.log" 2>&1 ||
    echo "$name: the bench stopped (exit $?)"
  grep -v '^bench \[\|^drawing settings \[' "/tmp/finish-$name.log" | tail -3
  tar czf "$out/.random.tgz.part" -C data/measured "$gpu/random" && mv "$out/.random.tgz.part" "$out/random.tgz"
done
ls "$out"
