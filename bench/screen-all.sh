#!/usr/bin/env bash
# Scores `smart predict --gpu h100-sxm` on the twelve stencils measured on the H100 without a GPU,
# each predicted with a runtime model trained on the other stencils of its dimensionality
# (bench/device/loo-models.sh), two ways: screening only the OCs of the simulated classifier's
# three most probable classes (the default), or every OC (--candidates 5, all its classes). Each candidate OC is
# placed among the OCs measured there by its fastest measured setting (the best of the random
# ones bench/device/run.sh drew and of the picks bench/device/picks.sh measured: a lower bound on
# what the OC can do; REF=random takes the random ones alone, as until 2026-11-27); where the
# candidate's own setting was measured, its measured time is given too. The unmeasured picks are
# listed for bench/device/picks.sh. SELECT=DIR predicts each stencil with the classifier trained
# without it too (bench/defaults -named-models DIR; by default the embedded one, which saw it).
# SAMPLES=N scores N random settings per OC searched in depth (smart predict --samples).
# Usage, from the repository root: SMART=bin/smart bench/screen-all.sh
set -euo pipefail
smart=${SMART:-bin/smart}
loo=$(mktemp -d)
trap 'rm -rf "$loo"' EXIT
SMART=$smart bench/device/loo-models.sh "$loo" >/dev/null
python3 - "$smart" "$loo" <<'PY'
import csv, glob, json, math, os, subprocess, sys
smart, loo = sys.argv[1:]
m = 'data/measured/h100-sxm'
sets = [f'{m}/classic', f'{m}/more'] + sorted(glob.glob(f'{m}/random/*'))
names, best, exact = {}, {}, {}
for ds in sets:
    for f in glob.glob(f'{ds}/stencils/*.json'):
        names[f.split('/')[-1][:-5]] = json.load(open(f))['name']
for ds in sets + sorted(glob.glob(f'{m}/picks*/*')):
    if not glob.glob(f'{ds}/rows.csv'):
        continue
    params = None
    for r in csv.DictReader(open(f'{ds}/rows.csv')):
        if r['status'] != 'ok' or r.get('cut') or r['stencil_id'] not in names:
            continue
        n = names[r['stencil_id']]
        t = float(r['time_ms'])
        setting = ','.join(f'{k}={r[k]}' for k in ('bx','by','bz','shared','const','sd','sb','ufx','ufy','ufz','bmx','bmy','bmz','cmx','cmy','cmz','tt') if r.get(k, '') != '')
        exact[(n, r['oc'], setting)] = min(exact.get((n, r['oc'], setting), math.inf), t)
        if '/picks' not in ds or os.environ.get('REF') != 'random':
            b = best.setdefault(n, {})
            b[r['oc']] = min(b.get(r['oc'], math.inf), t)
print('stencil     way          OCs  candidates: OC #place among the measured OCs (its best / the best) [its own setting measured / the best]')
logs, unmeasured = {}, []
samples = ['--samples', os.environ['SAMPLES']] if os.environ.get('SAMPLES') else []
for n in sorted(best):
    order = sorted(best[n], key=best[n].get)
    top = best[n][order[0]]
    for way, extra in (('3 classes', []), ('every OC', ['--candidates', '5'])):
        sel = glob.glob(f'{os.environ["SELECT"]}/select-*d-no-{n}.smartmodel.gz') if os.environ.get('SELECT') else []
        if os.environ.get('SELECT') and len(sel) != 1:
            sys.exit(f'no classifier without {n} in {os.environ["SELECT"]} (bench/defaults -named-models)')
        sel = ['--model', sel[0]] if sel else []
        out = json.loads(subprocess.run([smart, 'predict', '--gpu', 'h100-sxm', '--json', *samples, '--model', f'{loo}/no-{n}.model.gz', *sel, *extra,
                                         f'data/stencils/{n}.json'], capture_output=True, text=True, check=True).stdout)
        cells, ratios = [], []
        for c in out['candidates']:
            oc = c['oc']
            s = ','.join(f'{k}={c["setting"][k]}' for k in ('bx','by','bz','shared','const','sd','sb','ufx','ufy','ufz','bmx','bmy','bmz','cmx','cmy','cmz','tt') if k in c['setting'])
            r = best[n].get(oc, math.inf) / top
            e = exact.get((n, oc, s))
            ratios.append(r)
            cells.append(f'{oc} #{order.index(oc) + 1 if oc in order else "-"} ({r:.2f}x)' + (f' [{e / top:.2f}x]' if e else ''))
            if e is None and way == '3 classes':
                unmeasured.append(f'{n} {oc}:{s}')
        logs.setdefault(way, []).append((math.log(ratios[0]), math.log(min(ratios)), n))
        print(f'{n:11s} {way:12s} {out["ocs_screened"]:4d}  ' + '  '.join(cells))
for way, v in logs.items():
    first = math.exp(sum(a for a, _, _ in v) / len(v))
    three = math.exp(sum(b for _, b, _ in v) / len(v))
    worst = max(v)
    print(f'{way}: first candidate\'s OC {first:.2f}x the best measured OC (worst {math.exp(worst[0]):.2f}x, {worst[2]}), best of the three {three:.2f}x (geometric means over {len(v)} stencils; lower bounds: each OC by its fastest measured setting)')
print(f'{len(unmeasured)} candidate settings of the default way were never measured (bench/device/picks.sh measures them):')
for u in unmeasured:
    print('  ' + u)
PY
