#!/usr/bin/env bash
# Submits a smart bench run to Slurm as a job array of N shards (bench-array.sbatch) and a job
# that merges them into OUT once every shard has succeeded (merge.sbatch), and prints the two
# job IDs. The arguments after OUT are smart bench's stencils and flags, less --shard and --out.
#
#   submit.sh N OUT [STENCIL-FILE|DIR...] [smart bench flags]
#   submit.sh 8 runs/h100-2d --random 500 --dims 2 --samples 20
#   submit.sh 4 runs/sim-2d --backend sim --random 50 --dims 2     # no GPU asked for
#
# SMART is the smart binary the nodes run (default: smart on PATH here); it must be on a file
# system the nodes share, as must OUT. Slurm's own SBATCH_* variables (SBATCH_PARTITION,
# SBATCH_ACCOUNT, SBATCH_TIMELIMIT, ...) reach both jobs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() {
  echo "usage: $0 N OUT [STENCIL-FILE|DIR...] [smart bench flags, less --shard and --out]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
shards=$1 out=$2
shift 2
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "$0: N is \"$shards\"; give the number of shards, 1 or more" >&2; exit 2; }
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  echo "$0: $out exists; the merge creates it: choose a new OUT (shards $out-i that exist are resumed)" >&2
  exit 2
fi

sim=no
prev=
for a in "$@"; do
  case $a in
  --shard | --shard=* | -shard | -shard=* | --out | --out=* | -out | -out=*)
    echo "$0: leave out ${a%%=*}: each array task gets its own --shard i/$shards and --out $out-i" >&2
    exit 2 ;;
  --time | --time=* | -time | -time=*)
    echo "$0: leave out ${a%%=*}: a task it stops succeeds with its shard incomplete, and the merge would join it" >&2
    exit 2 ;;
  --dry-run | --dry-run=* | -dry-run | -dry-run=*)
    echo "$0: leave out ${a%%=*}: run smart bench --dry-run yourself to count the work" >&2
    exit 2 ;;
  --backend=sim | -backend=sim) sim=yes ;;
  sim) case $prev in --backend | -backend) sim=yes ;; esac ;;
  esac
  prev=$a
done

smart=$(command -v "${SMART:-smart}") || { echo "$0: no smart binary ${SMART:-on PATH}: put smart on PATH or name it with SMART=path" >&2; exit 2; }
SMART=$(realpath "$smart")
export SMART

# The analytic model needs neither a GPU nor nvcc's cores.
node=()
[ $sim = no ] || node=(--gres=none --cpus-per-task=1)
array=$(sbatch --parsable --array=1-"$shards" "${node[@]}" "$here/bench-array.sbatch" "$shards" "$out" "$@")
array=${array%%;*} # --parsable prints ID;CLUSTER on a federation
merge=$(sbatch --parsable --dependency=afterok:"$array" "$here/merge.sbatch" "$shards" "$out")
merge=${merge%%;*}
echo "bench array $array ($shards tasks), merge $merge into $out"
