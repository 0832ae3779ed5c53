#!/usr/bin/env bash
# Issue 28 on a GPU: each program that a launch tracer could hurt, run bare and under
# `gpulint PROG` (from samples/, whose gpulint.toml passes --clock-control none to ncu),
# each under a 120 s timeout, with its output, gpulint's stderr, exit codes and times.
# Expectations are in each program's header, written before the first run.
#   usage: samples/safety/run.sh OUT_DIR GPULINT [GPULINT_BEFORE_THE_FIX]
set -u
out=$(realpath -m "$1"); gl=$(realpath "$2"); old=${3:+$(realpath "$3")}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" "$here/build"
export XDG_CACHE_HOME; XDG_CACHE_HOME=$(mktemp -d)
for p in fork_exit exec_self rank stdin_sum; do
  nvcc -O3 -arch=sm_90 -o "$here/build/$p" "$here/$p.cu" || echo "build of $p failed"
done
seq 1 1000 > "$out/numbers.txt"
now() { python3 -c 'import time; print(time.time())'; }
case_() { # name, then the command line, run from samples/ with a 120 s timeout
  local name=$1; shift
  local t0; t0=$(now)
  (cd "$here/.." && timeout 120 "$@") >"$out/$name.out" 2>"$out/$name.err" <"${STDIN:-/dev/null}"
  local rc=$?
  printf '== %s: exit %s in %.1f s (124 = timed out)\n' "$name" "$rc" "$(python3 -c "print($(now) - $t0)")"
  echo "-- stdout"; cut -c1-200 "$out/$name.out" | grep -av '^\s*$' | head -12
  echo "-- stderr (gpulint lines)"; grep -a "^gpulint\|^error" "$out/$name.err" | cut -c1-300 | head -12
}
echo "== machine"; nvidia-smi -L; ncu --version | tail -1
ls -la "$(which ncu)"; file "$(readlink -f "$(which ncu)")" | cut -c1-150
ls -d /usr/local/cuda/nsight-compute* /opt/nvidia/nsight-compute/* 2>/dev/null
ls /usr/local/cuda/version.* 2>/dev/null; grep -h "define CUDA_VERSION" /usr/local/cuda/include/cuda.h
"$gl" doctor
b=$here/build
case_ fork_bare "$b/fork_exit"
case_ fork "$gl" run --verbose -- "$b/fork_exit"
case_ fork_headline "$gl" "$b/fork_exit"
[ -n "$old" ] && case_ fork_before_fix "$old" run -- "$b/fork_exit"
pgrep -f "$b/fork_exit" && echo "left behind: fork_exit processes" && pkill -9 -f "$b/fork_exit"
case_ exec_bare "$b/exec_self"
case_ exec "$gl" run --verbose -- "$b/exec_self"
case_ ranks_bare "$here/two_ranks.sh"
case_ ranks "$gl" run --verbose -- "$here/two_ranks.sh"
STDIN=$out/numbers.txt case_ stdin_bare "$b/stdin_sum"
STDIN=$out/numbers.txt case_ stdin_file "$gl" run --verbose -- "$b/stdin_sum"
case_ stdin_pipe bash -c "seq 1 1000 | $gl run --verbose -- $b/stdin_sum"
case_ torch_bare python3 "$here/torch_profiler.py"
case_ torch_under_ncu ncu --clock-control none --metrics gpu__time_duration.sum python3 "$here/torch_profiler.py"
case_ torch "$gl" run --verbose -- python3 "$here/torch_profiler.py"
# A stale toolkit in CUDA_HOME (CUPTI 11.4 records nothing under this driver) is passed
# over for the CUPTI beside ncu.
fake=$(mktemp -d); mkdir -p "$fake/extras/CUPTI/lib64"
echo '{"cuda": {"version": "11.4.4"}}' > "$fake/version.json"
cp "$(dirname "$(readlink -f "$(which ncu)")")"/host/target-linux-x64/libcupti.so.11.4 "$fake/extras/CUPTI/lib64/" 2>/dev/null
CUDA_HOME=$fake case_ stale_cuda_home "$gl" run --verbose -- "$b/fork_exit"
"$gl" doctor
ls -la "$XDG_CACHE_HOME/gpulint"
