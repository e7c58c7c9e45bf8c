#!/usr/bin/env bash
# Builds, on this machine before a lease, what a lent GPU machine runs: the smart binary
# stripped and compressed (bin/smart.gz: cgo, x86-64), and with LOODIR the leave-one-stencil-out
# models of bench/device/loo-models.sh, fresh from the tree as it is; then checks that the
# working tree the device tool copies (tracked files and untracked ones git does not ignore)
# and what is carried fit its 64 MiB. Usage, from the repository root:
#   bench/device/pack.sh [LOODIR]
# then carry bin/smart.gz (and LOODIR) and start each call with SMART=bin/smart.gz (the
# scripts unpack it to /tmp/smart). Commit first: the binary is built from the working tree.
set -euo pipefail
loo=${1:-}
limit=$((64 * 1024 * 1024))
[ -z "$(git status --porcelain --untracked-files=no)" ] || echo "warning: uncommitted changes go into the binary"
mkdir -p bin
go build -ldflags "-s -w" -o bin/smart ./cmd/smart
gzip -9c bin/smart >bin/smart.gz.part && mv bin/smart.gz.part bin/smart.gz
carried=(bin/smart.gz)
if [ -n "$loo" ]; then
  rm -rf "$loo"
  SMART=bin/smart bash "$(dirname "$0")/loo-models.sh" "$loo"
  carried+=("$loo")
fi
tree=$({ git ls-files -z; git ls-files -z --others --exclude-standard; } | xargs -0 -r stat -c %s -- 2>/dev/null | awk '{s += $1} END {print s + 0}')
carry=$(du -sb "${carried[@]}" | awk '{s += $1} END {print s}')
total=$((tree + carry))
echo "working tree $((tree / 1048576)) MiB, carried ${carried[*]} $((carry / 1048576)) MiB: $((total / 1048576)) of 64 MiB"
git ls-files -z --others --exclude-standard | xargs -0 -r du -k -- | sort -rn | head -3 | awk '$1 > 1024 {print "large untracked file, copied too: " $2}'
[ "$total" -le "$limit" ] || { echo "over the device tool's carry limit: remove large untracked files or carry less"; exit 1; }
