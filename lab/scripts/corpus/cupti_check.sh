#!/usr/bin/env bash
# Issue 16: the launch tracer now loads CUPTI itself (dlopen of the library gpulint finds,
# or of GPULINT_CUPTI) and builds without CUDA headers. On LU and the PyTorch loop: the
# default run with the toolkit's CUPTI, then the LU run with each CUPTI that Nsight
# Compute bundles, to see which of those a standalone Nsight Compute could lend.
#   usage: lab/scripts/corpus/cupti_check.sh OUT_DIR GPULINT     (from the repo root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
export XDG_CACHE_HOME; XDG_CACHE_HOME=$(mktemp -d)
build_sample lud
nc=(--ncu-arg=--clock-control --ncu-arg=none)
for p in "lud|$build/lud 1024" "torch|python3 $here/../apps/torch_train.py"; do
  tag=${p%%|*}; cmd=${p#*|}
  t0=$(now)
  # shellcheck disable=SC2086  # the command splits into words
  "$gl" run "${nc[@]}" --verbose --format json --exit-zero -- $cmd >"$out/$tag.json" 2>"$out/$tag.err"
  echo "$tag: $(since "$t0") s"
  grep -a "building\|counting every launch\|no launch trace\|launch trace measured" "$out/$tag.err" | cut -c1-260
done
for cupti in /opt/nvidia/nsight-compute/*/host/target-linux-x64/libcupti.so.*; do
  GPULINT_CUPTI=$cupti "$gl" run "${nc[@]}" --verbose --format json --exit-zero -- \
    "$build/lud" 1024 >"$out/bundled.json" 2>"$out/bundled.err"
  echo "GPULINT_CUPTI=$cupti: $(grep -a -o "launch trace measured all [0-9]* launches\|no launch trace: .*" "$out/bundled.err" | cut -c1-160)"
done
