#!/usr/bin/env bash
# Scores, without a GPU, what more measured stencils buy the runtime model of one GPU: for each
# stencil of the data sets given, a gbdt runtime model is trained on the other stencils of its
# dimensionality (leave one stencil out, trained as the embedded models are; PARAMS overrides
# their hyper-parameters, smart train --param) and scored
# with `smart eval` on the stencil left out: MAPE, median APE and pick share (its fastest-predicted
# setting's time over the best measured). Run it with fewer data sets to see what the others add;
# TEST restricts the stencils scored (names, comma-separated) so both runs score the same ones.
# Usage, from the repository root:
#   SMART=bin/smart bench/loo-eval.sh DATASET...
#   SMART=bin/smart TEST=j3d7pt,j3d13pt bench/loo-eval.sh data/measured/h100-sxm/{classic,more}
set -euo pipefail
smart=${SMART:-bin/smart}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$smart" "$work" "${TEST:-}" "$@" <<'EOF'
import csv, glob, json, os, shutil, subprocess, sys
smart, work, test, dirs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
stencils = {}  # id -> (name, dims)
for d in dirs:
    for f in glob.glob(os.path.join(d, "stencils", "*.json")):
        s = json.load(open(f))
        stencils[os.path.basename(f)[:-5]] = (s["name"], s["dims"])
wanted = set(test.split(",")) if test else None
print(f"{'stencil':>10} {'rows':>5} {'MAPE':>7} {'p50':>7} {'pick':>6}")
for sid, (name, dims) in sorted(stencils.items(), key=lambda kv: kv[1]):
    if wanted is not None and name not in wanted:
        continue
    train, held = [], None
    for i, d in enumerate(dirs):
        rows = list(csv.reader(open(os.path.join(d, "rows.csv"))))
        for part, keep in (("train", lambda r: r[0] != sid), ("test", lambda r: r[0] == sid)):
            out = os.path.join(work, f"{part}{i}")
            shutil.rmtree(out, ignore_errors=True)
            shutil.copytree(d, out)
            kept = [rows[0]] + [r for r in rows[1:] if keep(r)]
            with open(os.path.join(out, "rows.csv"), "w", newline="") as f:
                csv.writer(f, lineterminator="\n").writerows(kept)
            if len(kept) > 1:
                if part == "train":
                    train += ["--data", out]
                else:
                    held = out
    model = os.path.join(work, "m.model")
    subprocess.run([smart, "train", "--task", "runtime", *train, "--dims", str(dims), "--cv", "0",
                    "--param", os.environ.get("PARAMS") or "early_stop=0", "-o", model], check=True, capture_output=True)
    ev = json.loads(subprocess.run([smart, "eval", model, "--data", held, "--json"], check=True,
                                   capture_output=True, text=True).stdout)
    o = ev.get("overall") or ev
    print(f"{name:>10} {o['rows']:>5} {o['mape']:>6.1f}% {o['ape_percentiles']['p50']:>6.1f}% {o['pick_share']:>6.3f}")
EOF
