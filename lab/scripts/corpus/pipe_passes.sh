#!/usr/bin/env bash
# Which sets of per-pipe metrics fit in gpulint's replay passes: gpulint's list plus each set,
# on one launch of stencil2d (issue #26: each pipe alone costs none, all eleven cost two).
#   usage: lab/scripts/corpus/pipe_passes.sh OUT_DIR GPULINT   (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
source "$(dirname "$0")/common.sh" "${1:?usage: pipe_passes.sh OUT_DIR GPULINT}" "${2:?usage: pipe_passes.sh OUT_DIR GPULINT}"
build_sample stencil2d
list=$("$gl" metrics)
passes() { stencil_passes "$@"; }
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
