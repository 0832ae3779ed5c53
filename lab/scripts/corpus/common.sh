# shellcheck shell=bash
# Sourced by the lab's device scripts in this folder, after `set -u`, with OUT_DIR and GPULINT
# as $1 and $2 (GPULINT defaults to target/release/gpulint): sets out, gl, here and build,
# and gives now, since and build_sample.
out=$(realpath -m "$1")
# shellcheck disable=SC2034  # used by the scripts that source this
gl=$(realpath -m "${2:-target/release/gpulint}")
# The corpus's sources stay in samples/corpus (here), its builds in samples/build/corpus;
# the measurement scripts that source this live in lab/scripts/corpus.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../samples/corpus" && pwd)
build="$here/../build/corpus"
mkdir -p "$out" "$build"
now() { python3 -c 'import time; print(time.time())'; }
since() { python3 -c "print(f'{$(now) - $1:.2f}')"; }
# Compiles samples/corpus/NAME.cu once per machine.
build_sample() {
  [ -x "$build/$1" ] || nvcc -O3 -arch=sm_90 -lineinfo -o "$build/$1" "$here/$1.cu"
}
# Replay passes of one launch of the 2D stencil (built by build_sample) profiled with the
# metric list $1, as gpulint reads them from ncu's raw page.
stencil_passes() {
  ncu --clock-control none --csv --page raw --print-units base --metrics "$1" --launch-count 1 \
    --log-file "$out/p.csv" "$build/stencil2d" 1024 1 >/dev/null 2>&1
  "$gl" check "$out/p.csv" --format json --exit-zero 2>/dev/null |
    python3 -c 'import json,sys; print(int(json.load(sys.stdin)["kernels"][0]["metrics"].get("replay_passes", -1)))' 2>/dev/null || echo "?"
}
