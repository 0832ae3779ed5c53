#!/usr/bin/env bash
# How ncu can sample a program's launches (issue 16): every launch, the first three of
# each launch configuration, and the first invocations of every kernel plus a spread of
# later ones (--kernel-id with a regular expression on the invocation number). Prints
# wall time, launches profiled, and the warnings gpulint finds in each.
#   usage: lab/scripts/corpus/sampling.sh OUT_DIR GPULINT     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
metrics=$("$gl" metrics)
spread='regex:^(1|2|3|10|30|100|300|1000|3000|10000)$'
warnings() { "$gl" check "$1" --format json --exit-zero 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sorted({(f["kernel"].split("(")[0], f["rule"]) for f in d["findings"] if f["severity"] != "info"}))'; }
rows() { grep -c '^"[0-9]' "$1"; }
for p in "lud 1024" "gaussian 1024" "nw 512"; do
  set -- $p
  build_sample "$1"
  t0=$(now); "$build/$1" "$2" >/dev/null 2>&1; echo "$1 $2: bare $(since "$t0") s"
  for mode in spread perconfig all; do
    [ "$mode" = all ] && [ "$1" = gaussian ] && continue   # 371 s: measured in issue 16
    case $mode in
      spread) filt=(--kernel-id "::regex:.*:$spread") ;;
      perconfig) filt=(--filter-mode per-launch-config --launch-count 3) ;;
      all) filt=() ;;
    esac
    t0=$(now)
    timeout 200 ncu --clock-control none --csv --page raw --print-units base --metrics "$metrics" \
      "${filt[@]}" --log-file "$out/${1}_$mode.csv" "$build/$1" "$2" >/dev/null 2>"$out/${1}_$mode.err"
    echo "  $mode: $(since "$t0") s, $(rows "$out/${1}_$mode.csv") launches, warnings $(warnings "$out/${1}_$mode.csv")"
  done
done
