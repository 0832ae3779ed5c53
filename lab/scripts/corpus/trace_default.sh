#!/usr/bin/env bash
# Issue 16: `gpulint run` with no options now counts every launch with its CUPTI launch
# tracer before ncu profiles the spread. Times the tracer's first build, then the default
# run of each program (its profile saved with --save-csv), and compares its report with the
# report of every launch (--all-launches): launches, warnings, shares.
#   usage: lab/scripts/corpus/trace_default.sh OUT_DIR GPULINT "prog args|..."   (from the repo root)
#   A program named torch_train runs samples/apps/torch_train.py; SKIP_ALL="tag ..." skips
#   the report of every launch for those.
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
cache=$(mktemp -d); export XDG_CACHE_HOME=$cache
t0=$(now)
"$gl" run --verbose --format concise --exit-zero --ncu-arg=--clock-control --ncu-arg=none \
  -- true 2>&1 | grep -a "launch trace" | cut -c1-300
echo "tracer built in $(since "$t0") s (with a gpulint run of true): $(ls "$cache/gpulint")"
IFS='|' read -ra programs <<<"$3"
for p in "${programs[@]}"; do
  # shellcheck disable=SC2086  # "prog args" splits into words
  set -- $p; name=$1; shift
  if [ "$name" = torch_train ]; then cmd=(python3 "$here/../apps/torch_train.py")
  else build_sample "$name"; cmd=("$build/$name" "$@"); fi
  tag="$name${1:+_$1}"
  t0=$(now); "${cmd[@]}" >/dev/null 2>&1; bare=$(since "$t0")
  line="$tag: bare $bare s,"
  for mode in default every; do
    extra=(--save-csv "$out/${tag}_$mode.csv"); [ "$mode" = every ] && extra=(--all-launches)
    case "$mode ${SKIP_ALL:-} " in every*" $tag "*) continue ;; esac
    t0=$(now)
    "$gl" run "${extra[@]}" --verbose --format json --exit-zero --ncu-arg=--clock-control \
      --ncu-arg=none -- "${cmd[@]}" >"$out/${tag}_$mode.json" 2>"$out/${tag}_$mode.err"
    line="$line $mode $(since "$t0") s,"
  done
  echo "$line"
  grep -a "counting every launch\|no launch trace" "$out/${tag}_default.err" | cut -c1-160
  python3 "$here/compare_sampling.py" "$out/${tag}_default.json" "$out/${tag}_every.json"
done
