#!/usr/bin/env bash
# Issues #37, #39 and #40 on the H200, tenth session. Stages, one or more per device call:
#   lines   source_lines.cu under ncu --set full with its source pages (every kernel's,
#           and the page of all kernels at once); gpulint run --source on it; its suggested
#           edit applied to a copy, rebuilt and measured against the original
#   pairs   heldout_pairs.cu: its own timer, then every launch under gpulint run (the
#           capture the held-out stake test reads)
#   cost    --source against the default run (matmul_variants, source_lines); LU and nw
#           twice (the second run finds the chip remembered); the CNN with cuDNN and
#           torch.compile; torch_compile.py's trace (Triton kernels' origins)
#   torch   the transformer at 2 steps: default against every launch; the CNN with
#           --stop-once-profiled
#   fix     the bank-conflicted transpose before and after gpulint's suggested edit, three
#           ncu timings each (the edited copy rebuilt from the edit gpulint suggests)
#   hier    every launch of heldout_pairs, middle_ground, matmul_variants and source_lines
#           with the hierarchical roofline's metrics (the captures its tests read), and
#           matmul_variants' default run for its replay passes and time
#   cnnprobe  why the CNN runs 2.6x slower under ncu: 5 steps plain, under ncu profiling
#           one launch with the duration alone, and with gpulint's metric list
#   check   the session's last build end to end: --source on source_lines (every line and
#           the edit), --quiet, and LU's default run
#   final   the last build: the suggested edit taken from a report of every launch,
#           applied, rebuilt, and both builds profiled three times each (ncu's durations);
#           --source against the default run, twice each
#   sourcecost  --source as a pass of its own, against the SourceCounters section in the
#           sample's own run (matmul_variants, source_lines), with stage times
# Everything lands in $OUT/r, packed after each step into $OUT/results.tar.gz.
#   usage: OUT=DIR lab/scripts/corpus/lines_and_pairs.sh STAGE...   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
lines() {
  build_sample source_lines
  local prog="$build/source_lines"
  timed full_source_lines ncu --clock-control none --set full --import-source yes -f \
    -o "$r/source_lines" "$prog"
  ncu --import "$r/source_lines.ncu-rep" --csv --page raw --print-units base > "$r/full_source_lines.csv"
  for k in transpose_conflicted reduce_strided_index local_dynamic_index divergent_by_lane; do
    ncu --import "$r/source_lines.ncu-rep" --csv --page source --print-source cuda,sass -k "$k" \
      > "$r/source_$k.csv"
  done
  ncu --import "$r/source_lines.ncu-rep" --csv --page source --print-source cuda,sass \
    > "$r/source_all_kernels.csv"
  rm -f "$r/source_lines.ncu-rep"
  run_gl default_source_lines --format json -- "$prog"
  run_gl source_source_lines --source --verbose --format json -o "$r/source_report.json" -- "$prog"
  run_gl source_source_lines_text --source -- "$prog"
  # The suggested edit, applied to a copy of the source, rebuilt and profiled.
  python3 - "$r/source_report.json" samples/corpus/source_lines.cu "$build/source_lines_edited.cu" <<'EOF' > "$r/edit_applied.txt" 2>&1
import json, sys
report = json.load(open(sys.argv[1]))
edits = [f["suggested_edit"] for f in report["findings"] if "suggested_edit" in f]
print("edits:", json.dumps(edits))
src = open(sys.argv[2]).read().split("\n")
for e in edits:
    line = src[e["line"] - 1]
    assert e["before"] in line, (e, line)
    src[e["line"] - 1] = line.replace(e["before"], e["after"])
    print("applied at line", e["line"], ":", src[e["line"] - 1].strip())
open(sys.argv[3], "w").write("\n".join(src))
EOF
  tar czf "$OUT/results.tar.gz" -C "$r" .
  cp "$here/pairs_timing.cuh" "$build/" 2>/dev/null
  nvcc -O3 -arch=sm_90 -lineinfo -o "$build/source_lines_edited" "$build/source_lines_edited.cu" \
    > "$r/edited_build.txt" 2>&1
  run_gl edited_source_lines --format json -- "$build/source_lines_edited"
  run_gl original_again_source_lines --format json -- "$prog"
}
pairs() {
  build_sample heldout_pairs
  timed timer_heldout_pairs "$build/heldout_pairs" 5
  run_gl all_heldout_pairs --all-launches --save-csv "$r/run_heldout_pairs.csv" --format json \
    -- "$build/heldout_pairs" 1
}
cost() {
  build_sample matmul_variants
  build_sample source_lines
  for p in matmul_variants source_lines; do
    local args=(); [ "$p" = matmul_variants ] && args=(2048)
    timed "plain_$p" "$build/$p" "${args[@]}"
    run_gl "default_$p" -- "$build/$p" "${args[@]}"
    run_gl "withsource_$p" --source --verbose -- "$build/$p" "${args[@]}"
  done
  for p in lud nw; do
    build_sample $p
    local a=1024; [ $p = nw ] && a=512
    timed "plain_$p" "$build/$p" $a
    run_gl "first_$p" --verbose -- "$build/$p" $a
    run_gl "second_$p" --verbose -- "$build/$p" $a
  done
  timed plain_cnn python3 samples/apps/torch_cnn.py
  run_gl default_cnn --verbose --save-csv "$r/default_cnn.csv" -- python3 samples/apps/torch_cnn.py
  run_gl compile_origins --format json --save-csv "$r/torch_compile.csv" -- python3 samples/apps/torch_compile.py
}
torch() {
  run_gl default_transformer_2 --format json --save-csv "$r/default_transformer_2.csv" \
    -- python3 samples/apps/torch_transformer.py 2
  run_gl all_transformer_2 --all-launches --format json --save-csv "$r/all_transformer_2.csv" \
    -- python3 samples/apps/torch_transformer.py 2
  run_gl stop_cnn --stop-once-profiled --verbose -- python3 samples/apps/torch_cnn.py
}
# Applies the suggested edits of gpulint's JSON report $1 to source $2, writing $3.
apply_edits() {
  python3 -c '
import json, sys
report = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read().split("\n")
for e in [f["suggested_edit"] for f in report["findings"] if "suggested_edit" in f]:
    src[e["line"] - 1] = src[e["line"] - 1].replace(e["before"], e["after"])
    print("applied at line", e["line"], ":", src[e["line"] - 1].strip())
open(sys.argv[3], "w").write("\n".join(src))
' "$@"
}
fix() {
  build_sample source_lines
  run_gl suggest_source_lines --source --format json -o "$r/suggest.json" -- "$build/source_lines"
  apply_edits "$r/suggest.json" samples/corpus/source_lines.cu "$build/source_lines_edited.cu" \
    > "$r/fix_applied.txt" 2>&1
  nvcc -O3 -arch=sm_90 -lineinfo -o "$build/source_lines_edited" "$build/source_lines_edited.cu" 2>/dev/null
  for round in 1 2 3; do
    for b in source_lines source_lines_edited; do
      ncu --clock-control none --metrics gpu__time_duration.sum --csv --page raw --print-units base \
        -k transpose_conflicted "$build/$b" 2>/dev/null | grep transpose_conflicted |
        sed "s/^/$b round $round: /" >> "$r/fix_timings.txt"
    done
  done
  run_gl fixed_source_lines --all-launches --format json -- "$build/source_lines_edited"
  tar czf "$OUT/results.tar.gz" -C "$r" .
}
sourcecost() {
  build_sample matmul_variants
  build_sample source_lines
  for p in matmul_variants source_lines; do
    local args=(); [ "$p" = matmul_variants ] && args=(2048)
    run_gl "default_$p" --verbose -- "$build/$p" "${args[@]}"
    run_gl "pass_$p" --source --verbose -- "$build/$p" "${args[@]}"
    run_gl "inline_$p" --verbose --ncu-arg=--section --ncu-arg=SourceCounters -- "$build/$p" "${args[@]}"
  done
}
hier() {
  for p in heldout_pairs middle_ground matmul_variants source_lines; do
    build_sample $p
    local args=(); [ $p = heldout_pairs ] && args=(1); [ $p = matmul_variants ] && args=(2048)
    [ $p = middle_ground ] && args=(512 1)
    run_gl "hier_$p" --all-launches --verbose --save-csv "$r/hier_$p.csv" -- "$build/$p" "${args[@]}"
  done
  run_gl hier_default_matmul_variants --verbose -- "$build/matmul_variants" 2048
}
cnnprobe() {
  local cnn=(python3 samples/apps/torch_cnn.py 5)
  timed probe_plain "${cnn[@]}"
  timed probe_ncu_duration ncu --clock-control none --kernel-name regex:sm80 --launch-count 1 \
    --metrics gpu__time_duration.sum --csv --log-file "$r/probe_duration.csv" "${cnn[@]}"
  timed probe_ncu_gpulint ncu --clock-control none --kernel-name regex:sm80 --launch-count 1 \
    --metrics "$("$gl" metrics)" --csv --log-file "$r/probe_gpulint.csv" "${cnn[@]}"
}
check() {
  build_sample source_lines
  build_sample lud
  run_gl check_source_lines --source --format json -o "$r/check_source_lines.json" -- "$build/source_lines"
  run_gl check_quiet_lud --quiet -- "$build/lud" 1024
  timed plain_lud "$build/lud" 1024
  run_gl check_default_lud --verbose -- "$build/lud" 1024
}
final() {
  build_sample source_lines
  build_sample matmul_variants
  run_gl every_source_lines --all-launches --source --format json -o "$r/every.json" -- "$build/source_lines"
  apply_edits "$r/every.json" samples/corpus/source_lines.cu "$build/source_lines_edited.cu" \
    > "$r/final_applied.txt" 2>&1
  nvcc -O3 -arch=sm_90 -lineinfo -o "$build/source_lines_edited" "$build/source_lines_edited.cu" 2>/dev/null
  for round in 1 2 3; do
    for b in source_lines source_lines_edited; do
      run_gl "round${round}_$b" --all-launches --format json -o "$r/round${round}_$b.json" -- "$build/$b"
    done
  done
  for round in 1 2; do
    for p in matmul_variants source_lines; do
      local args=(); [ "$p" = matmul_variants ] && args=(2048)
      run_gl "default${round}_$p" --verbose -- "$build/$p" "${args[@]}"
      run_gl "source${round}_$p" --source --verbose -- "$build/$p" "${args[@]}"
    done
  done
}
for stage in "$@"; do
  "$stage"
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$r/gpu.txt" 2>&1
tar czf "$OUT/results.tar.gz" -C "$r" .
