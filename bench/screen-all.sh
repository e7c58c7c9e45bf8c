#!/usr/bin/env bash
# Compares, without a GPU, the two ways smart predict can search the H100 with a runtime model
# trained on its measurements: screening only the OCs of the simulated classifier's three most
# probable classes (--candidates 3), or every OC (the default since 2026-11-23). For each stencil
# measured in data/measured/h100-sxm it trains the runtime model on the other stencils of its
# dimensionality (bench/device/loo-models.sh), predicts both ways, and places each candidate OC
# among the 30 OCs measured there, each OC by its fastest measured setting (the best of the 20
# random ones bench/device/run.sh drew: a lower bound on what the OC can do). The settings
# predict picks are not measured here; bench/device/picks.sh does that on a GPU.
# Usage, from the repository root: SMART=bin/smart bench/screen-all.sh
set -euo pipefail
smart=${SMART:-bin/smart}
loo=$(mktemp -d)
trap 'rm -rf "$loo"' EXIT
SMART=$smart bench/device/loo-models.sh "$loo" >/dev/null
python3 - "$smart" "$loo" <<'EOF'
import csv, glob, json, math, subprocess, sys
smart, loo = sys.argv[1:]
m = 'data/measured/h100-sxm'
names = {}
for f in glob.glob(f'{m}/*/stencils/*.json'):
    names[f.split('/')[-1][:-5]] = json.load(open(f))['name']
best = {}
for ds in ('classic', 'more'):
    for r in csv.DictReader(open(f'{m}/{ds}/rows.csv')):
        if r['status'] == 'ok':
            b = best.setdefault(names[r['stencil_id']], {})
            b[r['oc']] = min(b.get(r['oc'], math.inf), float(r['time_ms']))
print('stencil   way            OCs  candidates: OC #place among the measured OCs (its best / the best)')
logs = {}
for n in ('j3d7pt', 'j3d13pt', 'j3d27pt', 'j2d5pt', 'j2d9pt', 'j2d25pt'):
    order = sorted(best[n], key=best[n].get)
    for way, extra in (('3 classes', ['--candidates', '3']), ('every OC', [])):
        out = json.loads(subprocess.run([smart, 'predict', '--gpu', 'h100-sxm', '--json', '--model', f'{loo}/no-{n}.model', *extra,
                                         f'data/stencils/{n}.json'], capture_output=True, text=True, check=True).stdout)
        ocs = [c['oc'] for c in out['candidates']]
        ratios = [best[n][oc] / best[n][order[0]] for oc in ocs]
        logs.setdefault(way, []).append((math.log(ratios[0]), math.log(min(ratios))))
        print(f'{n:9s} {way:12s} {out["ocs_screened"]:5d}  ' + '  '.join(f'{oc} #{order.index(oc) + 1} ({r:.2f}x)' for oc, r in zip(ocs, ratios)))
for way, v in logs.items():
    first = math.exp(sum(a for a, _ in v) / len(v))
    three = math.exp(sum(b for _, b in v) / len(v))
    print(f'{way}: first candidate\'s OC {first:.2f}x the best measured OC, best of the three {three:.2f}x (geometric means)')
EOF
