#!/usr/bin/env bash
# Issue 16: what --kernel-id's invocation number counts when one function has several
# template instantiations (template_phases.cu), with each --kernel-name-base, and whether ncu
# takes --kernel-name together with --kernel-id. Prints the launches each run profiled.
#   usage: lab/scripts/corpus/kernel_id_names.sh OUT_DIR GPULINT     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
build_sample template_phases
build_sample gaussian
inv='1|2|3|4|8|16|32|64'
profiled() {
  python3 - "$1" <<'PY'
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1]))) if __import__("os").path.exists(sys.argv[1]) else []
head = next((i for i, r in enumerate(rows) if r[:1] == ["ID"]), None)
if head is None:
    print("  no results:", " ".join(l for r in rows for l in r)[:300]); sys.exit()
h = rows[head]
seen = collections.Counter((r[h.index("Kernel Name")], r[h.index("Grid Size")]) for r in rows[head + 2:] if r)
for (k, g), c in seen.items():
    print(f"  {c} x {k} grid {g}")
PY
}
i=0
while IFS= read -r line; do
  i=$((i + 1))
  read -ra args <<<"$line"
  prog=template_phases; [ "${args[0]}" = gaussian ] && { prog="gaussian 64"; args=("${args[@]:1}"); }
  echo "run $i: ncu ${args[*]} $prog"
  # shellcheck disable=SC2086  # "gaussian 64" is a program and its argument
  ncu --clock-control none --csv --page raw --metrics gpu__time_duration.sum "${args[@]}" \
    --log-file "$out/run$i.csv" "$build"/$prog </dev/null >/dev/null 2>"$out/run$i.err"
  profiled "$out/run$i.csv"
done <<LIST
--kernel-id :::$inv
--kernel-name-base mangled --kernel-id :::$inv
--kernel-name-base demangled --kernel-id :::$inv
-k regex:scale --kernel-id :::$inv
--kernel-name-base mangled -k regex:scale --kernel-id :::$inv
--kernel-name-base mangled --kernel-id ::regex:scale:$inv
gaussian -k Fan1 --kernel-id :::1|2|3
gaussian --kernel-name-base mangled -k Fan1 --kernel-id :::1|2|3
LIST
