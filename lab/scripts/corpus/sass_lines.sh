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
#   usage: OUT=DIR lab/scripts/corpus/sass_lines.sh probe   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
cupti=/usr/local/cuda/extras/CUPTI
# The source lines a run's report named (its log $r/$1.txt), as "lines_$1: file.cu:N ...".
lines_named() {
  grep -o '[a-z_0-9]*\.cu:[0-9]*' "$r/$1.txt" | sort -u | paste -sd' ' - |
    sed "s/^/lines_$1: /" | tee -a "$table"
}
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
  # As gpulint finds it (lab/runs/2026-12-01-cupti-check.txt): the toolkit's lib64.
  export GPULINT_CUPTI=/usr/local/cuda/lib64/libcupti.so
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
# Stage `modes`: the tracer's counters came back all zero in `tracer` (the range opened in
# the first launch's own launch call, closed at the next launch's). Which opening counts a
# first launch? GPULINT_SASS_MODE (a lab switch of this build): `enter` as in `tracer`;
# `context`, the range open from the context's creation; `exit`, counts taken at the end
# of the first launch's call, after a synchronize. Once each, on source_lines and NW.
# Expected before the call: `context` counts the kernels launched first while the range
# is open (all of source_lines', NW's first kernel), `exit` none if the zero is the patch
# coming too late for the launch that opened the range.
modes() {
  local lib="$build/launch_tracer.so"
  g++ -shared -fPIC -O2 -std=c++17 src/profile/ncu/tracer/launch_tracer.cpp -ldl -o "$lib"
  for p in source_lines nw; do build_sample "$p"; done
  export GPULINT_CUPTI=/usr/local/cuda/lib64/libcupti.so
  for m in enter context exit; do
    for entry in "source_lines|" "nw|512"; do
      IFS='|' read -r p args <<< "$entry"
      # shellcheck disable=SC2086
      CUDA_INJECTION64_PATH="$lib" GPULINT_TRACE_OUT="$r/trace_${m}_$p.csv" GPULINT_SASS_MODE=$m \
        GPULINT_SASS_OUT="$r/rows_${m}_$p.csv" timed "${m}_$p" "$build/$p" $args
      python3 -c 'import csv, collections, sys
n = collections.Counter()
for row in list(csv.reader(open(sys.argv[1])))[1:]:
    n[row[0]] += int(row[4])
for k, v in sorted(n.items()):
    print(k, v)' "$r/rows_${m}_$p.csv" | sed "s/^/$m $p: /" | tee -a "$table"
    done
  done
}
# Stage `variants`: `modes` gave zeros in every mode, where the probe gave counts. The
# tracer differs from the probe in its kernel activity records and its 11 counters (the
# probe's 9 lacked the shared wavefronts). In `context` mode, on NW: as is; without the
# activity records; with the probe's 9 counters; with the instructions alone.
# Expected before the call: one of the variants counts, naming the difference.
variants() {
  local lib="$build/launch_tracer.so"
  g++ -shared -fPIC -O2 -std=c++17 src/profile/ncu/tracer/launch_tracer.cpp -ldl -o "$lib"
  build_sample nw
  export GPULINT_CUPTI=/usr/local/cuda/lib64/libcupti.so GPULINT_SASS_MODE=context \
    GPULINT_SASS_DEBUG=1
  local nine=smsp__sass_branch_targets_threads_divergent,smsp__sass_inst_executed,smsp__sass_inst_executed_op_global_atom,smsp__sass_inst_executed_op_global_red,smsp__sass_inst_executed_op_local_ld,smsp__sass_inst_executed_op_local_st,smsp__sass_sectors_mem_global,smsp__sass_sectors_mem_global_ideal,smsp__sass_thread_inst_executed
  for v in as_is no_activity nine one; do
    local env=()
    case $v in
      no_activity) env=(GPULINT_SASS_NO_ACTIVITY=1) ;;
      nine) env=("GPULINT_SASS_METRIC_LIST=$nine") ;;
      one) env=(GPULINT_SASS_METRIC_LIST=smsp__sass_inst_executed) ;;
    esac
    env "${env[@]}" CUDA_INJECTION64_PATH="$lib" GPULINT_TRACE_OUT="$r/trace_$v.csv" \
      GPULINT_SASS_OUT="$r/rows_$v.csv" "$build/nw" 512 > "$r/$v.txt" 2>&1
    python3 -c 'import csv, collections, sys
rows = list(csv.reader(open(sys.argv[1])))
n = collections.Counter()
for row in rows[1:]:
    for name, value in zip(rows[0][4:], row[4:]):
        n[name] += int(value)
print(dict(n))' "$r/rows_$v.csv" | sed "s/^/$v: /" | tee -a "$table"
    grep -m3 'sass:' "$r/$v.txt" | sed "s/^/$v: /" | tee -a "$table"
  done
}
# Before `endtoend`, stage `tracer` again, with the build that takes the serial kernel
# records when it counts (`activity`: the concurrent kind's zero the counts).
# Expected before that call: the rows equal the pages of the first launches on every
# cell of source_lines, NW and LU, and on matmul_variants but matmul_wmma's lines that
# the page also credits with the loads inlined from mma.hpp.
# Stage `endtoend`: gpulint run, this build (target/release/gpulint) against the last
# (04468ad, target/old/gpulint, whose --source takes ncu's section), per program,
# alternating, twice: the default run, --source, --source with the old build. The lines
# each names, and the time.
# Expected before the call: this build's --source names the old build's lines (those of
# the kernels' first launches may differ where a kernel's launches differ: NW, LU), and
# adds at most 15% to the default run on source_lines, NW and matmul_variants (the traced
# run's counters, no section in ncu's run); LU, whose last run read stall samples, takes
# its small sample's section as before.
# Stage `endtoend` again (`endtoend` alone when target/old/gpulint is absent: this build's
# default and --source runs), with the build whose instrumented launches take their
# kernel's time per block where no launch of their shape ran without the counters, and
# ncu's measure once profiled.
# Expected before that call: LU's --source samples the launches its default run samples
# (1|34 or 1|35) and keeps latency-bound; every program gives its default run's warnings;
# the kernel table gives ncu's durations (matmul_naive about 3.2 ms, not 447 ms); the
# costs as in the first `endtoend`.
endtoend() {
  local old; old=$(realpath -m target/old/gpulint)
  for p in source_lines nw lud matmul_variants; do build_sample "$p"; done
  for round in 1 2; do
    for entry in "source_lines|" "nw|512" "lud|1024" "matmul_variants|2048"; do
      IFS='|' read -r p args <<< "$entry"
      # shellcheck disable=SC2086
      run_gl "e_default_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "e_source_${p}_$round" --verbose --source -- "$build/$p" $args
      if [ -x "$old" ]; then
        # shellcheck disable=SC2086
        gl=$old run_gl "e_old_${p}_$round" --verbose --source -- "$build/$p" $args
        lines_named "e_old_${p}_$round"
      fi
      lines_named "e_source_${p}_$round"
      for v in default source; do
        grep -o '^warning\[GL[0-9]*\][^:]*' "$r/e_${v}_${p}_$round.txt" | sort | uniq -c |
          paste -sd' ' - | sed "s/^/warnings_${v}_${p}_$round: /" | tee -a "$table"
      done
      grep -h -- '--source:\|source pass:' "$r/e_source_${p}_$round.txt" | cut -c1-120 |
        sed "s/^/notes_${p}_$round: /" | tee -a "$table"
    done
  done
}
# Stage `activity`: `variants` found the kernel activity records zero the SASS counts (off,
# they count). GPULINT_SASS_ACTIVITY (a lab switch of this build): `start` (as is),
# `late` (activity enabled after the SASS range first opens, `context` mode), `kernel`
# (CUPTI_ACTIVITY_KIND_KERNEL instead of the concurrent kind), `toggle` (the activity off
# while a range is open, `enter` mode), `off`. On NW: the counts, and the trace's launches
# (63 when every launch has its record).
# Expected before the call: `toggle` counts and loses the 2 instrumented launches' records
# (61 rows); `late` and `kernel` unknown.
activity() {
  local lib="$build/launch_tracer.so"
  g++ -shared -fPIC -O2 -std=c++17 src/profile/ncu/tracer/launch_tracer.cpp -ldl -o "$lib"
  build_sample nw
  export GPULINT_CUPTI=/usr/local/cuda/lib64/libcupti.so
  for v in start late kernel toggle off; do
    local mode=context
    [ "$v" = toggle ] && mode=enter
    rm -f "$r/trace_a_$v.csv"
    GPULINT_SASS_ACTIVITY=$v GPULINT_SASS_MODE=$mode CUDA_INJECTION64_PATH="$lib" \
      GPULINT_TRACE_OUT="$r/trace_a_$v.csv" GPULINT_SASS_OUT="$r/rows_a_$v.csv" \
      "$build/nw" 512 > "$r/a_$v.txt" 2>&1
    python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
print(sum(int(r[4]) for r in rows[1:]))' "$r/rows_a_$v.csv" | sed "s/^/$v instructions: /" |
      tee -a "$table"
    echo "$v trace rows: $(grep -c '^[0-9]' "$r/trace_a_$v.csv" 2>/dev/null)" | tee -a "$table"
  done
}
# Stage `stalls` (written in the twentieth session, for the next one's first call): CUPTI's PC
# sampling in the traced run (samples/corpus/stall_lines_probe.cpp), for the findings that
# read the warps' stall samples. Per program with such a finding (LU 1024, BFS 1048576 8,
# template_phases), alternating, twice: the plain run, the probe subscribed but not
# sampling, the probe sampling; then ncu's SourceCounters page (with its warp sampling) of
# each kernel's first launch, compared by stall_lines_compare.py here.
# Expected before the call: PC sampling in continuous mode costs the run 0.1-0.5 s; each
# kernel's top line by stall samples is the page's (LU's lud_internal: lud.cu:77, long
# scoreboard), though the probe samples every launch and the page one.
stalls() {
  local lib="$build/stall_lines_probe.so"
  g++ -shared -fPIC -O2 -std=c++17 samples/corpus/stall_lines_probe.cpp \
    -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcupti -lcuda -o "$lib" \
    > "$r/build_stall_probe.txt" 2>&1 || { cat "$r/build_stall_probe.txt"; return; }
  export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  for p in lud bfs template_phases; do build_sample "$p"; done
  for round in 1 2; do
    for entry in "lud|1024" "bfs|1048576 8" "template_phases|"; do
      IFS='|' read -r p args <<< "$entry"
      # shellcheck disable=SC2086
      timed "plain_${p}_$round" "$build/$p" $args
      # shellcheck disable=SC2086
      CUDA_INJECTION64_PATH="$lib" GPULINT_STALL_OFF=1 timed "stall_off_${p}_$round" \
        "$build/$p" $args
      # shellcheck disable=SC2086
      CUDA_INJECTION64_PATH="$lib" GPULINT_STALL_OUT="$r/stall_rows_$p.csv" \
        timed "stall_on_${p}_$round" "$build/$p" $args
      grep -h 'stall probe' "$r/stall_on_${p}_$round.txt" | sed "s/^/${p}_$round: /" |
        tee -a "$table"
    done
  done
  for entry in "lud|1024" "bfs|1048576 8" "template_phases|"; do
    IFS='|' read -r p args <<< "$entry"
    # shellcheck disable=SC2086
    timed "stall_page_$p" ncu --clock-control none --section SourceCounters \
      --kernel-id '::regex:.*:1' --csv --page source --print-source cuda \
      --log-file "$r/stall_page_$p.csv" "$build/$p" $args
    python3 samples/corpus/stall_lines_compare.py "$r/stall_rows_$p.csv" \
      "$r/stall_page_$p.csv" | sed "s/^/$p: /" | tee -a "$table"
  done
}
# Stage `sampled` (twenty-first session): `stalls` showed CUPTI's PC sampling works from an
# injection library (+0.45-0.5 s a run) but compared nothing (its pages lacked the SASS
# rows). The launch tracer now samples the user's kernels' stalls too (GPULINT_STALL_OUT,
# namespace stalls, declarations checked by sass_layout_check.cpp). Per program, alternating,
# twice: the plain run, the traced run with the SASS counters, the traced run with both;
# then ncu's page of each kernel's first launch with its SASS rows and warp sampling,
# compared line by line by stall_lines_compare.py.
# Expected before the call: the layout check compiles; the sampling and the counters work
# together (rows from both); sampling adds ~0.5 s to the traced run; each kernel's top line
# by stall samples is the page's (lud_internal: lud.cu:77), shares within ~15 points,
# though the tracer samples every launch and the page one (and the counted first launch
# runs instrumented: matmul_variants' kernels run once, so theirs may differ most).
sampled() {
  g++ -std=c++17 -fsyntax-only -I/usr/local/cuda/include samples/corpus/sass_layout_check.cpp \
    > "$r/layout_check.txt" 2>&1
  echo "layout check: exit $?" | tee -a "$table"
  head -20 "$r/layout_check.txt"
  local lib="$build/launch_tracer.so"
  g++ -shared -fPIC -O2 -std=c++17 src/profile/ncu/tracer/launch_tracer.cpp -ldl -o "$lib"
  local programs=("lud|1024" "bfs|1048576 8" "template_phases|" "matmul_variants|2048")
  for entry in "${programs[@]}"; do build_sample "${entry%%|*}"; done
  export GPULINT_CUPTI=/usr/local/cuda/lib64/libcupti.so
  for round in 1 2; do
    for entry in "${programs[@]}"; do
      IFS='|' read -r p args <<< "$entry"
      # shellcheck disable=SC2086
      timed "plain_${p}_$round" "$build/$p" $args
      rm -f "$r/s_rows_$p.csv" "$r/s_stalls_$p.csv" "$r/s_trace_$p.csv"
      # shellcheck disable=SC2086
      CUDA_INJECTION64_PATH="$lib" GPULINT_TRACE_OUT="$r/s_trace_$p.csv" \
        GPULINT_SASS_OUT="$r/s_rows_$p.csv" timed "counters_${p}_$round" "$build/$p" $args
      rm -f "$r/s_rows_$p.csv" "$r/s_trace_$p.csv"
      # shellcheck disable=SC2086
      CUDA_INJECTION64_PATH="$lib" GPULINT_TRACE_OUT="$r/s_trace_$p.csv" \
        GPULINT_SASS_OUT="$r/s_rows_$p.csv" GPULINT_STALL_OUT="$r/s_stalls_$p.csv" \
        timed "both_${p}_$round" "$build/$p" $args
      echo "${p}_$round: counter rows $(grep -vc '^function' "$r/s_rows_$p.csv"), stall rows" \
        "$(grep -vc '^function' "$r/s_stalls_$p.csv")" | tee -a "$table"
    done
  done
  unset GPULINT_CUPTI
  for entry in "${programs[@]}"; do
    IFS='|' read -r p args <<< "$entry"
    # shellcheck disable=SC2086
    timed "s_page_$p" ncu --clock-control none --section SourceCounters \
      --kernel-id '::regex:.*:1' --csv --page source --print-source cuda,sass \
      --log-file "$r/s_page_$p.csv" "$build/$p" $args
    python3 samples/corpus/stall_lines_compare.py "$r/s_stalls_$p.csv" "$r/s_page_$p.csv" |
      sed "s/^/$p: /" | tee -a "$table"
  done
}
# Stage `sourced` (twenty-first session): gpulint run, the default then --source, twice,
# on the programs whose findings read stall samples (LU, BFS, template_phases) and on
# those measured before (NW, source_lines, matmul_variants). A --source run after the
# default samples the stalls in the traced run where the default had such a finding, and
# counts the first launches in every case (the memory gate is gone: counted launches take a
# like launch's duration).
# Expected before the call: the default's warnings in every --source run (LU keeps
# latency-bound); no source pass where every finding's kernel was counted and sampled;
# --source within 30% of the default on all six (LU, BFS, template_phases were +45-49%).
sourced() {
  local programs=("lud|1024" "bfs|1048576 8" "template_phases|" "nw|512" "source_lines|"
    "matmul_variants|2048")
  for entry in "${programs[@]}"; do build_sample "${entry%%|*}"; done
  for round in 1 2; do
    for entry in "${programs[@]}"; do
      IFS='|' read -r p args <<< "$entry"
      # shellcheck disable=SC2086
      run_gl "d_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "s_${p}_$round" --verbose --source -- "$build/$p" $args
      lines_named "s_${p}_$round"
      for v in d s; do
        grep -o '^warning\[GL[0-9]*\][^:]*' "$r/${v}_${p}_$round.txt" | sort | uniq -c |
          paste -sd' ' - | sed "s/^/warnings_${v}_${p}_$round: /" | tee -a "$table"
      done
      grep -h -- '--source:\|source pass:' "$r/s_${p}_$round.txt" | cut -c1-140 |
        sed "s/^/notes_${p}_$round: /" | tee -a "$table"
    done
  done
}
# Stage `fewer` (twenty-first session): `sourced` put matmul_variants' --source at +30% of
# the default (3.91 -> 5.09 s, 3.87 -> 5.04 s): its counted first launches run
# instrumented (the traced run 1.45-1.48 s against 0.37 s plain). The tracer counted every
# instruction (smsp__sass_inst_executed), which gpulint does not read; this build leaves it
# out. Alternating, three times: the plain run, the traced run with the counters as built
# (`new`), and with the instruction count put back (`old`), on matmul_variants and
# source_lines; the rows compared (new against old, every column new has); then gpulint
# run, the default and --source, twice on matmul_variants.
# Expected before the call: if CUPTI patches only the instructions a metric counts,
# matmul_variants' traced run with `new` is well under `old`'s (its inner loops are FMAs
# between two loads); the rows are equal in every column; --source within 30%.
# Run once, in call 5, on that build. The count is back since (it was faster with it), and
# kMetrics is now in launch_tracer_sass.inc: as it stands the stage compares nothing.
fewer() {
  local new="$build/tracer_new.so" old="$build/tracer_old.so"
  g++ -shared -fPIC -O2 -std=c++17 src/profile/ncu/tracer/launch_tracer.cpp -ldl -o "$new"
  sed 's/^constexpr const char\* kMetrics\[\] = {$/&\n    "smsp__sass_inst_executed",/' \
    src/profile/ncu/tracer/launch_tracer.cpp > "$build/tracer_old.cpp"
  grep -c '"smsp__sass_inst_executed",' "$build/tracer_old.cpp" | sed 's/^/old counts: /' |
    tee -a "$table"
  g++ -shared -fPIC -O2 -std=c++17 "$build/tracer_old.cpp" -ldl -o "$old"
  for p in matmul_variants source_lines; do build_sample "$p"; done
  export GPULINT_CUPTI=/usr/local/cuda/lib64/libcupti.so
  for round in 1 2 3; do
    for entry in "matmul_variants|2048" "source_lines|"; do
      IFS='|' read -r p args <<< "$entry"
      # shellcheck disable=SC2086
      timed "f_plain_${p}_$round" "$build/$p" $args
      for v in new old; do
        local lib=$new
        [ "$v" = old ] && lib=$old
        rm -f "$r/f_rows_${v}_$p.csv"
        # shellcheck disable=SC2086
        CUDA_INJECTION64_PATH="$lib" GPULINT_TRACE_OUT=/dev/null \
          GPULINT_SASS_OUT="$r/f_rows_${v}_$p.csv" timed "f_${v}_${p}_$round" "$build/$p" $args
      done
      python3 - "$r/f_rows_new_$p.csv" "$r/f_rows_old_$p.csv" <<'PY' | sed "s/^/${p}_$round: /" |
import csv, sys
new, old = (list(csv.DictReader(open(f))) for f in sys.argv[1:])
key = lambda r: (r["function"], r["pc"])
old_by = {key(r): r for r in old}
cols = [c for c in new[0] if c.startswith("smsp__")] if new else []
same = sum(1 for r in new if key(r) in old_by and all(r[c] == old_by[key(r)][c] for c in cols))
print(f"rows new {len(new)}, old {len(old)}, equal in {len(cols)} columns: {same}")
PY
        tee -a "$table"
    done
  done
  unset GPULINT_CUPTI
  for round in 1 2; do
    run_gl "fd_matmul_variants_$round" --verbose -- "$build/matmul_variants" 2048
    run_gl "fs_matmul_variants_$round" --verbose --source -- "$build/matmul_variants" 2048
    lines_named "fs_matmul_variants_$round"
    for v in fd fs; do
      grep -o '^warning\[GL[0-9]*\][^:]*' "$r/${v}_matmul_variants_$round.txt" | sort |
        uniq -c | paste -sd' ' - | sed "s/^/warnings_${v}_$round: /" | tee -a "$table"
    done
  done
}
# Stage `targeted` (twenty-first session): `fewer` kept matmul_variants at +30-35%. A
# --source run now counts only the kernels the last run of the command had a finding on a
# line in (GPULINT_SASS_KERNELS, from gpulint's memory), where it counted all of the
# user's. The default then --source, twice, on matmul_variants (6 kernels, 2 with a
# finding on a line), source_lines and LU (as before, to see nothing else moved).
# Expected before the call: matmul_variants' --source counts 2 kernels, names :132 and :67
# as before, and costs well under +30% (its naive matmul, 447 ms instrumented, no longer
# counted); source_lines and LU as in call 4 (+8-13%, +10%), the same warnings.
targeted() {
  local programs=("matmul_variants|2048" "source_lines|" "lud|1024")
  for entry in "${programs[@]}"; do build_sample "${entry%%|*}"; done
  for round in 1 2; do
    for entry in "${programs[@]}"; do
      IFS='|' read -r p args <<< "$entry"
      # shellcheck disable=SC2086
      run_gl "td_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "ts_${p}_$round" --verbose --source -- "$build/$p" $args
      lines_named "ts_${p}_$round"
      for v in td ts; do
        grep -o '^warning\[GL[0-9]*\][^:]*' "$r/${v}_${p}_$round.txt" | sort | uniq -c |
          paste -sd' ' - | sed "s/^/warnings_${v}_${p}_$round: /" | tee -a "$table"
      done
      grep -h -- '--source:\|source pass:\|time:' "$r/ts_${p}_$round.txt" | cut -c1-140 |
        sed "s/^/notes_${p}_$round: /" | tee -a "$table"
    done
  done
}
# Stage `torchsource` (twenty-first session): --source on a PyTorch script whose
# torch.compile'd Triton kernels are the user's (launched from Triton's cache, outside
# Python's packages): the traced run now counts them and samples the stalls whatever the
# memory (the gate is gone), with CUPTI's serial kernel records, over a script of 2,000
# launches. The CNN at 10 steps: plain, default, --source, once each.
# Expected before the call: no crash, the default's warnings; the traced run counts the
# Triton kernels' first launches (a handful) and --source stays within 30% of the default
# (the traced run is about the program's time; sampling ~0.5 s); lines, if any finding on
# a Triton kernel has a line cause, in Inductor's generated .py files.
torchsource() {
  timed plain_cnn python3 samples/apps/torch_cnn.py 10
  run_gl tdefault_cnn --verbose -- python3 samples/apps/torch_cnn.py 10
  run_gl tsource_cnn --verbose --source -- python3 samples/apps/torch_cnn.py 10
  lines_named tsource_cnn
  for v in tdefault tsource; do
    grep -o '^warning\[GL[0-9]*\][^:]*' "$r/${v}_cnn.txt" | sort | uniq -c |
      paste -sd' ' - | sed "s/^/warnings_${v}: /" | tee -a "$table"
  done
  grep -h -- '--source:\|source pass:\|time:\|traced run' "$r/tsource_cnn.txt" | cut -c1-160 |
    sed "s/^/notes_cnn: /" | tee -a "$table"
}
# Stage `final` (twenty-first session): the last build, after the changes made since call
# 6 (stall samples only under CUPTI 13.0 or later, the tracer's parts put in place for the
# compiler on stdin). The default then --source on LU and BFS, once each.
# Expected before the call: the tracer builds from stdin; the CUPTI gpulint finds is 13.0
# (version.json), so both --source runs note the stalls sampled and run no pass; the
# default's warnings; costs as in calls 4 and 6.
final() {
  for entry in "lud|1024" "bfs|1048576 8"; do
    IFS='|' read -r p args <<< "$entry"
    build_sample "$p"
    # shellcheck disable=SC2086
    run_gl "fin_d_$p" --verbose -- "$build/$p" $args
    # shellcheck disable=SC2086
    run_gl "fin_s_$p" --verbose --source -- "$build/$p" $args
    lines_named "fin_s_$p"
    for v in fin_d fin_s; do
      grep -o '^warning\[GL[0-9]*\][^:]*' "$r/${v}_$p.txt" | sort | uniq -c |
        paste -sd' ' - | sed "s/^/warnings_${v}_$p: /" | tee -a "$table"
    done
    grep -h -- '--source:\|source pass:\|CUPTI\|tracer' "$r/fin_s_$p.txt" | cut -c1-160 |
      sed "s/^/notes_$p: /" | tee -a "$table"
  done
}
for stage in "$@"; do "$stage"; done
