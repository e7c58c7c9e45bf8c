#!/usr/bin/env bash
# Scores `smart predict --gpu GPU` on the campaign's measured stencils, each predicted with a
# runtime model that never saw it: the stencils are dealt into FOLDS folds in the order of their
# IDs (as smart calibrate deals them), and for each fold and dimensionality a gbdt runtime model is
# trained as the GPU's embedded one was (data/measured/models.json) on the GPU's named stencils
# (classic/, more/, random/*) and the campaign's other folds. Each candidate OC of the prediction
# is placed among the OCs measured on the stencil by its fastest measured setting: the campaign
# measures each OC's two settings the embedded model ranks fastest and two drawn at random, so
# this is a lower bound on what the OC can do, as in bench/screen-all.sh; and it favours models
# like the one the manifest was planned with, whose favourite settings of each OC were measured
# (bench/screen-all.sh's named stencils have uniformly drawn settings only).
# Usage, from the repository root: SMART=bin/smart bench/screen-campaign.sh DATASET [FOLDS] [GPU]
# (DATASET e.g. data/measured/h100-sxm/campaign; FOLDS 12; GPU h100-sxm). FOLDS 0 trains nothing:
# every stencil is predicted with the embedded models, the baseline while they have not seen the
# campaign. VERBOSE=1 prints every stencil's candidates; TARGET=ln_ms_over_analytic trains the fold
# models on the time over the analytic model's (smart train --target); UNIFORM=1 scores by the
# manifest's uniformly drawn settings alone (MANIFEST names another manifest directory); PARAMS
# overrides the fold models' hyper-parameters (smart train --param; default the embedded models').
# SELECT=DIR predicts with each fold's classifier trained without it too (bench/defaults
# -fold-models DIR -fold-data DATASET -folds FOLDS; by default the embedded one, which saw them).
# SAMPLES=N scores N random settings per OC searched in depth (smart predict --samples; default
# 192): the first candidates move by a few hundredths with it (docs/results/calibration.md).
set -euo pipefail
dataset=${1:?usage: bench/screen-campaign.sh DATASET [FOLDS] [GPU]}
folds=${2:-12}
gpu=${3:-h100-sxm}
smart=${SMART:-bin/smart}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$smart" "$dataset" "$folds" "$gpu" "$work" <<'PY'
import csv, glob, json, math, os, shutil, subprocess, sys
smart, dataset, folds, gpu, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
verbose = os.environ.get('VERBOSE') == '1'
samples = ['--samples', os.environ['SAMPLES']] if os.environ.get('SAMPLES') else []

def dims_of(d):
    return {f[:-5]: json.load(open(os.path.join(d, 'stencils', f)))['dims'] for f in os.listdir(os.path.join(d, 'stencils'))}

dims = dims_of(dataset)
names = {f[:-5]: json.load(open(os.path.join(dataset, 'stencils', f))).get('name') or f[:-5] for f in os.listdir(os.path.join(dataset, 'stencils'))}
best = {}
with open(os.path.join(dataset, 'rows.csv')) as f:
    header = f.readline()
    rows = f.readlines()
# UNIFORM=1 places every OC (and the stencil's best) by the manifest's uniformly drawn settings
# alone, which no model chose: a fair screen of a model unlike the one the manifest was planned with.
uniform = None
if os.environ.get('UNIFORM') == '1':
    import gzip
    uniform = set()
    with gzip.open(os.path.join(os.environ.get('MANIFEST') or 'data/campaign', 'items.csv.gz'), 'rt') as f:
        for it in csv.DictReader(f):
            if it['origin'] == 'uniform':
                uniform.add((it['stencil_id'], it['oc'], frozenset(it['setting'].split(','))))
params = ['bx', 'by', 'bz', 'shared', 'const', 'sd', 'sb', 'ufx', 'ufy', 'ufz', 'bmx', 'bmy', 'bmz', 'cmx', 'cmy', 'cmz', 'tt']
for r in csv.DictReader([header] + rows):
    if r['status'] != 'ok' or r.get('cut'):
        continue
    if uniform is not None and (r['stencil_id'], r['oc'], frozenset(f'{p}={r[p]}' for p in params if r.get(p))) not in uniform:
        continue
    b = best.setdefault(r['stencil_id'], {})
    b[r['oc']] = min(b.get(r['oc'], math.inf), float(r['time_ms']))
ids = sorted(best)
if folds > 0 and len(ids) < 2:
    sys.exit(f'{dataset}: {len(ids)} stencils measured; folds need at least 2')
k = min(folds, len(ids)) if folds > 0 else 1
fold = {i: n % k for n, i in enumerate(ids)}
named = [d for d in [f'data/measured/{gpu}/classic', f'data/measured/{gpu}/more'] + sorted(glob.glob(f'data/measured/{gpu}/random/*'))
         if os.path.exists(os.path.join(d, 'rows.csv'))]
named_dims = {d: set(dims_of(d).values()) for d in named}

results = []

optimism = []  # the first candidate's predicted time over its OC's best measured, by dimensions

def score(i, out, by):
    top = min(best[i].values())
    ratios = [best[i].get(c['oc'], math.inf) / top for c in out['candidates']]
    results.append((i, ratios))
    first = out['candidates'][0]
    if first['oc'] in best[i]:
        optimism.append((dims[i], first['time_ms'] / best[i][first['oc']]))
    if verbose:
        print(f'{names[i]} ({dims[i]}-D) {by}: ' + '  '.join(f'{c["oc"]} {r:.2f}x' for c, r in zip(out['candidates'], ratios)))

for f in range(k):
    held = [i for i in ids if fold[i] == f]
    if folds == 0:
        for i in held:
            out = json.loads(subprocess.run([smart, 'predict', '--gpu', gpu, '--json', *samples, os.path.join(dataset, 'stencils', i + '.json')],
                                            capture_output=True, text=True, check=True).stdout)
            score(i, out, 'embedded')
        continue
    copy = os.path.join(work, f'campaign-{f}')
    os.makedirs(copy)
    for name in os.listdir(dataset):
        src = os.path.join(dataset, name)
        if name == 'rows.csv':
            with open(os.path.join(copy, name), 'w') as out:
                out.write(header)
                out.writelines(line for line in rows if line.split(',', 1)[0] not in held)
        elif os.path.isdir(src):
            shutil.copytree(src, os.path.join(copy, name))
        else:
            shutil.copy(src, copy)
    for d in sorted({dims[i] for i in held}):
        model = os.path.join(work, f'fold-{f}-{d}d.model')
        data = [a for s in named if d in named_dims[s] for a in ('--data', s)] + ['--data', copy]
        subprocess.run([smart, 'train', '--task', 'runtime', '--model', 'gbdt', *data, '--dims', str(d), '--cv', '0',
                        '--param', os.environ.get('PARAMS') or 'early_stop=0', '--target', os.environ.get('TARGET') or 'ln_ms', '-o', model],
                       capture_output=True, text=True, check=True)
        for i in held:
            if dims[i] != d:
                continue
            sel = []
            if os.environ.get('SELECT'):
                sel = ['--model', os.path.join(os.environ['SELECT'], f'select-{d}d-fold-{f + 1}.smartmodel.gz')]
                if not os.path.exists(sel[1]):
                    sys.exit(f'{sel[1]} is missing: bench/defaults -fold-models {os.environ["SELECT"]} -folds {k} writes it')
            out = json.loads(subprocess.run([smart, 'predict', '--gpu', gpu, '--json', *samples, '--model', model, *sel,
                                             os.path.join(dataset, 'stencils', i + '.json')],
                                            capture_output=True, text=True, check=True).stdout)
            score(i, out, f'fold {f}')
    shutil.rmtree(copy)
    print(f'fold {f + 1} of {k}: {len(held)} stencils predicted', file=sys.stderr)

unmeasured = sum(1 for _, r in results if r and math.isinf(r[0]))
results = [(i, r) for i, r in results if r and not math.isinf(r[0])]
if unmeasured:
    print(f'{unmeasured} stencils left out: their first candidate\'s OC was never measured there')
first = [r[0] for _, r in results]
three = [min(r) for _, r in results]
geo = lambda v: math.exp(sum(math.log(x) for x in v) / len(v))
worst = max(results, key=lambda x: x[1][0])
how = f'{k} folds' if folds > 0 else 'the embedded models'
print(f'{len(first)} stencils of {dataset} on {gpu}, {how}: first candidate\'s OC {geo(first):.2f}x the best measured OC '
      f'(geometric mean; worst {worst[1][0]:.2f}x, {names[worst[0]]}; within 1.10x on {sum(x <= 1.10 for x in first)}, '
      f'within 1.25x on {sum(x <= 1.25 for x in first)}), best of the candidates {geo(three):.2f}x '
      f'(lower bounds: each OC by its fastest measured setting{", of those drawn uniformly" if uniform is not None else ""})')
# How far the search's pick lies below anything measured of its OC: a model that extrapolates
# optimistically where no data is shows here.
for d in sorted({d for d, _ in optimism}):
    v = sorted(x for dd, x in optimism if dd == d)
    print(f'{d}-D: the first candidate predicted at {v[len(v) // 2]:.2f}x its OC\'s best measured time in the median, '
          f'below 0.55x on {sum(x < 0.55 for x in v)} of {len(v)} stencils')
PY
