#!/usr/bin/env bash
# #58's done-when on this session's build (twenty-sixth session), in stages, one per device
# call:
#   first   LU 1024 and BFS, `gpulint run` by default against --all-launches, each kept
#           with --save-csv (BFS's every launch is the capture that judges serial-loads
#           with today's metrics); samples/apps/torch_cnn_augment.py, 30 steps, plain twice
#           and by default (--save-csv keeps the trace too); its long loop (--seconds 300) under
#           --window 20, kept the same way.
#           Expected before the call: LU's default now warns latency-bound on lud_internal
#           (its grids of 289-2,601 blocks are a grid kind of their own: a launch of each
#           kind is profiled), so 7 warnings as every launch; BFS's default still misses
#           serial-loads on Kernel (launch 10 alone, 1 of 11); the augmented CNN as its
#           header says (launch-bound or launch-burst as a warning, the model's three
#           counter warnings) within 2 x plain + 5 s; the window run the same warnings in
#           60 s or less.
#   second  the build with octave needs (the launches the cap leaves go to each octave of
#           a configuration's durations) and words written once per finding: BFS plain,
#           by default and every launch; LU plain and by default, warm; the window run
#           again; the augmented CNN at 2 steps plain, by default and every launch.
#           Expected before the call: BFS's default warns serial-loads on Kernel as every
#           launch does (5 warnings), within 2 x plain + 5 s; LU within 2 x plain + 5 s
#           (call 1's 8.48 s built the tracer); the window run a few seconds faster than
#           66.4 s with the same 4 warnings; the augmented CNN's default the warnings of
#           every launch: launch-bound and the model's three.
#   third   the committed build (fce118a): samples/apps/torch_attention.py at 3 steps plain,
#           by default and every launch; BFS plain and by default three times; the
#           augmented CNN's long loop under --window 20 again.
#           Expected before the call: torch_attention's default gives every launch's
#           warnings, manual-attention (the softmax beside batched GEMMs, judged on every
#           traced launch) and fp32-gemm-on-cuda-cores among them; BFS's default gives
#           serial-loads in some of the three runs, not all (call 2: one of two); the
#           window run about 6 s under call 1's 66.4 s (gpulint's own judging halved) if
#           ncu's run takes the 23 s it took then.
#   fourth  (written in the twenty-seventh session, which had no device) the build with two
#           replay passes fewer (d169bea on): BFS plain and by default three times, then
#           with --max-launches 12 three times; torch_attention.py at 3 steps plain, by
#           default and with --max-launches 12; the augmented CNN's long loop under
#           --window 20 (ncu's run now bounded). All --verbose, for the profiled run's
#           seconds and the replay passes.
#           Expected before the call: 8 replay passes a launch where there were 10, and a
#           launch's seconds down by about a fifth (BFS's 0.13-0.17 s to about 0.11-0.14);
#           BFS by default gives serial-loads in some runs, not all (a cap of 8 takes the
#           22-us launch in 33-60% of jittered traces, lab/runs/2026-12-05-bfs-cap-jitter.txt),
#           with --max-launches 12 in all three (94-100%), each within 2 x plain + 5 s;
#           torch_attention's default within 2 x plain + 5 s with manual-attention and
#           fp32-gemm-on-cuda-cores, and at 12 launches within a second or two of that
#           target either way; the window run within about 68 s even where the model's
#           kernels come late (the bound), under 60 s where they do not. `fourth-bfs` and
#           `fourth-torch` run its BFS and its PyTorch halves alone (twenty-eighth session:
#           the device time left after three failed starts).
# usage: OUT=DIR lab/scripts/corpus/augment_check.sh STAGE   (from the repository root;
# gpulint at $GL, default .device-carry/gpulint)
set -u
stage=${1:?usage: augment_check.sh first|second|third|fourth|fourth-bfs|fourth-torch}
source "$(dirname "$0")/common.sh" "$OUT" "${GL:-.device-carry/gpulint}"
source "$(dirname "$0")/staged.sh"
plain() { # name, then the program
  local name=$1; shift
  timed "$name" "$@"
}
case "$stage" in
first)
  build_sample lud
  build_sample bfs
  for p in "lud 1024" "bfs"; do
    read -r -a words <<<"$p"
    s=${words[0]}
    plain "plain_$s" "$build/$s" "${words[@]:1}"
    run_gl "default_$s" --format concise --save-csv "$r/default_$s.csv" -- "$build/$s" "${words[@]:1}"
    run_gl "all_$s" --format concise --all-launches --save-csv "$r/all_$s.csv" -- "$build/$s" "${words[@]:1}"
  done
  plain plain_augment python3 samples/apps/torch_cnn_augment.py
  run_gl default_augment --verbose --format concise --save-csv "$r/default_augment.csv" \
    -- python3 samples/apps/torch_cnn_augment.py
  plain plain_augment2 python3 samples/apps/torch_cnn_augment.py
  run_gl window_augment --verbose --format concise --window 20 --save-csv "$r/window_augment.csv" \
    -- python3 samples/apps/torch_cnn_augment.py --seconds 300
  ;;
second)
  build_sample lud
  build_sample bfs
  for p in "bfs" "lud 1024"; do
    read -r -a words <<<"$p"
    s=${words[0]}
    plain "plain_$s" "$build/$s" "${words[@]:1}"
    run_gl "default_$s" --format concise --save-csv "$r/default_$s.csv" -- "$build/$s" "${words[@]:1}"
    plain "plain2_$s" "$build/$s" "${words[@]:1}"
    run_gl "default2_$s" --format concise -- "$build/$s" "${words[@]:1}"
  done
  run_gl all_bfs --format concise --all-launches -- "$build/bfs"
  run_gl window_augment --verbose --format concise --window 20 \
    -- python3 samples/apps/torch_cnn_augment.py --seconds 300
  plain plain_augment_2 python3 samples/apps/torch_cnn_augment.py 2
  run_gl default_augment_2 --format concise --save-csv "$r/default_augment_2.csv" \
    -- python3 samples/apps/torch_cnn_augment.py 2
  TIMED_LIMIT=${TIMED_LIMIT:-420} run_gl all_augment_2 --format concise --all-launches \
    --save-csv "$r/all_augment_2.csv" -- python3 samples/apps/torch_cnn_augment.py 2
  ;;
third)
  build_sample bfs
  plain plain_attention python3 samples/apps/torch_attention.py 3
  run_gl default_attention --format concise --save-csv "$r/default_attention.csv" \
    -- python3 samples/apps/torch_attention.py 3
  for i in 1 2 3; do
    plain "plain_bfs_$i" "$build/bfs"
    run_gl "default_bfs_$i" --format concise --save-csv "$r/default_bfs_$i.csv" -- "$build/bfs"
  done
  run_gl window_augment --verbose --format concise --window 20 \
    -- python3 samples/apps/torch_cnn_augment.py --seconds 300
  TIMED_LIMIT=${TIMED_LIMIT:-300} run_gl all_attention --format concise --all-launches \
    --save-csv "$r/all_attention.csv" -- python3 samples/apps/torch_attention.py 3
  ;;
fourth|fourth-bfs)
  build_sample bfs
  for i in 1 2 3; do
    plain "plain_bfs_$i" "$build/bfs"
    run_gl "default_bfs_$i" --verbose --format concise --save-csv "$r/default_bfs_$i.csv" -- "$build/bfs"
  done
  for i in 1 2 3; do
    run_gl "cap12_bfs_$i" --verbose --format concise --max-launches 12 \
      --save-csv "$r/cap12_bfs_$i.csv" -- "$build/bfs"
  done
  ;;&
fourth|fourth-torch)
  plain plain_attention python3 samples/apps/torch_attention.py 3
  run_gl default_attention --verbose --format concise --save-csv "$r/default_attention.csv" \
    -- python3 samples/apps/torch_attention.py 3
  run_gl cap12_attention --verbose --format concise --max-launches 12 \
    -- python3 samples/apps/torch_attention.py 3
  run_gl window_augment --verbose --format concise --window 20 \
    -- python3 samples/apps/torch_cnn_augment.py --seconds 300
  ;;
esac
cat "$table"
