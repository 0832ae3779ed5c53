#!/usr/bin/env bash
# Runs the three fuzz targets side by side for SECONDS each (default 600), seeded from the
# fixtures (corpus/*/seed-*). Needs cargo-fuzz (`cargo install cargo-fuzz`) and a nightly
# toolchain. Crashes land in fuzz/artifacts/TARGET/; copy each into fuzz/regressions/TARGET/,
# which src/fuzz_replay.rs replays (cargo test).
set -u
cd "$(dirname "$0")"
secs=${1:-600}
cargo +nightly fuzz build -O || exit 2
for t in ingest rule_file baseline; do
  cargo +nightly fuzz run -O "$t" "corpus/$t" -- -max_total_time="$secs" -max_len=65536 -timeout=10 \
    > "/tmp/gpulint-fuzz-$t.log" 2>&1 &
done
wait
for t in ingest rule_file baseline; do
  echo "== $t: $(grep -E '^(#[0-9]+|Done)' "/tmp/gpulint-fuzz-$t.log" | tail -1)"
  ls "artifacts/$t" 2>/dev/null | sed 's/^/   crash: /'
done
