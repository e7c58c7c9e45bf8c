#!/usr/bin/env bash
# Trains, on this machine, the leave-one-stencil-out runtime models that bench/device/picks.sh
# carries to the GPU: for each stencil measured in data/measured/h100-sxm, a gbdt runtime model of
# its dimensionality trained on the other stencils' rows of classic/ and more/, as OUTDIR/no-NAME.model.
# Usage, from the repository root: SMART=bin/smart bench/device/loo-models.sh OUTDIR
set -euo pipefail
out=$1
smart=${SMART:-bin/smart}
m=data/measured/h100-sxm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
for f in $m/classic/stencils/*.json $m/more/stencils/*.json; do
  id=$(basename "$f" .json)
  read -r name dims < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["name"], d["dims"])' "$f")
  for ds in classic more; do
    mkdir -p "$work/$name"
    cp -r "$m/$ds" "$work/$name/$ds"
    awk -F, -v id="$id" 'NR == 1 || $1 != id' "$m/$ds/rows.csv" >"$work/$name/$ds/rows.csv"
  done
  $smart train --task runtime --data "$work/$name/classic" --data "$work/$name/more" --dims "$dims" \
    --cv 0 --param early_stop=0 -o "$out/no-$name.model" 2>&1 | grep '^wrote\|^data:'
done
