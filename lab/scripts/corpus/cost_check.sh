#!/usr/bin/env bash
# Issue #37: what `gpulint run` costs against the program's own run, with the sample by
# time, on the H200. One stage per device call (each under 10 minutes):
#   corpus  the corpus programs and the iterative solvers: plain, default, default with
#           --stop-once-profiled, stage times (--verbose); ncu's --kill; torch_chain's
#           default run kept as a fixture
#   torch   the PyTorch transformer and CNN: plain, default, every launch
#   window  a 5-minute transformer loop with --window; --source on several kernels
#   counted the build that tells ncu the sample's launch count (no --kill) and follows the
#           root process alone where the trace saw it launch everything (thirteenth
#           session; the root alone was then removed): the CNN and the transformer at their default sizes plain, by default
#           and with --target-processes-all, alternating, twice; the corpus plain and by
#           default. Expected before the call: the CNN within 2 x plain + 5 s (the last
#           call: 45.5 and 50.4 s), --target-processes-all the same or up to 6 s slower
#           (steps of 1.2 s until torch.compile's worker starts); the transformer about
#           25 s; the corpus as in `final`
#   smoke   the build with the profiling stage in src/profile/ (thirteenth session): the
#           CNN at 3 steps plain, by default and every launch (--all-launches), for the
#           warnings a sample must give; LU by default; matmul_variants by default and with
#           --source. Expected before the call: the CNN's default warnings are those of
#           every launch (fp32-gemm-on-cuda-cores on cuBLAS, uncoalesced-load on cuDNN's
#           wgrad, misaligned-access on cuDNN's fprop), though every launch may add
#           warnings on kernels the sample leaves out; LU's 7 warnings as in `counted`
#   final   the last build once: the corpus (plain, default), the transformer (default and
#           --max-launches 80), the window, --source, torch_chain's pair kept as fixtures
#   floor   (fifteenth session) the build whose default cap is 8 launches (at least 2.7 s of
#           profiling, was 12 and 4 s) for programs of under ~11 s: the transformer plain
#           and by default, alternating, three times; the corpus plain and by default.
#           Expected before the call: the transformer within 2 x plain + 5 s in each round
#           (the last call: 23.2 s with 8 launches against plain runs of 7.8-12.5 s), its
#           fp32 GEMMs' warning alone; the corpus within its targets as in `counted`, with
#           the same warnings (LU's 7)
#   kernels (fifteenth session) the build whose cover takes every kernel that carries time
#           before more configurations of one (with 8 launches, LU's lud_perimeter and
#           lud_diagonal at four numbers had left lud_internal, 13% of the time, out): LU,
#           NW and the CG solver by default, heldout_pairs (24 kernels), the transformer
#           plain and by default, twice. Expected before the call: LU asks for its three
#           kernels and warns small-grid on lud_internal as every launch does (6 warnings,
#           with latency-bound on lud_internal 7); NW and CG as in `floor`; the transformer
#           within 2 x plain + 5 s, its fp32 GEMMs' warning alone. Run again with the
#           build whose kernel need takes any launch of the kernel's busiest configuration:
#           expected the CG solver's 7 kernels at launch number 1 and its 7 warnings of
#           every launch (small-grid and block-size on cg_scalars too); LU's 6 as before
#   startup (fifteenth session) does ncu start faster when its section folder is empty?
#           ncu reads every section and rule file of its default folder when it starts.
#           On matmul_variants, alternating, three times: ncu matching no kernel, the
#           default run's import of its report, and gpulint's default run, each as is and
#           with `--section-folder` naming an empty folder. Expected before the call:
#           a few tenths of a second less a start, if any
#   medians (eighteenth session) the last build, for whether the two PyTorch scripts sit
#           within their target in the median rather than in single runs, whose plain
#           runs spread from 8.5 to 16.8 s: the transformer plain and by default,
#           alternating, four rounds; the CNN plain and by default, twice. Expected before
#           the call: the transformer's default run about twice its plain run plus 4.6 s
#           (two program runs, 8 launches at ~0.45 s, the import ~0.6 s, ~0.4 s of
#           gpulint's own), so its median within twice the plain median plus 5 s by a few
#           tenths of a second, single rounds either side; the CNN within by 0-12 s as in
#           `counted`; the warnings as before (the fp32 GEMMs' on the transformer)
# Every run keeps its export, trace and report in $OUT/r, packed after each run into
# $OUT/results_STAGE.tar.gz (a device call returns at most 8 files).
#   usage: OUT=DIR lab/scripts/corpus/cost_check.sh STAGE   (from the repository root)
set -u
stage=${1:?usage: cost_check.sh corpus|torch|window|final|counted|smoke|floor|kernels|startup|medians}
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
ncu_args=(--ncu-arg=--clock-control --ncu-arg=none)
r="$OUT/r"
mkdir -p "$r"
table="$r/times_$stage.txt"
# Runs "$@" with output to $r/$name.txt, appends "name seconds exit" to the table, packs.
timed() {
  local name=$1; shift
  local t0; t0=$(now)
  "$@" > "$r/$name.txt" 2>&1
  local rc=$?
  echo "$name $(since "$t0") exit=$rc" | tee -a "$table"
  tar czf "$OUT/results_$stage.tar.gz" -C "$r" .
}
extra=()  # more gpulint options for the next lint
lint() { # name, then the program and its arguments: the default run, verbose, kept
  local name=$1; shift
  timed "$name" "$gl" run "${ncu_args[@]}" "${extra[@]}" --verbose --exit-zero --save-csv "$r/$name.csv" -- "$@"
  extra=()
}
# The corpus programs, each plain then by default (stages counted and final).
corpus_plain_and_default() {
  for entry in "lud|1024" "nw|512" "gaussian|256" "cg_solver|1024 20" "bfs|1048576 8" \
    "train_loop|60" "template_phases|" "graph_steps|" "stencil2d|4096 5" "knn|4194304 2"; do
    IFS='|' read -r p args <<< "$entry"
    build_sample "$p"
    # shellcheck disable=SC2086
    timed "plain_$p" "$build/$p" $args
    # shellcheck disable=SC2086
    lint "default_$p" "$build/$p" $args
  done
}
# ncu itself, once: a sample by time names kernels by mangled name in --kernel-id.
kernel_id_check() {
  build_sample lud
  ncu --clock-control none --kernel-name-base mangled \
    --kernel-id '::regex:^(_Z12lud_diagonalPfii|_Z13lud_perimeterPfii)$:1|2' \
    --metrics gpu__time_duration.sum --csv --page raw --log-file "$r/kernel_id_check.csv" \
    "$build/lud" 256 > /dev/null 2>&1
  echo "kernel-id by mangled name: exit $?, $(grep -c '^"[0-9]' "$r/kernel_id_check.csv") rows" | tee -a "$table"
}
case $stage in
startup)
  build_sample matmul_variants
  empty="$r/empty_sections"; mkdir -p "$empty"
  prog=("$build/matmul_variants" 2048)
  ncu --clock-control none --metrics gpu__time_duration.sum -f -o "$r/rep" --launch-count 4 \
    "${prog[@]}" > /dev/null 2>&1
  for round in 1 2 3; do
    timed "floor_default_$round" ncu --clock-control none -k 'regex:^no_such_kernel$' "${prog[@]}"
    timed "floor_empty_$round" ncu --clock-control none --section-folder "$empty" \
      -k 'regex:^no_such_kernel$' "${prog[@]}"
    timed "import_default_$round" ncu --import "$r/rep.ncu-rep" --csv --page raw --print-units base
    timed "import_empty_$round" ncu --section-folder "$empty" --import "$r/rep.ncu-rep" --csv \
      --page raw --print-units base
    timed "gl_default_$round" "$gl" run "${ncu_args[@]}" --exit-zero -- "${prog[@]}"
    timed "gl_empty_$round" "$gl" run "${ncu_args[@]}" --ncu-arg=--section-folder \
      "--ncu-arg=$empty" --exit-zero -- "${prog[@]}"
  done
  ;;
kernels)
  for entry in "lud|1024" "nw|512" "cg_solver|1024 20" "heldout_pairs|5"; do
    IFS='|' read -r p args <<< "$entry"
    build_sample "$p"
    # shellcheck disable=SC2086
    lint "default_$p" "$build/$p" $args
  done
  for round in 1 2; do
    timed "plain_transformer_$round" python3 samples/apps/torch_transformer.py
    lint "default_transformer_$round" python3 samples/apps/torch_transformer.py
  done
  ;;
floor)
  for round in 1 2 3; do
    timed "plain_transformer_$round" python3 samples/apps/torch_transformer.py
    lint "default_transformer_$round" python3 samples/apps/torch_transformer.py
  done
  corpus_plain_and_default
  ;;
smoke)
  timed plain_cnn3 python3 samples/apps/torch_cnn.py 3
  lint default_cnn3 python3 samples/apps/torch_cnn.py 3
  timed all_cnn3 timeout 300 "$gl" run "${ncu_args[@]}" --all-launches --exit-zero \
    --save-csv "$r/all_cnn3.csv" -- python3 samples/apps/torch_cnn.py 3
  build_sample lud
  lint default_lud "$build/lud" 1024
  build_sample matmul_variants
  timed plain_matmul "$build/matmul_variants" 2048
  lint default_matmul "$build/matmul_variants" 2048
  extra=(--source)
  lint source_matmul "$build/matmul_variants" 2048
  ;;
counted)
  for i in 1 2; do
    for s in cnn transformer; do
      timed "plain_${s}_$i" python3 "samples/apps/torch_$s.py"
      lint "default_${s}_$i" python3 "samples/apps/torch_$s.py"
      extra=(--target-processes-all)
      lint "all_${s}_$i" python3 "samples/apps/torch_$s.py"
    done
  done
  corpus_plain_and_default
  ;;
final)
  kernel_id_check
  corpus_plain_and_default
  timed plain_transformer python3 samples/apps/torch_transformer.py
  lint default_transformer python3 samples/apps/torch_transformer.py
  extra=(--max-launches 80)
  lint cap80_transformer python3 samples/apps/torch_transformer.py
  extra=(--window 20)
  lint window_transformer python3 samples/apps/torch_transformer.py --seconds 300
  lint torch_chain python3 samples/apps/torch_chain.py 30
  lint torch_chain_fixed python3 samples/apps/torch_chain.py 30 --fixed
  build_sample matmul_variants
  timed nosource_matmul "$gl" run "${ncu_args[@]}" --exit-zero -- "$build/matmul_variants" 2048
  timed source_matmul "$gl" run "${ncu_args[@]}" --source --exit-zero -- "$build/matmul_variants" 2048
  ;;
corpus)
  for p in lud nw gaussian cg_solver bfs train_loop template_phases graph_steps stencil2d knn; do
    build_sample $p
  done
  programs=("lud|1024" "nw|512" "gaussian|256" "cg_solver|1024 20" "bfs|1048576 8"
    "train_loop|60" "template_phases|" "graph_steps|" "stencil2d|4096 5" "knn|4194304 2")
  for entry in "${programs[@]}"; do
    IFS='|' read -r p args <<< "$entry"
    # shellcheck disable=SC2086
    timed "plain_$p" "$build/$p" $args
    # shellcheck disable=SC2086
    lint "default_$p" "$build/$p" $args
    # shellcheck disable=SC2086
    timed "stop_$p" "$gl" run "${ncu_args[@]}" --stop-once-profiled --exit-zero -- "$build/$p" $args
  done
  # Every launch of LU, for the warnings the sample must give.
  timed all_lud "$gl" run "${ncu_args[@]}" --all-launches --exit-zero --save-csv "$r/all_lud.csv" -- "$build/lud" 1024
  lint torch_chain python3 samples/apps/torch_chain.py 30
  lint torch_chain_fixed python3 samples/apps/torch_chain.py 30 --fixed
  ;;
torch)
  for s in transformer cnn; do
    timed "plain_$s" python3 "samples/apps/torch_$s.py"
    lint "default_$s" python3 "samples/apps/torch_$s.py"
    extra=(--max-launches 40)
    lint "cap40_$s" python3 "samples/apps/torch_$s.py"
    timed "all_$s" timeout 200 "$gl" run "${ncu_args[@]}" --all-launches --exit-zero --save-csv "$r/all_$s.csv" -- python3 "samples/apps/torch_$s.py"
  done
  ;;
window)
  timed window_transformer "$gl" run "${ncu_args[@]}" --verbose --window 20 --exit-zero --save-csv "$r/window_transformer.csv" -- python3 samples/apps/torch_transformer.py --seconds 300
  build_sample matmul_variants
  lint default_matmul "$build/matmul_variants" 2048
  timed source_matmul "$gl" run "${ncu_args[@]}" --verbose --source --exit-zero -- "$build/matmul_variants" 2048
  ;;
medians)
  for round in 1 2 3 4; do
    timed "plain_transformer_$round" python3 samples/apps/torch_transformer.py
    lint "default_transformer_$round" python3 samples/apps/torch_transformer.py
  done
  for round in 1 2; do
    timed "plain_cnn_$round" python3 samples/apps/torch_cnn.py
    lint "default_cnn_$round" python3 samples/apps/torch_cnn.py
  done
  ;;
esac
