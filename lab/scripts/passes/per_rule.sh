#!/bin/bash
# CUPTI 13.0 host-side passes of `gpulint metrics` per rule and chip: HEAD's build against this one.
cd "$(dirname "$0")/../../.."
DIR=${CUPTI_PASSES_DIR:-/tmp/cupti-passes}
export LD_LIBRARY_PATH=$DIR/nvidia/cu13/lib
P=$DIR/cupti_passes
OLD=${OLD:?the gpulint build to compare with}; NEW=./target/release/gpulint
for slug in ALL $($NEW rules --format json | python3 -c "import json,sys; [print(r['slug']) for r in json.load(sys.stdin)]"); do
  line="$slug"
  for chip in gh100 ga100 ad102 tu102 gb202; do
    CH=$(echo $chip | tr a-z A-Z)
    o=$($OLD metrics --chip $chip --select $slug --format lines 2>/dev/null | ALL_ONLY=1 $P $CH 2>&1 | head -1 | sed 's/.*: //; s/ passes//')
    n=$($NEW metrics --chip $chip --select $slug --format lines 2>/dev/null | ALL_ONLY=1 $P $CH 2>&1 | head -1 | sed 's/.*: //; s/ passes//')
    line="$line $chip $o->$n"
  done
  echo "$line"
done
