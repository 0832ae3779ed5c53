#!/usr/bin/env bash
# launch_burst.cu traced and profiled at two lengths of its long kernel (4000 and 24000
# passes), with the export and the launch trace saved: the bursts with the whole run
# waiting over and under launch-bound's bar. Writes to $OUT (a device call's folder).
#   usage: OUT=DIR lab/scripts/corpus/launch_burst_capture.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh $OUT/x target/release/gpulint
build_sample launch_burst
for passes in 4000 24000; do
  "$build/launch_burst" 30 320 $passes
  target/release/gpulint run --ncu-arg=--clock-control --ncu-arg=none --exit-zero --save-csv $OUT/default_launch_burst_$passes.csv --save-trace $OUT/trace_launch_burst_$passes.csv -- "$build/launch_burst" 30 320 $passes > $OUT/run_launch_burst_$passes.txt 2>&1
  tail -3 $OUT/run_launch_burst_$passes.txt
done
