#!/usr/bin/env bash
# Issues #37 and #39 on the H200, fourteenth session: where `--source`'s cost goes, and
# what would cut it to 30% of the default run. Stage `probe`, on matmul_variants (8
# kernels, 2 with a line cause) and source_lines (4, all with one):
#   - gpulint's default run and its --source run (--verbose: the pass's ncu command line);
#   - that pass's ncu command again: as gpulint runs it (a report, imported afterwards);
#     with `--apply-rules no` (ncu's own rules read every line of the SourceCounters
#     section after each launch, and gpulint reads none of their output); with the
#     source page printed by the profiling run itself (no report, no import);
#   - ncu's floor on the program: started, profiling nothing;
#   - the section in the sample's own run, with and without ncu's rules.
# Expected before the call: ncu's rules cost a few tenths of a second per launch with the
# section; the page printed by the run saves most of the 1.3-1.5 s of imports; the floor
# is about 1.5 s (ncu's and the program's start), which alone is over 30% of a 4.3 s run.
#   usage: OUT=DIR lab/scripts/corpus/source_cost.sh probe   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
# The pass's options ($opts) without its report, logging to $1, in the array `printed`.
printed_opts() {
  printed=()
  local i=0
  while [ $i -lt ${#opts[@]} ]; do
    case "${opts[$i]}" in
      -f) i=$((i + 1)) ;;
      -o) i=$((i + 2)) ;;
      --log-file) printed+=(--log-file "$1"); i=$((i + 2)) ;;
      *) printed+=("${opts[$i]}"); i=$((i + 1)) ;;
    esac
  done
}
# The source lines a run's report named (its log $r/$1.txt), as "lines_$1: file.cu:N ...",
# to the table.
lines_named() {
  grep -o '[a-z_0-9]*\.cu:[0-9]*' "$r/$1.txt" | sort -u | paste -sd' ' - |
    sed "s/^/lines_$1: /" | tee -a "$table"
}
probe() {
  build_sample matmul_variants
  build_sample source_lines
  for p in matmul_variants source_lines; do
    local args=(); [ "$p" = matmul_variants ] && args=(2048)
    local prog=("$build/$p" "${args[@]}")
    timed "plain_$p" "${prog[@]}"
    run_gl "default_$p" --verbose -- "${prog[@]}"
    run_gl "source_$p" --source --verbose -- "${prog[@]}"
    logged_ncu "$r/source_$p.txt" 'source pass: /' "$r/pass_$p"
    pass=("${cmd[@]}")
    if [ ${#pass[@]} -eq 0 ]; then echo "no pass line for $p" | tee -a "$table"; continue; fi
    echo "pass_$p: ${pass[*]}" >> "$r/commands.txt"
    timed "pass_as_is_$p" "${pass[@]}"
    # ncu's options go before the program; the program is the last ${#prog[@]} words.
    local n=$(( ${#pass[@]} - ${#prog[@]} ))
    opts=("${pass[@]:1:$((n - 1))}")
    timed "pass_norules_$p" "${pass[0]}" --apply-rules no "${opts[@]}" "${prog[@]}"
    # The page printed by the run: no report; the page goes to the log file.
    printed_opts "$r/printed_$p.csv"
    timed "pass_printed_$p" "${pass[0]}" --apply-rules no --csv --page source \
      --print-source cuda,sass "${printed[@]}" "${prog[@]}"
    printed_opts "$r/printed_rules_$p.csv"
    timed "pass_printed_rules_$p" "${pass[0]}" --csv --page source \
      --print-source cuda,sass "${printed[@]}" "${prog[@]}"
    for k in $(grep -o "'-k' [^ ]*\|-k [^ ]*" "$r/source_$p.txt" | awk '{print $2}' | sort -u); do
      timed "import_${p}_$k" "${pass[0]}" --import "$r/pass_$p.ncu-rep" --csv --page source \
        --print-source cuda,sass -k "$k"
    done
    timed "floor_$p" ncu --clock-control none -k regex:^no_such_kernel_here$ "${prog[@]}"
    run_gl "inline_$p" --verbose --ncu-arg=--section --ncu-arg=SourceCounters -- "${prog[@]}"
    run_gl "inline_norules_$p" --verbose --ncu-arg=--apply-rules --ncu-arg=no \
      --ncu-arg=--section --ncu-arg=SourceCounters -- "${prog[@]}"
    run_gl "norules_$p" --verbose --ncu-arg=--apply-rules --ncu-arg=no -- "${prog[@]}"
    rm -f "$r"/pass_*.ncu-rep
  done
}
# Stage `subset`: the pass on matmul_variants with parts of the section, its page printed
# by the run: the whole section; its SASS counters (no warp sampling); the memory counters
# the two findings' lines need (sectors, shared wavefronts) with instructions executed; the
# warp sampling alone; and ncu's floor. Expected before the call: the SASS counters carry
# most of the ~0.8 s per kernel (an instrumented replay of a long matmul); sampling is cheap.
subset() {
  build_sample matmul_variants
  local section
  section=$(find / -name SourceCounters.section -path '*nsight-compute*' 2>/dev/null | head -1)
  cp "$section" "$r/SourceCounters.section"
  local names
  names=$(grep -o 'Name: *"[^"]*"' "$section" | sed 's/.*"\(.*\)"/\1/' | sort -u)
  echo "$names" > "$r/section_metrics.txt"
  local sass sampling memory
  sass=$(echo "$names" | grep -v pcsamp | paste -sd, -)
  sampling=$(echo "$names" | grep pcsamp | paste -sd, -)
  memory=$(echo "$names" | grep -E '^(inst_executed|memory_l2_theoretical_sectors_global|memory_l1_wavefronts_shared)' | paste -sd, -)
  echo "sass: $sass" >> "$r/commands.txt"; echo "sampling: $sampling" >> "$r/commands.txt"
  echo "memory: $memory" >> "$r/commands.txt"
  local prog=("$build/matmul_variants" 2048)
  local base=(ncu --clock-control none --csv --page source --print-source cuda,sass
    --kernel-name-base mangled
    --kernel-id '::regex:^(_Z11matmul_wmmaPK6__halfS1_Pfi|_Z14matmul_regtilePKfS0_Pfi)$:1'
    --launch-count 2 --kill on)
  timed subset_section "${base[@]}" --section SourceCounters --log-file "$r/subset_section.csv" "${prog[@]}"
  timed subset_sass "${base[@]}" --metrics "$sass" --log-file "$r/subset_sass.csv" "${prog[@]}"
  timed subset_memory "${base[@]}" --metrics "$memory" --log-file "$r/subset_memory.csv" "${prog[@]}"
  timed subset_sampling "${base[@]}" --metrics "$sampling" --log-file "$r/subset_sampling.csv" "${prog[@]}"
  timed subset_duration "${base[@]}" --metrics gpu__time_duration.sum --log-file "$r/subset_duration.csv" "${prog[@]}"
  timed subset_floor ncu --clock-control none -k regex:^no_such_kernel_here$ "${prog[@]}"
  timed subset_section_again "${base[@]}" --section SourceCounters --log-file "$r/subset_section2.csv" "${prog[@]}"
}
# Stage `after`: the build whose pass prints its pages (no import), --source against the
# default run, alternating, twice each, on matmul_variants, source_lines and heldout_pairs
# (12 pairs of kernels, most with a line cause, its timer over 5 rounds). Expected before
# the call: --source adds about the pass alone, 2.5-3.5 s: about +60% on matmul_variants,
# still over 30%; less, in share, on heldout_pairs, whose run is longer.
after() { # with a name prefix ($1, default "after")
  local tag=${1:-after}
  build_sample matmul_variants
  build_sample source_lines
  build_sample heldout_pairs
  for round in 1 2; do
    for entry in "matmul_variants|2048" "source_lines|" "heldout_pairs|5"; do
      IFS='|' read -r p args <<< "$entry"
      # shellcheck disable=SC2086
      run_gl "${tag}_default_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "${tag}_source_${p}_$round" --verbose --source -- "$build/$p" $args
    done
  done
}
# Stage `leanafter`: `after` again with the build whose pass leaves the section's sampling
# out when no finding reads stall samples. Expected before the call: matmul_variants and
# source_lines (no such finding) take the lean section, their pass ~0.3-0.4 s shorter a
# kernel (matmul_variants ~3.4 -> ~2.7 s, source_lines ~4.7 -> ~3.3 s); heldout_pairs
# takes the whole section if one of its findings reads stall samples, else it gains too.
leanafter() { after leanafter; }
# Stage `long`: the same program run longer. heldout_pairs with 150 repeats (a run of
# ~15 s, 24 kernels, 7 with a line cause), plain, by default and with --source,
# alternating, twice. Expected before the call: the pass costs what it did at 5 repeats
# (~6.5 s: it stops the program after the first launches of its 7 kernels), while the
# default run grows with the program (about twice it plus 4 s): --source adds ~20%.
long() {
  build_sample heldout_pairs
  for round in 1 2; do
    timed "long_plain_$round" "$build/heldout_pairs" 150
    run_gl "long_default_$round" --verbose -- "$build/heldout_pairs" 150
    run_gl "long_source_$round" --verbose --source -- "$build/heldout_pairs" 150
  done
}
# Stage `lean`: the pass on matmul_variants (its 2 kernels' findings need no stall
# sampling) with ncu's SourceCounters section, and with the same section less its warp
# sampling (samples/corpus/source_section.py writes it from ncu's own file), alternating,
# three times each, pages printed by the run. Expected before the call: the lean section
# saves ~0.4 s per kernel (~0.9 s of ~3.1 s) and its page keeps every column gpulint reads
# but the stall ones.
lean() {
  build_sample matmul_variants
  local section
  section=$(find / -name SourceCounters.section -path '*nsight-compute*' 2>/dev/null | head -1)
  python3 samples/corpus/source_section.py "$section" "$r/sections" || return
  local base=(ncu --clock-control none --csv --page source --print-source cuda,sass
    --kernel-name-base mangled
    --kernel-id '::regex:^(_Z11matmul_wmmaPK6__halfS1_Pfi|_Z14matmul_regtilePKfS0_Pfi)$:1'
    --launch-count 2 --kill on)
  local prog=("$build/matmul_variants" 2048)
  for round in 1 2 3; do
    timed "lean_full_$round" "${base[@]}" --section SourceCounters \
      --log-file "$r/lean_full_$round.csv" "${prog[@]}"
    timed "lean_lean_$round" "${base[@]}" --section-folder "$r/sections" \
      --section GpulintSourceLines --log-file "$r/lean_lean_$round.csv" "${prog[@]}"
  done
  for f in lean_full_1 lean_lean_1; do
    echo "$f: $(grep -c '' "$r/$f.csv") lines; $(grep -m1 '^"Line No"' "$r/$f.csv" | tr ',' '\n' | grep -c '') columns"
    grep -m1 '^"Line No"' "$r/$f.csv" | tr ',' '\n' | grep -c 'Excessive\|N-Way\|Divergent Branches\|Address Space\|Instructions Executed'
  done | tee -a "$table"
}
# Stage `parts` (fifteenth session): where the pass's seconds per kernel go, on source_lines
# (4 kernels, the lean section) and heldout_pairs (7 kernels, the whole section): the pass
# as gpulint runs it; its section into a report, no page printed (the counters alone); its
# page printed with the duration alone, no section (ncu's source view alone); the duration
# alone, nothing printed (ncu's cost of profiling a kernel); ncu's floor. Alternating,
# twice. Expected before the call: about half of a kernel's ~0.6-1.0 s is the page
# (disassembly and its correlation with the CUDA lines), a third ncu's own per-kernel cost,
# the rest the counters.
# `cmd` (the pass's ncu command) as variant $1 logging to $2, in the array `out_cmd`.
pass_variant() {
  out_cmd=("${cmd[0]}")
  local i=1
  while [ $i -lt ${#cmd[@]} ]; do
    case "${cmd[$i]}" in
      --csv|--page|--print-source)
        case "$1" in as_is|duration_printed)
          if [ "${cmd[$i]}" = --csv ]; then out_cmd+=(--csv); i=$((i + 1))
          else out_cmd+=("${cmd[$i]}" "${cmd[$((i + 1))]}"); i=$((i + 2)); fi ;;
        *) if [ "${cmd[$i]}" = --csv ]; then i=$((i + 1)); else i=$((i + 2)); fi ;;
        esac ;;
      --section-folder)
        case "$1" in as_is|report) out_cmd+=(--section-folder "$r/sections") ;; esac
        i=$((i + 2)) ;;
      --section)
        case "$1" in as_is|report) out_cmd+=(--section "${cmd[$((i + 1))]}") ;; esac
        i=$((i + 2)) ;;
      --kernel-id)
        if [ "$1" = floor ]; then out_cmd+=(--kernel-id '::regex:^no_such_kernel_here$:1')
        else out_cmd+=(--kernel-id "${cmd[$((i + 1))]}"); fi
        i=$((i + 2)) ;;
      --log-file) out_cmd+=(--log-file "$2"); i=$((i + 2)) ;;
      *) out_cmd+=("${cmd[$i]}"); i=$((i + 1)) ;;
    esac
  done
  case "$1" in report|duration) out_cmd=("${out_cmd[0]}" -f -o "$r/variant" "${out_cmd[@]:1}") ;; esac
}
parts() {
  build_sample source_lines
  build_sample heldout_pairs
  local section
  section=$(find / -name SourceCounters.section -path '*nsight-compute*' 2>/dev/null | head -1)
  python3 samples/corpus/source_section.py "$section" "$r/sections" || return
  for entry in "source_lines|" "heldout_pairs|5"; do
    IFS='|' read -r p args <<< "$entry"
    # shellcheck disable=SC2086
    run_gl "parts_source_$p" --verbose --source -- "$build/$p" $args
    logged_ncu "$r/parts_source_$p.txt" 'source pass: /' "$r/unused"
    echo "pass_$p: ${cmd[*]}" >> "$r/commands.txt"
    for round in 1 2; do
      for v in as_is report duration_printed duration floor; do
        pass_variant "$v" "$r/${v}_${p}_$round.csv"
        echo "${v}_$p: ${out_cmd[*]}" >> "$r/commands.txt"
        timed "${v}_${p}_$round" "${out_cmd[@]}"
      done
    done
    rm -f "$r"/variant.ncu-rep
  done
}
# Stage `realistic`: --source against the default run on two programs of a few seconds
# with several kernels: train_loop (5 kernels a step, 1500 steps; its one line cause is
# grad_input_strided's uncoalesced loads) and cg_solver (n = 2048, 1000 iterations, 7
# kernels; spmv_csr_scalar's uncoalesced loads, and latency-bound on the small kernels if
# the sample finds it). Plain once, then default and --source alternating, twice.
# Expected before the call: train_loop's pass ~1.5-2.5 s against a default run of
# ~12-14 s (+15%); cg_solver's ~3-6 s (more kernels, the whole section where a finding
# reads stall samples) against ~10 s: +30-60%.
realistic() {
  build_sample train_loop
  build_sample cg_solver
  for entry in "train_loop|1500" "cg_solver|2048 1000"; do
    IFS='|' read -r p args <<< "$entry"
    # shellcheck disable=SC2086
    timed "real_plain_$p" "$build/$p" $args
    for round in 1 2; do
      # shellcheck disable=SC2086
      run_gl "real_default_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "real_source_${p}_$round" --verbose --source -- "$build/$p" $args
    done
  done
}
# Stage `minimal`: the pass with a section of only the per-line columns gpulint reads
# (samples/corpus/source_section.py --minimal: no header or body metrics, no cycles, no
# cache-policy or thread columns; the pcsamp ones only where a finding reads stall
# samples), against the pass as gpulint runs it, alternating, three times, on source_lines
# (the lean section) and heldout_pairs (the whole section), then train_loop 1500's pass;
# the pages compared column by column (samples/corpus/compare_pages.py). Expected before
# the call: the header's branch and cycle counters and the extra SASS columns cost replay
# passes; the minimal section saves ~0.2 s a kernel, with the same values in every column
# gpulint reads.
minimal() {
  build_sample source_lines
  build_sample heldout_pairs
  build_sample train_loop
  local section
  section=$(find / -name SourceCounters.section -path '*nsight-compute*' 2>/dev/null | head -1)
  python3 samples/corpus/source_section.py "$section" "$r/sections" || return
  python3 samples/corpus/source_section.py "$section" "$r/minimal" --minimal || return
  python3 samples/corpus/source_section.py "$section" "$r/minimal_sampled" --minimal --sampling || return
  for entry in "source_lines|" "heldout_pairs|5" "train_loop|1500"; do
    IFS='|' read -r p args <<< "$entry"
    # shellcheck disable=SC2086
    run_gl "min_source_$p" --verbose --source -- "$build/$p" $args
    logged_ncu "$r/min_source_$p.txt" 'source pass: /' "$r/unused"
    echo "pass_$p: ${cmd[*]}" >> "$r/commands.txt"
    local folder="$r/minimal"
    grep -q -- '--section SourceCounters' <<< "${cmd[*]}" && folder="$r/minimal_sampled"
    for round in 1 2 3; do
      pass_variant as_is "$r/now_${p}_$round.csv"
      timed "now_${p}_$round" "${out_cmd[@]}"
      pass_variant as_is "$r/min_${p}_$round.csv"
      local i
      for i in "${!out_cmd[@]}"; do
        case "${out_cmd[$i]}" in SourceCounters) out_cmd[i]=GpulintSourceLines ;; esac
        [ "${out_cmd[$i]}" = "$r/sections" ] && out_cmd[i]=$folder
      done
      grep -q -- '--section-folder' <<< "${out_cmd[*]}" ||
        out_cmd=("${out_cmd[0]}" --section-folder "$folder" "${out_cmd[@]:1}")
      echo "min_$p: ${out_cmd[*]}" >> "$r/commands.txt"
      timed "min_${p}_$round" "${out_cmd[@]}"
    done
    python3 samples/corpus/compare_pages.py "$r/now_${p}_1.csv" "$r/min_${p}_1.csv" |
      sed "s/^/$p: /" | tee -a "$table"
  done
}
# Stage `section`: the build whose source pass takes gpulint's section (the columns it
# reads and their inputs; the sampling only where a finding reads stall samples), default
# and --source alternating, twice, on matmul_variants, source_lines, heldout_pairs,
# train_loop 1500 and cg_solver 2048 1000. Expected before the call: the lines named are
# those of calls 3 and 6 (matmul_variants.cu :67 :74 :75 :132; source_lines.cu :38 :48
# :59 :60 :71; heldout_pairs.cu :62 :94 :144 :185 :197 :227); each pass ~0.1 s a kernel
# shorter than with the lean or whole section; train_loop's --source within 30% of its
# default run, cg_solver's near it.
section() {
  for round in 1 2; do
    for entry in "matmul_variants|2048" "source_lines|" "heldout_pairs|5" "train_loop|1500" \
      "cg_solver|2048 1000"; do
      IFS='|' read -r p args <<< "$entry"
      build_sample "$p"
      # shellcheck disable=SC2086
      run_gl "sec_default_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "sec_source_${p}_$round" --verbose --source -- "$build/$p" $args
      lines_named "sec_source_${p}_$round"
    done
  done
}
# Stage `inrun` (sixteenth session): the build whose --source reads the source counters in
# the sample's own run (gpulint's section, no warp sampling) and imports the pages of the
# user's sampled kernels beside the raw page; a pass of its own only for findings on stall
# samples. Against the last build's pass ($old, target/old/gpulint), alternating, twice:
# default, --source (old), --source (new), on matmul_variants, source_lines,
# heldout_pairs, train_loop 1500 and cg_solver 2048 1000.
# Expected before the call: the section costs the sample's run ~0.05-0.1 s a launch (8
# launches: under 1 s); the pages' imports, side by side with the raw page's, add 0.2-0.5
# s; so --source adds 15-30% on matmul_variants and source_lines (the old pass: +49% and
# +68%), and train_loop 1500 under 20%. heldout_pairs and cg_solver keep a pass (their
# latency-bound and serial-loads findings read stall samples): about their old cost, a
# little less. The lines named are the old build's: matmul_variants.cu :67 :74 :75 :132;
# source_lines.cu :38 :48 :59 :60 :71.
inrun() {
  local old; old=$(realpath -m target/old/gpulint)
  for round in 1 2; do
    for entry in "matmul_variants|2048" "source_lines|" "heldout_pairs|5" "train_loop|1500" \
      "cg_solver|2048 1000"; do
      IFS='|' read -r p args <<< "$entry"
      build_sample "$p"
      # shellcheck disable=SC2086
      run_gl "in_default_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      gl=$old run_gl "in_oldsource_${p}_$round" --verbose --source -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "in_source_${p}_$round" --verbose --source -- "$build/$p" $args
      for v in oldsource source; do
        lines_named "in_${v}_${p}_$round"
      done
    done
  done
}
# Stage `confirm`: the committed build (f845db2 and the launch-share rule), alternating,
# three times: default and --source on source_lines, matmul_variants and train_loop 1500;
# then, on cg_solver 2048 1000 and heldout_pairs 5, the sample's run of --source as the
# build runs it (the section without sampling) against the same with the warps' sampling
# (samples/corpus/source_section.py, now writing the build's section); and the transformer
# (20 steps): plain, default, --source once each.
# Expected before the call: source_lines +25-30% in each round, train_loop +15-20%,
# matmul_variants +45-55%; the sampling costs the sample's run ~0.2 s a launch, so folding
# it in (7-8 launches: +1.4-1.6 s) would beat cg's and heldout's 2.8 s stall pass but add
# 0.6-1.0 s where no finding reads stall samples; the transformer's --source is its
# default within the spread (no kernel of the user's: no section, no pass).
confirm() {
  local section
  section=$(find / -name SourceCounters.section -path '*nsight-compute*' 2>/dev/null | head -1)
  python3 samples/corpus/source_section.py "$section" "$r/nosampling" --minimal || return
  python3 samples/corpus/source_section.py "$section" "$r/sampling" --minimal --sampling || return
  for round in 1 2 3; do
    for entry in "source_lines|" "matmul_variants|2048" "train_loop|1500"; do
      IFS='|' read -r p args <<< "$entry"
      build_sample "$p"
      # shellcheck disable=SC2086
      run_gl "co_default_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "co_source_${p}_$round" --verbose --source -- "$build/$p" $args
    done
  done
  for entry in "cg_solver|2048 1000" "heldout_pairs|5"; do
    IFS='|' read -r p args <<< "$entry"
    build_sample "$p"
    # shellcheck disable=SC2086
    run_gl "co_source_$p" --verbose --source -- "$build/$p" $args
    logged_ncu "$r/co_source_$p.txt" 'GpulintSourceLines -o' "$r/run_$p"
    echo "run_$p: ${cmd[*]}" >> "$r/commands.txt"
    for round in 1 2; do
      for v in nosampling sampling; do
        local c=("${cmd[@]}") i
        for i in "${!c[@]}"; do
          case "${c[$i]}" in /tmp/gpulint-sections-*) c[i]=$r/$v ;; esac
        done
        timed "co_run_${v}_${p}_$round" "${c[@]}"
      done
    done
  done
  local t=(python3 samples/apps/torch_transformer.py)
  timed co_plain_transformer "${t[@]}"
  run_gl co_default_transformer --verbose -- "${t[@]}"
  run_gl co_source_transformer --verbose --source -- "${t[@]}"
}
# Stage `pages`: where the imports of --source's run go, on source_lines (4 kernels). The
# committed build's run of --source, its profiled run's command again into a report kept
# here, then, each twice: the raw page's import; each kernel's page imported alone; the
# four side by side (as gpulint does); one import of all four (`-k regex:`); the pages
# with `--print-source cuda` only and `sass` only; the default run's report's raw import.
# And the profiled run with `--csv --page source --print-source cuda,sass` beside `-o`:
# does ncu print the pages while it writes the report?
# Expected before the call: the raw import of the report with the section ~0.1-0.2 s
# slower than the default's (~0.7 s); a page alone ~1.0 s, the four side by side 1.3-1.6 s,
# one import of the four 1.5-2 s; `cuda` alone ~0.2 s less than `cuda,sass`; with `-o`,
# ncu prints no page to the log.
pages() {
  local p=source_lines
  build_sample "$p"
  run_gl "pg_default" --verbose -- "$build/$p"
  logged_ncu "$r/pg_default.txt" ' -o /' "$r/default_rep"
  mkdir -p "$r/empty"
  local d=("${cmd[@]}") j
  for j in "${!d[@]}"; do
    case "${d[$j]}" in /tmp/gpulint-no-sections-*) d[j]=$r/empty ;; esac
  done
  timed "pg_default_run" "${d[@]}"
  run_gl "pg_source" --verbose --source -- "$build/$p"
  logged_ncu "$r/pg_source.txt" 'GpulintSourceLines -o' "$r/source_rep"
  local c=("${cmd[@]}") i
  # The section's folder went with gpulint's run: the script's, as the build writes it.
  local section
  section=$(find / -name SourceCounters.section -path '*nsight-compute*' 2>/dev/null | head -1)
  python3 samples/corpus/source_section.py "$section" "$r/nosampling" --minimal || return
  for i in "${!c[@]}"; do
    case "${c[$i]}" in /tmp/gpulint-sections-*) c[i]=$r/nosampling ;; esac
  done
  echo "source_run: ${c[*]}" >> "$r/commands.txt"
  timed "pg_source_run" "${c[@]}"
  local ncu=${c[0]} rep="$r/source_rep.ncu-rep" kernels
  kernels=$(grep -o "'-k' [^ ]*\|-k [^ ]*" "$r/pg_source.txt" | awk '{print $2}' | tr -d "'" | sort -u)
  echo "kernels: $kernels" >> "$r/commands.txt"
  local page=(--csv --page source --print-source cuda,sass)
  for round in 1 2; do
    timed "pg_raw_default_$round" "$ncu" --import "$r/default_rep.ncu-rep" --csv --page raw --print-units base
    timed "pg_raw_source_$round" "$ncu" --import "$rep" --csv --page raw --print-units base
    for k in $kernels; do
      timed "pg_one_${k}_$round" "$ncu" --import "$rep" "${page[@]}" -k "$k"
    done
    local t0; t0=$(now)
    for k in $kernels; do
      "$ncu" --import "$rep" "${page[@]}" -k "$k" > "$r/side_$k.csv" 2>&1 &
    done
    wait
    echo "pg_side_by_side_$round $(since "$t0")" | tee -a "$table"
    timed "pg_all_in_one_$round" "$ncu" --import "$rep" "${page[@]}" \
      -k "regex:^($(echo $kernels | tr ' ' '|'))$"
    local k1; k1=$(echo $kernels | awk '{print $1}')
    timed "pg_cuda_only_$round" "$ncu" --import "$rep" --csv --page source --print-source cuda -k "$k1"
    timed "pg_sass_only_$round" "$ncu" --import "$rep" --csv --page source --print-source sass -k "$k1"
  done
  local both=("$ncu" --csv --page source --print-source cuda,sass "${c[@]:1}")
  for i in "${!both[@]}"; do
    case "${both[$i]}" in "$r/source_rep") both[i]=$r/both_rep ;; esac
  done
  echo "both: ${both[*]}" >> "$r/commands.txt"
  timed "pg_both" "${both[@]}"
  ls -la "$r"/both_rep* >> "$r/commands.txt" 2>&1
  local log; log=$(grep -o -- '--log-file [^ ]*' <<< "${both[*]}" | awk '{print $2}')
  cp "$log" "$r/both_log.txt" 2>/dev/null
  echo "both log lines: $(wc -l < "$log"), page rows: $(grep -c '^"' "$log")" | tee -a "$table"
}
# Stage `printed`: the build whose --source run has ncu print the launches' source pages to
# its log as it writes the report (stage `pages`: ncu does both), instead of importing the
# user's kernels' pages beside the raw page; against the committed build (ff0a996, as
# target/old/gpulint), alternating, three times: default, --source (imports), --source
# (printed), on source_lines, matmul_variants 2048 and train_loop 1500.
# Expected before the call: printing the pages costs the run ~0.1 s a launch and spares
# the 0.7-0.8 s by which the pages' imports outlast the raw page's: 0.3-0.7 s less than
# the committed build's --source, source_lines +20-35% over its default run. The same
# lines named.
printed() {
  local old; old=$(realpath -m target/old/gpulint)
  for round in 1 2 3; do
    for entry in "source_lines|" "matmul_variants|2048" "train_loop|1500"; do
      IFS='|' read -r p args <<< "$entry"
      build_sample "$p"
      # shellcheck disable=SC2086
      run_gl "pr_default_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      gl=$old run_gl "pr_imported_${p}_$round" --verbose --source -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "pr_printed_${p}_$round" --verbose --source -- "$build/$p" $args
      for v in imported printed; do
        lines_named "pr_${v}_${p}_$round"
      done
    done
  done
}
# Stage `corpus`: the last build's --source against its default run on the corpus programs
# of several kernels (LU, NW, Gaussian, CG 1024x20, BFS, template_phases, graph_steps),
# alternating, twice.
# Expected before the call: where no finding reads stall samples and the kernels are light
# (NW, Gaussian, BFS, graph_steps), +15-35%; LU, template_phases and CG, whose
# latency-bound findings read stall samples, +50-80% with their pass.
corpus() {
  for round in 1 2; do
    for entry in "lud|1024" "nw|512" "gaussian|256" "cg_solver|1024 20" "bfs|1048576 8" \
      "template_phases|" "graph_steps|"; do
      IFS='|' read -r p args <<< "$entry"
      build_sample "$p"
      # shellcheck disable=SC2086
      run_gl "cp_default_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "cp_source_${p}_$round" --verbose --source -- "$build/$p" $args
      lines_named "cp_source_${p}_$round"
      grep -h 'source pass: the' "$r/cp_source_${p}_$round.txt" | cut -c1-90 |
        sed "s/^/pass_${p}_$round: /" | tee -a "$table"
    done
  done
}
# Stage `folded`: the build whose sample of at most ten launches takes the warps' stall
# samples in its own run (no pass), against the last build (c4be36f, as target/old/gpulint:
# a pass for them), alternating, twice: default, --source (old), --source (new), on
# source_lines (no finding on stall samples), LU, BFS and template_phases (latency-bound).
# Expected before the call: on LU, BFS and template_phases the new --source is 1.5-2.5 s
# shorter than the old (the sampling 0.1-0.2 s a launch against a 2.7-3.5 s pass); on
# source_lines 0.4-0.8 s longer. The same lines named (the stall lines from the run's
# pages now, not the pass's).
folded() {
  local old; old=$(realpath -m target/old/gpulint)
  for round in 1 2; do
    for entry in "source_lines|" "lud|1024" "bfs|1048576 8" "template_phases|"; do
      IFS='|' read -r p args <<< "$entry"
      build_sample "$p"
      # shellcheck disable=SC2086
      run_gl "fo_default_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      gl=$old run_gl "fo_pass_${p}_$round" --verbose --source -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "fo_folded_${p}_$round" --verbose --source -- "$build/$p" $args
      for v in pass folded; do
        lines_named "fo_${v}_${p}_$round"
      done
    done
  done
}
# Stage `remembered` (seventeenth session's build, 4043904): --source after a default run
# of the same command, which remembers whether a finding read the warps' stall samples,
# against --source with that memory removed (the sixteenth session's behaviour), on
# source_lines and NW (no such finding), LU, BFS and template_phases (latency-bound),
# alternating, twice.
# Expected before the call: source_lines and NW's remembered --source 0.8-1.6 s shorter
# than the forgotten one (no sampling in the run: source_lines back to about +25-30% of
# its default run); LU, BFS and template_phases the same either way (their memory says
# yes); the same lines named in both.
remembered() {
  local memory="${XDG_CACHE_HOME:-$HOME/.cache}/gpulint"
  for round in 1 2; do
    for entry in "source_lines|" "nw|512" "lud|1024" "bfs|1048576 8" "template_phases|"; do
      IFS='|' read -r p args <<< "$entry"
      build_sample "$p"
      # shellcheck disable=SC2086
      run_gl "re_default_${p}_$round" --verbose -- "$build/$p" $args
      # shellcheck disable=SC2086
      run_gl "re_remembered_${p}_$round" --verbose --source -- "$build/$p" $args
      rm -f "$memory"/stalls-*.txt
      # shellcheck disable=SC2086
      run_gl "re_forgotten_${p}_$round" --verbose --source -- "$build/$p" $args
      for v in remembered forgotten; do
        lines_named "re_${v}_${p}_$round"
      done
    done
  done
}
for stage in "$@"; do "$stage"; done
