#!/usr/bin/env bash
# Warnings (rule, kernel, launches covered, us at stake) of two gpulint builds on the same
# exports, and where they differ. Usage: compare_warnings.sh OLD_BIN NEW_BIN FILE.csv...
set -euo pipefail
old=$1 new=$2
shift 2
warnings() {
  "$1" check "$2" --format json --exit-zero 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(sorted((f["rule"], f["kernel"][:30], f.get("launch_count"),
              round((f.get("time_at_stake_ns") or 0) / 1000, 1))
             for f in r["findings"] if f["severity"] == "warning"))'
}
for f in "$@"; do
  echo "== $f"
  { warnings "$old" "$f"; warnings "$new" "$f"; } | python3 -c '
import ast, sys
a, b = [ast.literal_eval(l) for l in sys.stdin.read().strip().split("\n")]
if a == b:
    print("same", len(a))
else:
    print("old only", [x for x in a if x not in b])
    print("new only", [x for x in b if x not in a])'
done
