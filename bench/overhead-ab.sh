#!/usr/bin/env bash
# Compares the tuning strategies' own time per evaluation (tuner's BenchmarkOverhead: a space of
# 10^8 settings, 500 evaluations of an instant evaluator) between a base revision and the
# working tree. The two test binaries run in turns, REPS times each, so that both see the same
# machine; the medians and their ratios are printed.
#
#   bench/overhead-ab.sh BASE_REV [REPS]      e.g. bench/overhead-ab.sh HEAD~3 5
#   BENCH='Overhead/pipeline' bench/overhead-ab.sh HEAD 5    only the benchmarks matching BENCH
set -euo pipefail
base=${1:?usage: bench/overhead-ab.sh BASE_REV [REPS]}
reps=${2:-5}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

git worktree add --detach "$tmp/base" "$base" >/dev/null
(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./tuner)
go test -c -o "$tmp/head.test" ./tuner

for i in $(seq "$reps"); do
  for b in base head; do
    # From the package directory, as go test runs a test binary.
    (cd tuner && "$tmp/$b.test" -test.run '^$' -test.bench "${BENCH:-Overhead}" -test.benchtime 2x) |
      awk -v b="$b" '/^BenchmarkOverhead/ {print b, $1, $5, $7}'
  done
  echo "round $i of $reps" >&2
done >"$tmp/runs.txt"

python3 - "$tmp/runs.txt" <<'EOF'
import collections, re, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    rev, name, cpu, wall = line.split()
    name = re.sub(r"-\d+$", "", name.removeprefix("BenchmarkOverhead/"))
    runs[name, rev].append((float(cpu), float(wall)))
print(f"{'strategy':22s} {'base cpu-ms':>11s} {'(wall)':>8s} {'head cpu-ms':>11s} {'(wall)':>8s} {'cpu ratio':>9s}")
for name in dict.fromkeys(n for n, _ in runs):
    b, h = runs[name, "base"], runs[name, "head"]
    if not b or not h:
        continue  # a benchmark one of the revisions lacks
    bc, bw = statistics.median(c for c, _ in b), statistics.median(w for _, w in b)
    hc, hw = statistics.median(c for c, _ in h), statistics.median(w for _, w in h)
    print(f"{name:22s} {bc:11.3f} {bw:8.3f} {hc:11.3f} {hw:8.3f} {hc / bc:9.2f}")
EOF
