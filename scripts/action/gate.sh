#!/usr/bin/env bash
# The GitHub Action's gate: one `gpulint diff` of the candidate against the committed
# baseline gives the annotations (stdout), the job summary and the SARIF file.
# Also the candidate's whole report as one HTML page, which the action uploads as an
# artifact and the summary links to.
# Environment: BASELINE, CANDIDATE, ARGS (more diff arguments, quoted as in a shell),
# SARIF and HTML (empty for none), GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, and for the link
# GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID. Exit status: gpulint's.
set -euo pipefail

report_link() { # the summary's line for the HTML report, once it is written
  [ -n "${HTML:-}" ] || return 0
  if [ -s "$HTML" ]; then
    echo "html=$HTML" >> "$GITHUB_OUTPUT"
    # shellcheck disable=SC2016  # the backticks are Markdown's, not a command
    printf '\nThe whole report, every kernel with its findings and the roofline: %s in the `gpulint-report` artifact of [this run](%s/%s/actions/runs/%s).\n' \
      "$(basename "$HTML")" "${GITHUB_SERVER_URL:-https://github.com}" "${GITHUB_REPOSITORY:-}" "${GITHUB_RUN_ID:-}" >> "$GITHUB_STEP_SUMMARY"
  else
    echo "html=" >> "$GITHUB_OUTPUT"
  fi
}
# A profiling step that produced nothing is a failure to say, not an empty summary.
if [ ! -s "$CANDIDATE" ]; then
  if [ -e "$CANDIDATE" ]; then what="is empty"; else what="does not exist"; fi
  msg="the candidate profile $CANDIDATE $what: the profiling step before this one produced nothing to compare (did it fail, or write elsewhere?)"
  echo "::error title=gpulint::$msg"
  printf '## gpulint\n\n**Not compared**: %s\n' "$msg" >> "$GITHUB_STEP_SUMMARY"
  echo "sarif=" >> "$GITHUB_OUTPUT"
  echo "html=" >> "$GITHUB_OUTPUT"
  exit 2
fi

if [ -n "${HTML:-}" ]; then
  gpulint check "$CANDIDATE" --format html --exit-zero -o "$HTML" ||
    echo "::warning title=gpulint::could not write the HTML report $HTML"
fi

if [ ! -f "$BASELINE" ]; then
  msg="no baseline at $BASELINE, so nothing to compare against. On the main branch, run: gpulint baseline $CANDIDATE -o $BASELINE, and commit the file."
  echo "::notice title=gpulint::$msg"
  printf '## gpulint\n\n%s\n' "$msg" >> "$GITHUB_STEP_SUMMARY"
  echo "sarif=" >> "$GITHUB_OUTPUT"
  report_link
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
if [ -s "$summary" ]; then
  cat "$summary" >> "$GITHUB_STEP_SUMMARY"
else
  # gpulint refused to compare (exit 2): its error is in the log above.
  echo "::error title=gpulint::gpulint diff could not compare $CANDIDATE with $BASELINE (exit $status): see this step's log"
  printf '## gpulint\n\n**Not compared**: gpulint diff exited %s before writing a report; see the log of this step.\n' "$status" >> "$GITHUB_STEP_SUMMARY"
fi
report_link
if [ -n "$SARIF" ] && [ -s "$SARIF" ]; then
  echo "sarif=$SARIF" >> "$GITHUB_OUTPUT"
else
  echo "sarif=" >> "$GITHUB_OUTPUT"
fi
exit "$status"
