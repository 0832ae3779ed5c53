#!/usr/bin/env bash
# Builds gpulint's wheel from this checkout with maturin, installs it into a fresh
# virtual environment, and runs `gpulint check` on a bundled capture from there: what
# `pip install gpulint` gives a user. Needs Python 3 with venv and pip, and cargo.
#   usage: scripts/wheel-smoke.sh [OUT_DIR]     (from the repository root)
set -euo pipefail
out=$(realpath -m "${1:-target/wheel-smoke}")
rm -rf "$out"
mkdir -p "$out"
python3 -m venv "$out/build-env"
"$out/build-env/bin/pip" install --quiet "maturin>=1.5,<2.0"
echo "== maturin $("$out/build-env/bin/maturin" --version)"
"$out/build-env/bin/maturin" build --release --out "$out/dist" 2>&1 | tail -3
wheel=$(ls "$out"/dist/gpulint-*.whl)
echo "== built $(basename "$wheel")"
python3 -m venv "$out/user-env"
"$out/user-env/bin/pip" install --quiet "$wheel"
echo "== installed: $(command -v "$out/user-env/bin/gpulint")"
"$out/user-env/bin/gpulint" --version
set +e
"$out/user-env/bin/gpulint" check fixtures/h200-zoo/full_raw_base.csv --format concise --color never | tail -3
status=${PIPESTATUS[0]}
echo "== gpulint check exit status: $status (1: findings at warning or above, as expected)"
[ "$status" = 1 ]
