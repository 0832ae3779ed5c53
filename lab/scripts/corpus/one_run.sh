#!/usr/bin/env bash
# One run of the program (#58 step 4), written 2026-12-05 before its first call.
# ncu starts the program with --profile-from-start off; gpulint's launch tracer is preloaded
# (LD_PRELOAD, GPULINT_TRACE_PRELOAD=1: call 1 found that ncu sets no CUDA_INJECTION64_PATH
# and refuses to start a program that has one) and opens ncu's range (cuProfilerStart/Stop)
# around the first launch of each kernel function and grid kind, so one run both traces
# every launch and profiles the picked ones.
# Expected before the call:
# - ncu sets CUDA_INJECTION64_PATH in the program's environment, and a shell between ncu and
#   the program can replace it (unknown: ncu may set it again at exec);
# - with no pick, ncu profiles nothing and the program runs near its plain time; the trace
#   holds every launch (LU 1024: 190);
# - with picks, ncu profiles one launch per (function, grid kind): LU's 3 kernels, 5 to 6
#   rows; the trace still holds 190 launches, the picked ones marked 2;
# - the transformer's one run costs its plain run plus about 0.45 s a picked launch, unless
#   ncu slows every launch while it may still profile one (seen with --kernel-id before).
# Call 2 (preloaded, starting at the driver's dlopen): ncu "failed to connect to the CUDA
# driver" on every program. Call 3, expected: a pass-through dlopen preloaded alone breaks
# ncu the same way (dlopen wrapped changes whose RUNPATH a library is looked up by); the
# tracer started by its constructor in the program's executable does not.
# Call 2, expected: CUPTI's activity and callbacks start beside ncu's injection
# (unknown: ncu may refuse a second CUPTI client); the rest as above.
# Call 3 (the tracer started by its constructor): ncu connected and the programs ran at
# their own speed, but no trace was written and ncu profiled nothing. Call 4 (stage
# beside), expected: cupti_beside_ncu.cpp says which CUPTI step fails under ncu; without
# ncu, every step succeeds and the preloaded tracer writes LU's trace.
#   usage: OUT=DIR lab/scripts/corpus/one_run.sh STAGE...  (from the repository root)
#   stages: probe (LU, the transformer), structs (split_structs.sh), structs_source (its
#   source page and raw page from one ncu report, for split-load's suggested edit: the
#   page should hold each struct's declaration line), cnn
set -u
. lab/scripts/corpus/common.sh "$OUT/x" .device-carry/gpulint
. lab/scripts/corpus/staged.sh
mkdir -p "$r/empty"
# The program's own command under ncu: the shell puts the tracer in ncu's place.
chain=(/bin/sh -c 'export LD_PRELOAD="$GPULINT_TRACER${LD_PRELOAD:+:$LD_PRELOAD}"
export GPULINT_TRACE_PRELOAD=1; exec "$@"' sh)
# ncu profiling what the tracer picks: name, pick cap, metrics, then the program.
one_run() {
  local name=$1 cap=$2 metrics=$3; shift 3
  rm -f "$r/$name.trace.csv"
  GPULINT_TRACE_EXE=$(realpath "$(command -v "$1")") \
    GPULINT_TRACE_OUT="$r/$name.trace.csv" GPULINT_PICK_LAUNCHES=$cap GPULINT_SM_COUNT=132 \
    timed "$name" ncu --clock-control none --profile-from-start off --section-folder "$r/empty" \
    --csv --page raw --print-units base --metrics "$metrics" --log-file "$r/$name.csv" \
    "${chain[@]}" "$@"
  echo "$name: trace rows $(grep -vc '^#\|^correlation' "$r/$name.trace.csv" 2>/dev/null)," \
    "picked $(grep -c ',2$' "$r/$name.trace.csv" 2>/dev/null)," \
    "ncu rows $(grep -c '^"[0-9]' "$r/$name.csv" 2>/dev/null)" | tee -a "$r/summary.txt"
  "$gl" check --exit-zero --format concise "$r/$name.csv" > "$r/$name.check.txt" 2>&1
}
for stage in "$@"; do
  case $stage in
    probe)
      build_sample lud
      timed gl_lud "$gl" run "${ncu_args[@]}" --exit-zero -v -- "$build/lud" 1024
      line=$(grep -m1 'counting every launch' "$r/gl_lud.txt")
      export GPULINT_TRACER GPULINT_CUPTI
      GPULINT_TRACER=$(echo "$line" | sed 's/.*CUDA_INJECTION64_PATH=\([^ ]*\).*/\1/')
      GPULINT_CUPTI=$(echo "$line" | sed 's/.*GPULINT_CUPTI=\([^ ]*\).*/\1/')
      echo "tracer $GPULINT_TRACER cupti $GPULINT_CUPTI" | tee -a "$r/summary.txt"
      ncu --clock-control none --profile-from-start off /bin/sh -c \
        'env | grep -E "INJECTION|PRELOAD|NV_"' > "$r/ncu_env.txt" 2>&1
      timed plain_lud "$build/lud" 1024
      printf '%s\n' '#include <dlfcn.h>' 'extern "C" void* dlopen(const char* f, int m) {' \
        '  static auto real = (void* (*)(const char*, int))dlsym(RTLD_NEXT, "dlopen");' \
        '  return real(f, m); }' > "$r/hook.cpp"
      c++ -shared -fPIC -O2 "$r/hook.cpp" -ldl -o "$r/hook.so"
      timed dlopen_hook_lud ncu --clock-control none -c 1 --metrics gpu__time_duration.sum \
        /bin/sh -c 'LD_PRELOAD="$0" exec "$@"' "$r/hook.so" "$build/lud" 1024
      one_run one_off_lud 0 gpu__time_duration.sum "$build/lud" 1024
      one_run one_pick_lud 40 "$("$gl" metrics)" "$build/lud" 1024
      timed plain_tf python3 samples/apps/torch_transformer.py
      timed gl_tf "$gl" run "${ncu_args[@]}" --exit-zero -v -- python3 samples/apps/torch_transformer.py
      one_run one_off_tf 0 gpu__time_duration.sum python3 samples/apps/torch_transformer.py
      one_run one_pick_tf 40 "$("$gl" metrics)" python3 samples/apps/torch_transformer.py
      ;;
    structs) OUT="$r/structs" bash lab/scripts/corpus/split_structs.sh ;;
    structs_source)
      build_sample split_structs
      timed split_report ncu --clock-control none --section SourceCounters \
        --metrics "$("$gl" metrics)" -f -o "$r/split" "$build/split_structs" 1
      timed split_pages bash -c "ncu --import '$r/split.ncu-rep' --csv --page source \
        --print-source cuda,sass > '$r/source_split_structs.csv'; ncu --import \
        '$r/split.ncu-rep' --csv --page raw --print-units base > '$r/raw_split_structs.csv'"
      rm -f "$r/split.ncu-rep"
      ;;
    beside)
      build_sample lud
      timed gl_lud_small "$gl" run "${ncu_args[@]}" --exit-zero -v -- "$build/lud" 256
      line=$(grep -m1 'counting every launch' "$r/gl_lud_small.txt")
      tracer=$(echo "$line" | sed 's/.*CUDA_INJECTION64_PATH=\([^ ]*\).*/\1/')
      cupti=$(echo "$line" | sed 's/.*GPULINT_CUPTI=\([^ ]*\).*/\1/')
      c++ -shared -fPIC -O2 -std=c++17 lab/scripts/corpus/cupti_beside_ncu.cpp -ldl \
        -o "$r/cbn.so"
      with=(env LD_PRELOAD="$r/cbn.so" CUPTI_PATH="$cupti")
      ncu_off=(ncu --clock-control none --profile-from-start off --metrics gpu__time_duration.sum)
      timed beside_plain "${with[@]}" "$build/lud" 256
      timed beside_off "${ncu_off[@]}" "${with[@]}" "$build/lud" 256
      timed beside_range "${ncu_off[@]}" "${with[@]}" OPEN_RANGE=1 "$build/lud" 256
      timed beside_on ncu --clock-control none -c 1 --metrics gpu__time_duration.sum \
        "${with[@]}" "$build/lud" 256
      timed tracer_preloaded env LD_PRELOAD="$tracer" GPULINT_TRACE_PRELOAD=1 \
        GPULINT_CUPTI="$cupti" GPULINT_TRACE_OUT="$r/preloaded.trace.csv" \
        GPULINT_PICK_LAUNCHES=0 "$build/lud" 256
      echo "preloaded trace rows: $(grep -vc '^#\|^correlation' "$r/preloaded.trace.csv")" |
        tee -a "$r/summary.txt"
      ;;
    cnn)
      timed plain_cnn python3 samples/apps/torch_cnn.py 3
      one_run one_pick_cnn 40 "$("$gl" metrics)" python3 samples/apps/torch_cnn.py 3
      ;;
  esac
done
tar czf "$OUT/results.tar.gz" -C "$r" .
