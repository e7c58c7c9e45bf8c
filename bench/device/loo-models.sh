#!/usr/bin/env bash
# Trains, on this machine, the leave-one-stencil-out runtime models that bench/device/picks.sh
# carries to the GPU: for each named stencil measured in data/measured/h100-sxm (classic/, more/
# and random/*), a gbdt runtime model of its dimensionality trained as the embedded one was
# (data/measured/models.json) on the other stencils' rows and the campaign's (campaign/, whose
# stencils are all random ones), as OUTDIR/no-NAME.model.gz (compressed: the lease carries them).
# Usage, from the repository root: SMART=bin/smart bench/device/loo-models.sh OUTDIR
# PARAMS overrides the hyper-parameters (smart train --param), which default to the embedded
# models' (models.json's command).
set -euo pipefail
out=$1
smart=${SMART:-bin/smart}
params=${PARAMS:-early_stop=0}
m=data/measured/h100-sxm
sets=("$m/classic" "$m/more" "$m"/random/*)
train=("${sets[@]}")
[ -f "$m/campaign/rows.csv" ] && train+=("$m/campaign")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
for s in "${sets[@]}"; do
  for f in "$s"/stencils/*.json; do
    id=$(basename "$f" .json)
    read -r name dims < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["name"], d["dims"])' "$f")
    data=()
    for ds in "${train[@]}"; do
      copy="$work/$name/$(echo "$ds" | tr / _)"
      mkdir -p "$(dirname "$copy")"
      cp -r "$ds" "$copy"
      awk -F, -v id="$id" 'NR == 1 || $1 != id' "$ds/rows.csv" >"$copy/rows.csv"
      # A data set left with no row of these dimensions would fail the training: skip it.
      if python3 -c 'import csv,json,sys,os
d,dims=sys.argv[1],int(sys.argv[2])
st={f[:-5]:json.load(open(os.path.join(d,"stencils",f)))["dims"] for f in os.listdir(os.path.join(d,"stencils"))}
sys.exit(0 if any(st.get(r["stencil_id"])==dims for r in csv.DictReader(open(os.path.join(d,"rows.csv")))) else 1)' "$copy" "$dims"; then
        data+=(--data "$copy")
      fi
    done
    $smart train --task runtime "${data[@]}" --dims "$dims" \
      --cv 0 --param "$params" -o "$out/no-$name.model.gz" 2>&1 | grep '^wrote' || true
    rm -rf "${work:?}/$name"
  done
done
