#!/usr/bin/env bash
# The compiler's report of generated kernels on a GPU machine (nvcc is there, not here): for each
# CUDA source (from `smart codegen`, carried), ptxas's registers, stack frame and spills (-Xptxas
# -v, the harness's nvcc flags) and the local loads and stores in the disassembly, once as
# generated and once without __launch_bounds__ (what the kernel would take unbounded). Usage,
# from the repository root on the GPU machine:
#   bench/device/ptxas.sh FILE.cu...
# Reports and disassembly go to $OUT as NAME-keep.* and NAME-none.*; a summary is printed.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}
mkdir -p "$out"
for f in "$@"; do
  n=$(basename "$f" .cu)
  for lb in keep none; do
    src=$f
    if [ "$lb" = none ]; then
      src=/tmp/$n-none.cu
      sed 's/__launch_bounds__([0-9]*)//' "$f" >"$src"
    fi
    nvcc -cubin -O3 -std=c++17 -arch=sm_90 -lineinfo -Xptxas -v -o "/tmp/$n.cubin" "$src" >"$out/$n-$lb.ptxas" 2>&1
    cuobjdump -sass "/tmp/$n.cubin" >"$out/$n-$lb.sass" 2>&1
    echo "== $n launch_bounds $lb: $(grep -c 'LDL' "$out/$n-$lb.sass") LDL, $(grep -c 'STL' "$out/$n-$lb.sass") STL"
    grep -E 'registers|stack|spill' "$out/$n-$lb.ptxas" | sed 's/^ptxas info *: //'
  done
done
