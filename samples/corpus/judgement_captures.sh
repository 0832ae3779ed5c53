#!/usr/bin/env bash
# Captures for issue 40 (the middle ground, launch bursts) and issue 39 (source lines of
# bank conflicts, divergence, local memory and stalls), in one device call:
#   - middle_ground and launch_burst: their own timings, `gpulint run` with the export and
#     launch trace saved, and (middle_ground) `ncu --set full` with its source pages;
#   - reduction: `ncu --set full` with the source pages of its strided and divergent kernels;
#   - the zoo's full report (ZOO_REPORT, xz or not): the source pages of its tiled
#     transposes and its spilling kernel.
# Everything lands in OUT_DIR/judgement.tar.gz; ncu never changes the GPU's clocks (an
# --import takes no --clock-control).
# ONLY="middle_ground reduction zoo" runs just those parts.
#   usage: samples/corpus/judgement_captures.sh OUT_DIR [GPULINT]   (from the repository root)
set -u
# shellcheck source=samples/corpus/common.sh
. "$(dirname "$0")/common.sh"
work=$(mktemp -d)
pack() { tar czf "$out/judgement.tar.gz" -C "$work" . ; }
ncu=(ncu --clock-control none)
nc=(--ncu-arg=--clock-control --ncu-arg=none)
for p in middle_ground launch_burst reduction; do build_sample "$p" & done
wait
source_page() { # REPORT KERNEL-REGEX NAME: the CUDA and SASS source page of those launches
  ncu --import "$1" --csv --page source --print-source cuda,sass -k "regex:$2" \
    > "$work/source_$3.csv" 2> "$work/source_$3.err"
}

if [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" middle_ground "* ]]; then
echo "== middle_ground"
"$build/middle_ground" > "$work/middle_ground.stdout" 2>&1; cat "$work/middle_ground.stdout"
t0=$(now)
"$gl" run "${nc[@]}" --exit-zero --save-csv "$work/min_middle_ground.csv" \
  --save-trace "$work/trace_middle_ground.csv" -- "$build/middle_ground" 512 1 \
  > "$work/run_middle_ground.txt" 2>&1
echo "gpulint run: $(since "$t0") s"
"${ncu[@]}" --set full --import-source yes -o "$work/middle_ground" "$build/middle_ground" 512 1 \
  > /dev/null 2>&1
ncu --import "$work/middle_ground.ncu-rep" --csv --page raw --print-units base \
  > "$work/full_middle_ground.csv" 2>/dev/null
source_page "$work/middle_ground.ncu-rep" "gemm_global_acc" gemm_global_acc
source_page "$work/middle_ground.ncu-rep" "walk_global" walk_global
rm -f "$work/middle_ground.ncu-rep"
pack
fi
if [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" launch_burst "* ]]; then
echo "== launch_burst"
"$build/launch_burst" > "$work/launch_burst.stdout" 2>&1; cat "$work/launch_burst.stdout"
t0=$(now)
"$gl" run "${nc[@]}" --exit-zero --save-csv "$work/min_launch_burst.csv" \
  --save-trace "$work/trace_launch_burst.csv" -- "$build/launch_burst" \
  > "$work/run_launch_burst.txt" 2>&1
echo "gpulint run: $(since "$t0") s"
pack
fi
if [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" reduction "* ]]; then
echo "== reduction"
"${ncu[@]}" --set full --import-source yes -o "$work/reduction" "$build/reduction" 24 \
  > /dev/null 2>&1
ncu --import "$work/reduction.ncu-rep" --csv --page raw --print-units base \
  > "$work/full_reduction_source.csv" 2>/dev/null
source_page "$work/reduction.ncu-rep" "reduce_strided_index" reduce_strided_index
source_page "$work/reduction.ncu-rep" "reduce_divergent" reduce_divergent
rm -f "$work/reduction.ncu-rep"
pack
fi
if [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" zoo "* ]]; then
echo "== zoo"
if [ -n "${ZOO_REPORT:-}" ]; then
  report=$work/zoo_full.ncu-rep
  case $ZOO_REPORT in *.xz) xz -dc "$ZOO_REPORT" > "$report" ;; *) cp "$ZOO_REPORT" "$report" ;; esac
  source_page "$report" "transpose_tiled" transpose_tiled
  source_page "$report" "reg_spill" reg_spill
  rm -f "$report"
fi
fi
ls -la "$work"
pack
