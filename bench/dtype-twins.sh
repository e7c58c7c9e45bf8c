#!/usr/bin/env bash
# Compares `smart predict --gpu GPU` on random stencils drawn twice, once in float64 and once in
# float32 (the same points, grid and steps): a float32 kernel moves half the bytes of its float64
# twin and issues the same instructions, so its predicted best time should not be the slower.
# Prints, per grid, how many twins break that and the median and largest float32/float64 ratio
# of the predicted best times. Small grids lie outside the H100's measured models (trained on
# 4096^2-8192^2 and 256^3-512^3 grids), where the bound by the calibrated model answers.
# Usage, from the repository root: SMART=bin/smart GPU=h100 bench/dtype-twins.sh
set -euo pipefail
smart=${SMART:-bin/smart}
gpu=${GPU:-h100}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for grid in 256x256 1024x1024 8192x8192 64x64x64 128x128x128 512x512x512; do
	dims=$(($(tr -cd x <<<"$grid" | wc -c) + 1))
	for order in 1 2 3; do
		for dtype in float64 float32; do
			"$smart" generate --dims "$dims" --order "$order" --count 3 --seed 16 --grid "$grid" \
				--dtype "$dtype" --out "$dir/$dtype/$grid" >/dev/null
		done
	done
	for dtype in float64 float32; do
		"$smart" predict --gpu "$gpu" --json "$dir/$dtype/$grid" 2>/dev/null >"$dir/$dtype-$grid.json"
	done
done
python3 - "$dir" <<'PY'
import glob, json, statistics, sys
d = sys.argv[1]
def best(path):
    # generate names a float32 stencil as its float64 twin with -f32 added
    return {json.loads(l)['stencil']['name'].removesuffix('-f32'): json.loads(l)['best']['time_ms'] for l in open(path) if l.strip()}
print(f"{'grid':>12} {'twins':>5} {'f32 slower':>10} {'median f32/f64':>15} {'largest':>8}")
total = slower = 0
for f64 in sorted(glob.glob(f'{d}/float64-*.json')):
    grid = f64.split('float64-')[1][:-5]
    a, b = best(f64), best(f64.replace('float64-', 'float32-'))
    r = [b[k] / a[k] for k in a if k in b]
    n = sum(x > 1 for x in r)
    total, slower = total + len(r), slower + n
    print(f"{grid:>12} {len(r):>5} {n:>10} {statistics.median(r):>15.3f} {max(r):>8.2f}")
print(f"float32 predicted slower than its float64 twin on {slower} of {total}")
PY
