#!/usr/bin/env bash
# The GitHub Action's gate: one `gpulint diff` of the candidate against the committed
# baseline gives the annotations (stdout), the job summary and the SARIF file.
# Environment: BASELINE, CANDIDATE, ARGS (more diff arguments, quoted as in a shell),
# SARIF (empty for none), GITHUB_OUTPUT, GITHUB_STEP_SUMMARY. Exit status: gpulint's.
set -euo pipefail

if [ ! -f "$BASELINE" ]; then
  msg="no baseline at $BASELINE, so nothing to compare against. On the main branch, run: gpulint baseline $CANDIDATE -o $BASELINE, and commit the file."
  echo "::notice title=gpulint::$msg"
  printf '## gpulint\n\n%s\n' "$msg" >> "$GITHUB_STEP_SUMMARY"
  echo "sarif=" >> "$GITHUB_OUTPUT"
  exit 0
fi

# ARGS is split as a shell splits words, quotes and backslashes included, by xargs: no
# expansion, so `$(...)` in it is text, never run.
extra=()
if [ -n "${ARGS//[[:space:]]/}" ]; then
  words=$(mktemp)
  if ! printf '%s\n' "$ARGS" | xargs printf '%s\0' > "$words"; then
    echo "::error title=gpulint::cannot split the args input (an unmatched quote?): $ARGS"
    exit 2
  fi
  mapfile -d '' extra < "$words"
fi

summary=$(mktemp)
also=(--also-write "markdown=$summary")
if [ -n "$SARIF" ]; then also+=(--also-write "sarif=$SARIF"); fi
status=0
gpulint diff "$BASELINE" "$CANDIDATE" "${extra[@]}" --format github "${also[@]}" || status=$?
cat "$summary" >> "$GITHUB_STEP_SUMMARY"
if [ -n "$SARIF" ] && [ -s "$SARIF" ]; then
  echo "sarif=$SARIF" >> "$GITHUB_OUTPUT"
else
  echo "sarif=" >> "$GITHUB_OUTPUT"
fi
exit "$status"
