#!/usr/bin/env bash
# Captures for issue 40 (the middle ground, launch bursts) and issue 39 (source lines of
# bank conflicts, divergence, local memory and stalls), in one device call:
#   - middle_ground and launch_burst: their own timings, `gpulint run` with the export and
#     launch trace saved, and (middle_ground) `ncu --set full` with its source pages;
#   - reduction: `ncu --set full` with the source pages of its strided and divergent kernels;
#   - the zoo's full report (ZOO_REPORT, xz or not): the source pages of its tiled
#     transposes and its spilling kernel.
# Everything lands in OUT_DIR/judgement.tar.gz; ncu never changes the GPU's clocks (an
# --import takes no --clock-control).
# ONLY="middle_ground reduction zoo" runs just those parts.
#   usage: lab/scripts/corpus/judgement_captures.sh OUT_DIR [GPULINT]   (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
work=$(mktemp -d)
pack() { tar czf "$out/judgement.tar.gz" -C "$work" . ; }
ncu=(ncu --clock-control none)
nc=(--ncu-arg=--clock-control --ncu-arg=none)
for p in middle_ground launch_burst reduction; do build_sample "$p" & done
wait
source_page() { # REPORT KERNEL-REGEX NAME: the CUDA and SASS source page of those launches
  ncu --import "$1" --csv --page source --print-source cuda,sass -k "regex:$2" \
    > "$work/source_$3.csv" 2> "$work/source_$3.err"
}

wanted() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
own_output() { # PROGRAM ARGS...: the program alone, its own timings
  "$build/$1" "${@:2}" > "$work/$1.stdout" 2>&1; cat "$work/$1.stdout"
}
traced_run() { # PROGRAM ARGS...: `gpulint run`, keeping the export and the launch trace
  local name=$1 t0
  shift
  t0=$(now)
  "$gl" run "${nc[@]}" --exit-zero --save-csv "$work/min_$name.csv" \
    --save-trace "$work/trace_$name.csv" -- "$build/$name" "$@" > "$work/run_$name.txt" 2>&1
  echo "gpulint run: $(since "$t0") s"
}
full_report() { # PROGRAM RAW-CSV "ARGS" KERNEL...: `--set full`, its raw page, source pages
  local name=$1 raw=$2 args=$3 kernel
  shift 3
  # shellcheck disable=SC2086  # ARGS are the program's words
  "${ncu[@]}" --set full --import-source yes -o "$work/$name" "$build/$name" $args > /dev/null 2>&1
  ncu --import "$work/$name.ncu-rep" --csv --page raw --print-units base > "$work/$raw" 2>/dev/null
  for kernel in "$@"; do source_page "$work/$name.ncu-rep" "$kernel" "$kernel"; done
  rm -f "$work/$name.ncu-rep"
}

if wanted middle_ground; then
  echo "== middle_ground"
  own_output middle_ground
  traced_run middle_ground 512 1
  full_report middle_ground full_middle_ground.csv "512 1" gemm_global_acc walk_global
  pack
fi
if wanted launch_burst; then
  echo "== launch_burst"
  own_output launch_burst
  traced_run launch_burst
  pack
fi
if wanted reduction; then
  echo "== reduction"
  full_report reduction full_reduction_source.csv "24" reduce_strided_index reduce_divergent
  pack
fi
if wanted zoo; then
echo "== zoo"
if [ -n "${ZOO_REPORT:-}" ]; then
  report=$work/zoo_full.ncu-rep
  case $ZOO_REPORT in *.xz) xz -dc "$ZOO_REPORT" > "$report" ;; *) cp "$ZOO_REPORT" "$report" ;; esac
  source_page "$report" "transpose_tiled" transpose_tiled
  source_page "$report" "reg_spill" reg_spill
  rm -f "$report"
fi
fi
ls -la "$work"
pack
