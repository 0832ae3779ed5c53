#!/usr/bin/env bash
# Builds the CUDA samples, runs gpulint on them with a real ncu, times gpulint against
# `ncu --set full` and a hand-written ncu call, and captures the application profiles of
# samples/apps. Everything lands in OUT_DIR (summary.txt, captures/, reports/).
#   usage: samples/run_on_gpu.sh OUT_DIR [GPULINT_BINARY]
# It runs from samples/, whose gpulint.toml passes --clock-control none to ncu.
set -u
out=$(realpath -m "${1:?usage: run_on_gpu.sh OUT_DIR [GPULINT]}")
gl=$(realpath "${2:-target/release/gpulint}")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/captures" "$out/reports" "$here/build"
cd "$here" || exit 2
say() { echo "$*" | tee -a "$out/summary.txt"; }
elapsed() { # seconds a command takes, its output discarded
  local t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1
  python3 -c "print(f'{$EPOCHREALTIME - $t0:.2f}')"
}
passes() { # replay passes per kernel launch of a raw-page CSV, via gpulint's JSON
  "$gl" check "$1" --format json --exit-zero 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(str(int(k["metrics"].get("replay_passes", -1))) for k in d["kernels"]))'
}

say "== machine"
nvidia-smi -L | tee -a "$out/summary.txt"
ncu --version | tail -1 | tee -a "$out/summary.txt"
"$gl" doctor | tee -a "$out/summary.txt"

say "== build (nvcc -O3 -arch=sm_90 -lineinfo)"
for s in coalesced_copy strided_copy misaligned_copy register_heavy latency_chase; do
  nvcc -O3 -arch=sm_90 -lineinfo -o "build/$s" "src/$s.cu" || say "build of $s failed"
done
nvcc -O3 -arch=sm_90 -lineinfo -DVARIANT=0 -o build/pipeline_base src/pipeline.cu
nvcc -O3 -arch=sm_90 -lineinfo -DVARIANT=1 -o build/pipeline_regressed src/pipeline.cu

say "== gpulint on each sample"
for s in coalesced_copy strided_copy misaligned_copy register_heavy latency_chase pipeline_base pipeline_regressed; do
  "$gl" run --color never --save-csv "$out/captures/$s.csv" -- "./build/$s" > "$out/reports/$s.txt" 2>&1
  say "-- gpulint run -- ./build/$s: exit $?"
  cat "$out/reports/$s.txt" >> "$out/summary.txt"
done
say "-- the bare form: gpulint ./build/strided_copy"
"$gl" ./build/strided_copy > "$out/reports/bare_form.txt" 2>&1
say "exit $?"

for prog in strided_copy pipeline_base; do
  say "== timing on ./build/$prog, seconds per run, 3 rounds interleaved"
  metrics=$("$gl" metrics)
  say "metrics: $(echo "$metrics" | tr ',' '\n' | wc -l) (gpulint metrics), $("$gl" metrics --no-roofline | tr ',' '\n' | wc -l) with --no-roofline"
  for round in 1 2 3; do
    bare=$(elapsed "./build/$prog")
    lint=$(elapsed "$gl" "./build/$prog")
    lean=$(elapsed "$gl" run --no-roofline --save-csv /tmp/lean.csv -- "./build/$prog")
    hand=$(elapsed ncu --clock-control none --csv --page raw --print-units base --metrics "$metrics" --log-file /tmp/hand.csv "./build/$prog")
    full=$(elapsed ncu --clock-control none --set full --csv --page raw --log-file /tmp/full.csv "./build/$prog")
    say "round $round: bare $bare  gpulint $lint  gpulint-no-roofline $lean  hand-written-ncu $hand  ncu-set-full $full"
  done
  "$gl" run --save-csv /tmp/gl.csv -- "./build/$prog" > /dev/null 2>&1
  say "replay passes per launch: gpulint [$(passes /tmp/gl.csv)]  --no-roofline [$(passes /tmp/lean.csv)]  hand-written [$(passes /tmp/hand.csv)]  --set full [$(passes /tmp/full.csv)]"
done
cp /tmp/full.csv "$out/captures/pipeline_base_set_full.csv"

if [ -n "${SKIP_APPS:-}" ]; then say "== done (applications skipped)"; exit 0; fi
say "== applications (samples/apps)"
app() { # name, then the command
  local name=$1; shift
  timeout 240 "$gl" run --launch-count 150 --color never --save-csv "$out/captures/$name.csv" -- "$@" > "$out/reports/$name.txt" 2>&1
  say "-- $name: exit $?"
  head -c 4000 "$out/reports/$name.txt" >> "$out/summary.txt"
}
app torch_eager python3 apps/torch_eager.py
app cudnn_nchw python3 apps/cudnn_conv.py nchw
app cudnn_channels_last python3 apps/cudnn_conv.py channels_last
app jax_jit python3 apps/jax_jit.py
app torch_compile python3 apps/torch_compile.py
say "== done"
