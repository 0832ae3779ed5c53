#!/usr/bin/env bash
# Issues #37 and #39, twentieth session: could `--source`'s per-line counters come from
# CUPTI's SASS metrics in the traced run, with no ncu section on any profiled launch?
# Stage `probe` builds samples/corpus/sass_lines_probe.cpp against the toolkit's CUPTI,
# writes the chip's SASS metric list, picks from it the counters gpulint reads per line
# (instructions, global sectors and their ideal, shared wavefronts and their ideal, local
# loads and stores, divergent branches, global atomics), then on source_lines, NW 512,
# LU 1024 and matmul_variants 2048, alternating, twice: the plain run, the probe
# subscribed but patching nothing, the probe patching each kernel's first launch. Last,
# ncu's SourceCounters page of each kernel's first launch (--kernel-id ::regex:.*:1),
# to compare line by line with the probe's rows (sass_lines_compare.py, here).
# Expected before the call (the first):
#   - the SASS metrics API works from an injection library on the H200 (CUDA 13.0), with
#     lazy patching, and gives rows for every kernel of the four programs;
#   - per line, the instructions, sectors, ideal sectors and shared wavefronts equal the
#     page's for the same (first) launch: the counts are deterministic;
#   - cost over the plain run: 0.2-0.5 s for CUPTI's start and the patching (NW, LU,
#     source_lines), up to ~1 s on matmul_variants (its 2048^3 matmuls run instrumented
#     once each); the section in ncu's profiled run cost NW +1.7 s, matmul_variants
#     +2.0 s, source_lines +0.75-1.2 s (lab/runs/2026-12-03-source-cost.txt).
#   usage: OUT=DIR samples/corpus/sass_lines.sh probe   (from the repository root)
set -u
. samples/corpus/common.sh "$OUT/x" target/release/gpulint
. samples/corpus/staged.sh
cupti=/usr/local/cuda/extras/CUPTI
probe_lib="$build/sass_lines_probe.so"
# Counters gpulint reads per line, as the SASS metrics API may name them.
wanted='^smsp__sass_(inst_executed|thread_inst_executed|sectors_mem_global|sectors_mem_global_ideal|l1tex_data_pipe_lsu_wavefronts_mem_shared|l1tex_data_pipe_lsu_wavefronts_mem_shared_ideal|inst_executed_op_local_ld|inst_executed_op_local_st|branch_targets_threads_divergent|inst_executed_op_global_atom|inst_executed_op_global_red)$'
probe() {
  g++ -shared -fPIC -O2 -std=c++17 samples/corpus/sass_lines_probe.cpp \
    -I/usr/local/cuda/include -I"$cupti/include" -L"$cupti/lib64" -L/usr/local/cuda/lib64 \
    -lcupti -lcuda -o "$probe_lib" > "$r/build_probe.txt" 2>&1 || { cat "$r/build_probe.txt"; return; }
  export LD_LIBRARY_PATH="$cupti/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  for p in source_lines nw lud matmul_variants; do build_sample "$p"; done
  CUDA_INJECTION64_PATH="$probe_lib" GPULINT_SASS_LIST="$r/sass_metrics.txt" \
    GPULINT_SASS_OUT=/dev/null "$build/source_lines" > "$r/list_run.txt" 2>&1
  local metrics
  metrics=$(cut -f1 "$r/sass_metrics.txt" | grep -E "$wanted" | paste -sd, -)
  echo "metrics: $metrics" | tee -a "$table"
  for round in 1 2; do
    for entry in "source_lines|" "nw|512" "lud|1024" "matmul_variants|2048"; do
      IFS='|' read -r p args <<< "$entry"
      # shellcheck disable=SC2086
      timed "plain_${p}_$round" "$build/$p" $args
      # shellcheck disable=SC2086
      CUDA_INJECTION64_PATH="$probe_lib" GPULINT_SASS_OFF=1 GPULINT_SASS_OUT=/dev/null \
        timed "off_${p}_$round" "$build/$p" $args
      rm -f "$r/rows_$p.csv"
      # shellcheck disable=SC2086
      CUDA_INJECTION64_PATH="$probe_lib" GPULINT_SASS_METRICS="$metrics" \
        GPULINT_SASS_OUT="$r/rows_$p.csv" timed "on_${p}_$round" "$build/$p" $args
      grep -h 'sass probe' "$r/on_${p}_$round.txt" | sed "s/^/on_${p}_$round: /" | tee -a "$table"
    done
  done
  unset CUDA_INJECTION64_PATH
  for entry in "source_lines|" "nw|512" "lud|1024" "matmul_variants|2048"; do
    IFS='|' read -r p args <<< "$entry"
    # shellcheck disable=SC2086
    timed "page_$p" ncu --clock-control none --section SourceCounters \
      --kernel-id '::regex:.*:1' --csv --page source --print-source cuda,sass \
      --log-file "$r/page_$p.csv" "$build/$p" $args
  done
}
# Stage `tracer` (after `probe`, same session): the launch tracer with its SASS counters
# (GPULINT_SASS_OUT), built as gpulint builds it, after sass_layout_check.cpp has checked its
# hand-made CUPTI declarations against the toolkit's headers. Per program, alternating,
# twice: the plain run, the traced run, the traced run with the counters; the rows and
# traces kept, to compare with `probe`'s pages of each kernel's first launch.
# Expected before the call: the layout check compiles; the rows equal the pages line for
# line on all four programs now (the first launch of each kernel only: the range closes
# before any other launch), where the probe's NW and LU rows summed every launch; the
# trace marks one launch per kernel as instrumented; the counters cost the traced run
# about the probe's on source_lines and matmul_variants (+0.6-0.7 s: their kernels run
# once each) and less than its +0.13-0.25 s on NW and LU.
tracer() {
  g++ -std=c++17 -fsyntax-only -I/usr/local/cuda/include -I"$cupti/include" \
    samples/corpus/sass_layout_check.cpp > "$r/layout_check.txt" 2>&1
  echo "layout check: exit $?" | tee -a "$table"
  local lib="$build/launch_tracer.so"
  g++ -shared -fPIC -O2 -std=c++17 src/profile/ncu/tracer/launch_tracer.cpp -ldl -o "$lib"
  for p in source_lines nw lud matmul_variants; do build_sample "$p"; done
  export GPULINT_CUPTI="$cupti/lib64/libcupti.so"
  for round in 1 2; do
    for entry in "source_lines|" "nw|512" "lud|1024" "matmul_variants|2048"; do
      IFS='|' read -r p args <<< "$entry"
      # shellcheck disable=SC2086
      timed "plain_${p}_$round" "$build/$p" $args
      rm -f "$r/trace_$p.csv" "$r/trace_sass_$p.csv" "$r/tracer_rows_$p.csv"
      # shellcheck disable=SC2086
      CUDA_INJECTION64_PATH="$lib" GPULINT_TRACE_OUT="$r/trace_$p.csv" \
        timed "traced_${p}_$round" "$build/$p" $args
      # shellcheck disable=SC2086
      CUDA_INJECTION64_PATH="$lib" GPULINT_TRACE_OUT="$r/trace_sass_$p.csv" \
        GPULINT_SASS_OUT="$r/tracer_rows_$p.csv" timed "sass_${p}_$round" "$build/$p" $args
      echo "rows_$p: $(($(wc -l < "$r/tracer_rows_$p.csv") - 1)), instrumented launches:" \
        "$(grep -c ',1$' "$r/trace_sass_$p.csv")" | tee -a "$table"
    done
  done
}
for stage in "$@"; do "$stage"; done
