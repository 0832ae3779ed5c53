#!/usr/bin/env bash
# Issue #37, fourteenth session: where the transformer's profiled run spends the 6-7 s it
# takes over the program's own run (samples/apps/torch_transformer.py, 20 steps, 12
# launches sampled). Stage `parts`: the program plain; gpulint's default run (--verbose:
# its ncu command line); that command again as is, with the duration alone (one pass a
# launch), with `--cache-control none`, and matching no kernel (ncu's floor with PyTorch).
# Expected before the call: the floor is the program plus about 3 s (ncu's injection and
# CUDA's start under it); the duration alone adds little over it; gpulint's ~10 passes a
# launch add about 0.3 s a launch (3-4 s for 12); the caches' flushes a few tenths.
#   usage: OUT=DIR samples/corpus/torch_floor.sh parts   (from the repository root)
set -u
. samples/corpus/common.sh "$OUT/x" target/release/gpulint
. samples/corpus/staged.sh
prog=(python3 samples/apps/torch_transformer.py)
# `cmd` with the value after option $1 replaced by $2.
replaced() {
  out_cmd=()
  local i=0
  while [ $i -lt ${#cmd[@]} ]; do
    if [ "${cmd[$i]}" = "$1" ]; then
      out_cmd+=("$1" "$2"); i=$((i + 2))
    else
      out_cmd+=("${cmd[$i]}"); i=$((i + 1))
    fi
  done
}
parts() {
  timed plain "${prog[@]}"
  timed default "$gl" run "${ncu_args[@]}" --verbose --exit-zero -- "${prog[@]}"
  logged_ncu "$r/default.txt" "^gpulint: /.*/ncu " "$r/rep" "$r/log_as_is.txt"
  echo "${cmd[*]}" > "$r/command.txt"
  for round in 1 2; do
    timed "as_is_$round" "${cmd[@]}"
    cp "$r/log_as_is.txt" "$r/log_as_is_$round.txt"
    replaced --metrics gpu__time_duration.sum
    timed "duration_$round" "${out_cmd[@]}"
    replaced --kernel-id '::regex:^no_such_kernel_here$:1'
    timed "floor_$round" "${out_cmd[@]}"
    timed "nocache_$round" "${cmd[0]}" --cache-control none "${cmd[@]:1}"
    timed "plain_$round" "${prog[@]}"
  done
  rm -f "$r"/rep.ncu-rep
}
for stage in "$@"; do "$stage"; done
