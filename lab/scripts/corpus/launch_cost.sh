#!/usr/bin/env bash
# Issue #37, twelfth session: what one profiled launch costs, kernel by kernel, and what
# the cost is made of. launch_cost.py (an eager CNN step: cuDNN, cuBLAS, elementwise) under
# ncu's first 20 launches, each launch's seconds stamped by prof_times.py, with:
#   full       gpulint's 66 metrics (gpulint metrics --chip gh100)
#   nosass     the same without the 14 instruction-level (smsp__sass_/sm__sass_) metrics
#   sass       those 14 alone
#   duration   gpu__time_duration.sum alone
#   nocache    the 66 with --cache-control none (no cache flush between passes)
#   held20     the 66 with 20 GiB more device memory held by the program
# Stage idle (second call): whether ncu, attached but profiling nothing more, slows the
# CNN of torch_cnn.py (30 steps, torch.compile) the way the default run's 2.5 s a profiled
# launch suggested: plain; one early launch by -k and -c 1 (ncu done after it); one early
# launch by --kernel-id without a count (ncu attached to the end); the same with -c 1; one
# late launch by --kernel-id; then gpulint run's default with --verbose.
# Stage steps (third call): step_times.py's per-step times plain and under ncu with one
# nchwToNhwcKernel launch chosen by --kernel-id: the first, the 150th, one that never comes
# (100000), and the 150th by -k, --launch-skip 149 and -c 1.
# Stage verify (thirteenth session, one call): the build that tells ncu the sample's
# launch count without --kill (and follows the root process alone where the trace saw it
# launch everything: since removed). torch_cnn.py (30 steps) plain and by default,
# alternating, twice (the first with --verbose and its export and trace saved);
# torch_transformer.py (2 steps) plain and by default; LU (1024) plain and by default,
# twice; then step_times.py plain; under ncu with the 150th nchwToNhwcKernel launch
# profiled, without and with a launch count; with no launch profiled, following every
# process, and the root alone.
# Everything lands in $OUT/r, packed after each step into $OUT/results.tar.gz.
#   usage: OUT=DIR lab/scripts/corpus/launch_cost.sh STAGE...  (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
all=$("$gl" metrics --chip gh100)
nosass=$(tr ',' '\n' <<<"$all" | grep -v '__sass_' | paste -sd,)
sass=$(tr ',' '\n' <<<"$all" | grep '__sass_' | paste -sd,)
py=(python3 "$here/launch_cost.py" 3)
stamped() { # name, metrics, then ncu's extra options and the program
  local name=$1 metrics=$2; shift 2
  timed "$name" python3 "$here/prof_times.py" ncu --clock-control none --metrics "$metrics" \
    --launch-count 20 "$@"
}
probe() {
  timed plain "${py[@]}"
  stamped full "$all" "${py[@]}"
  stamped nosass "$nosass" "${py[@]}"
  stamped sass "$sass" "${py[@]}"
  stamped duration gpu__time_duration.sum "${py[@]}"
  stamped nocache "$all" --cache-control none "${py[@]}"
  stamped held20 "$all" "${py[@]}" 20
}
idle() {
  local cnn=(python3 samples/apps/torch_cnn.py 30) k=nchwToNhwcKernel
  local ncu1=(python3 "$here/prof_times.py" ncu --clock-control none --metrics gpu__time_duration.sum)
  timed cnn_plain "${cnn[@]}"
  timed cnn_k_c1 "${ncu1[@]}" -k "regex:$k" -c 1 "${cnn[@]}"
  timed cnn_id_early "${ncu1[@]}" --kernel-id "::regex:$k:1" "${cnn[@]}"
  timed cnn_id_early_c1 "${ncu1[@]}" --kernel-id "::regex:$k:1" -c 1 "${cnn[@]}"
  timed cnn_id_late "${ncu1[@]}" --kernel-id "::regex:$k:150" "${cnn[@]}"
  timed cnn_gpulint "$gl" run "${ncu_args[@]}" --verbose --exit-zero -- "${cnn[@]}"
}
steps() {
  local st=(python3 "$here/step_times.py") k=nchwToNhwcKernel
  local ncu1=(python3 "$here/prof_times.py" ncu --clock-control none --metrics gpu__time_duration.sum)
  timed steps_plain "${st[@]}"
  timed steps_first "${ncu1[@]}" --kernel-id "::regex:$k:1" "${st[@]}"
  timed steps_150 "${ncu1[@]}" --kernel-id "::regex:$k:150" "${st[@]}"
  timed steps_never "${ncu1[@]}" --kernel-id "::regex:$k:100000" "${st[@]}"
  timed steps_150_c1 "${ncu1[@]}" -k "regex:$k" --launch-skip 149 -c 1 "${st[@]}"
}
verify() {
  local st=(python3 "$here/step_times.py") k=nchwToNhwcKernel
  local ncu1=(python3 "$here/prof_times.py" ncu --clock-control none --metrics gpu__time_duration.sum)
  local cnn=(python3 samples/apps/torch_cnn.py 30)
  timed cnn_plain1 "${cnn[@]}"
  timed cnn_default1 "$gl" run "${ncu_args[@]}" --verbose --exit-zero --save-trace "$r/cnn.trace.csv" \
    --save-csv "$r/cnn.csv" -- "${cnn[@]}"
  timed cnn_plain2 "${cnn[@]}"
  timed cnn_default2 "$gl" run "${ncu_args[@]}" --exit-zero -- "${cnn[@]}"
  local tf=(python3 samples/apps/torch_transformer.py 2)
  timed tf_plain "${tf[@]}"
  timed tf_default "$gl" run "${ncu_args[@]}" --verbose --exit-zero -- "${tf[@]}"
  build_sample lud
  for i in 1 2; do
    timed "lud_plain$i" "$build/lud" 1024
    timed "lud_default$i" "$gl" run "${ncu_args[@]}" --exit-zero -- "$build/lud" 1024
  done
  timed steps_plain "${st[@]}"
  timed steps_150 "${ncu1[@]}" --kernel-id "::regex:$k:150" "${st[@]}"
  timed steps_150_c1 "${ncu1[@]}" --kernel-id "::regex:$k:150" -c 1 "${st[@]}"
  timed steps_never_all "${ncu1[@]}" --kernel-id "::regex:$k:100000" "${st[@]}"
  timed steps_never_root "${ncu1[@]}" --target-processes application-only \
    --kernel-id "::regex:$k:100000" "${st[@]}"
}
for stage in "$@"; do "$stage"; done
