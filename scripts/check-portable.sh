#!/usr/bin/env bash
# `gpulint check` needs no GPU, so the crate must build for macOS and Windows users of
# the Nsight Compute GUI. This type-checks it, its tests included (with clippy's
# -D warnings), for both targets from Linux; the hosted `portable` job in
# .github/workflows/ci.yml builds it and runs its tests there (those that need Unix
# process control are Linux's or Unix's: `#![cfg(...)]` at the top of the file). A target that rustup cannot install (no network) is reported SKIPPED.
#   usage: scripts/check-portable.sh        (from the repository root)
set -euo pipefail
if ! command -v rustup > /dev/null; then
  echo "portable: SKIPPED (no rustup to install the macOS and Windows targets)"
  exit 0
fi
for target in x86_64-pc-windows-gnu x86_64-apple-darwin; do
  if ! rustup target list --installed | grep -qx "$target"; then
    if ! rustup target add "$target" > /dev/null 2>&1; then
      echo "portable: SKIPPED $target (rustup could not install it)"
      continue
    fi
  fi
  cargo clippy --locked --all-targets --target "$target" -- -D warnings
  echo "portable: $target builds, tests included (cargo clippy --all-targets -D warnings)"
done
