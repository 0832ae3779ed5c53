#!/usr/bin/env bash
# Issue 16: can ncu bound the launches of a kernel whose grid changes every launch?
# 1. What --kernel-id's invocation number counts (per kernel, or per configuration), in
#    global and per-launch-config filter mode, with a regex of invocation numbers.
# 2. Where ncu writes its per-launch "==PROF==" lines when the CSV goes to --log-file.
# 3. What a duration-only pass costs per launch, with and without cache flushing.
#   usage: lab/scripts/corpus/kernel_id_sample.sh OUT_DIR GPULINT     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
invocations='1|2|3|4|8|16|32|64|128|256|512|1024|2048'
count_rows() {
  python3 - "$1" <<'PY'
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
head = next(i for i, r in enumerate(rows) if r[:1] == ["ID"])
names = collections.Counter(r[rows[head].index("Kernel Name")].split("(")[0]
                            for r in rows[head + 2:] if r)
print(" ", sum(names.values()), "launches:", dict(names))
PY
}
ncu --help | grep -A14 -- '--kernel-id' >"$out/help_kernel_id.txt"
for p in "lud 1024" "nw 512" "gaussian 256" "train_loop 60"; do
  # shellcheck disable=SC2086  # "prog args" splits into words
  set -- $p; name=$1; shift
  build_sample "$name"
  tag="$name${1:+_$1}"
  for mode in global per-launch-config; do
    t0=$(now)
    ncu --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum \
      --filter-mode "$mode" --kernel-id ":::$invocations" --log-file "$out/${tag}_kid_$mode.csv" \
      "$build/$name" "$@" >/dev/null 2>"$out/${tag}_kid_$mode.err"
    echo "$tag: --kernel-id ':::$invocations', filter mode $mode: $(since "$t0") s"
    count_rows "$out/${tag}_kid_$mode.csv"
  done
done
# 2. The ==PROF== lines: ncu's own stdout and stderr, with and without --log-file.
ncu --clock-control none --csv --page raw --metrics gpu__time_duration.sum \
  --log-file "$out/prof_log.csv" "$build/gaussian" 16 >"$out/prof_stdout.txt" 2>"$out/prof_stderr.txt"
ncu --clock-control none --csv --page raw --metrics gpu__time_duration.sum \
  "$build/gaussian" 16 >"$out/prof_nolog_stdout.txt" 2>"$out/prof_nolog_stderr.txt"
for f in prof_log.csv prof_stdout.txt prof_stderr.txt prof_nolog_stdout.txt prof_nolog_stderr.txt; do
  echo "$f: $(grep -c '==PROF==' "$out/$f") ==PROF== lines; first: $(grep -m1 '==PROF==' "$out/$f")"
done
# 3. The duration-only pass over gaussian 256's 510 launches.
for flags in "" "--cache-control none" "--cache-control none --import-sass no"; do
  t0=$(now)
  # shellcheck disable=SC2086
  ncu --clock-control none $flags --csv --page raw --metrics gpu__time_duration.sum \
    --log-file "$out/timing.csv" "$build/gaussian" 256 >/dev/null 2>&1
  echo "duration-only pass, gaussian 256, flags '$flags': $(since "$t0") s"
done
t0=$(now); "$build/gaussian" 256 >/dev/null 2>&1; echo "gaussian 256 plain: $(since "$t0") s"
# 4. gpulint's own metric list on the invocation sample, against every launch.
for p in "lud 1024" "nw 512"; do
  # shellcheck disable=SC2086
  set -- $p; name=$1; shift
  tag="$name${1:+_$1}"
  for mode in kid all; do
    extra=(--ncu-arg=--kernel-id "--ncu-arg=:::$invocations")
    [ "$mode" = all ] && extra=(--all-launches)
    t0=$(now)
    "$gl" run "${extra[@]}" --format json --exit-zero --save-csv "$out/${tag}_gl_$mode.csv" \
      --ncu-arg=--clock-control --ncu-arg=none -- "$build/$name" "$@" \
      >"$out/${tag}_gl_$mode.json" 2>"$out/${tag}_gl_$mode.err"
    echo "$tag: gpulint run ($mode) $(since "$t0") s"
  done
  python3 "$here/compare_sampling.py" "$out/${tag}_gl_kid.json" "$out/${tag}_gl_all.json"
done
