#!/usr/bin/env bash
# Which sets of per-pipe metrics fit in gpulint's replay passes: gpulint's list plus each set,
# on one launch of stencil2d (issue #26: each pipe alone costs none, all eleven cost two).
#   usage: samples/corpus/pipe_passes.sh OUT_DIR GPULINT   (from the repository root)
set -u
out=$(realpath -m "${1:?usage: pipe_passes.sh OUT_DIR GPULINT}")
gl=$(realpath "${2:?usage: pipe_passes.sh OUT_DIR GPULINT}")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" "$here/../build/corpus"
prog="$here/../build/corpus/stencil2d"
[ -x "$prog" ] || nvcc -O3 -arch=sm_90 -o "$prog" "$here/stencil2d.cu"
list=$("$gl" metrics)
passes() {
  ncu --clock-control none --csv --page raw --print-units base --metrics "$1" --launch-count 1 \
    --log-file "$out/p.csv" "$prog" 1024 1 >/dev/null 2>&1
  "$gl" check "$out/p.csv" --format json --exit-zero 2>/dev/null |
    python3 -c 'import json,sys; print(int(json.load(sys.stdin)["kernels"][0]["metrics"].get("replay_passes", -1)))' 2>/dev/null || echo "?"
}
ie() { printf 'sm__inst_executed_pipe_%s.avg.pct_of_peak_sustained_elapsed,' "$@"; }
pc() { printf 'sm__pipe_%s_cycles_active.avg.pct_of_peak_sustained_elapsed,' "$@"; }
branch="sm__inst_executed.sum,sm__sass_inst_executed_op_branch.sum"
echo "gpulint's list: $(passes "$list")"
for set in "$(ie alu xu)" "$(ie alu xu fp64)" "$(ie alu xu fp64 fma)" "$(ie alu xu fp64 fmaheavy)" \
  "$(ie alu xu fp64 uniform)" "$(ie alu xu fp64 fmaheavy uniform)" "$(ie alu xu fp64)$(pc fmaheavy)" \
  "$(ie alu xu fp64 uniform)$(pc fmaheavy)" "$(ie alu xu fp64 fmaheavy uniform)$branch" \
  "$(ie alu xu fp64 uniform)$(pc fmaheavy)$branch"; do
  echo "+ ${set%,}: $(passes "$list,${set%,}")"
done
