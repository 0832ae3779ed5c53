#!/usr/bin/env bash
# Puts gpulint on the PATH for the GitHub Action, without a package registry.
#   install=auto:    a gpulint already on PATH at the wanted version; else the release
#                    binary of that version; else a build of the action's own source.
#   install=release: the release binary only.    install=cargo: the build only.
#   install=pip:     `pip install gpulint` into a fresh virtualenv (never --user, which
#                    fails in a virtualenv and on Debian's externally managed Python);
#                    works once a release has published the wheels to PyPI.
# Environment: GPULINT_INSTALL, GPULINT_VERSION (empty: the action's own version),
# ACTION_PATH (the action's checkout), ACTION_REPOSITORY (owner/name, for releases),
# BIN_DIR (where the binary goes; the action caches it), GITHUB_PATH.
set -euo pipefail

mode="${GPULINT_INSTALL:-auto}"
own=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ACTION_PATH/Cargo.toml" | head -n 1)
version="${GPULINT_VERSION:-$own}"
version="${version#v}"
mkdir -p "$BIN_DIR"

say() { echo "gpulint action: $*"; }

at_version() { # PROGRAM: whether it runs and prints "gpulint VERSION"
  [ -x "$1" ] && [ "$("$1" --version 2>/dev/null)" = "gpulint $version" ]
}

use_dir() {
  echo "$1" >> "$GITHUB_PATH"
  say "using $1/gpulint ($("$1/gpulint" --version))"
  exit 0
}

from_path() {
  local found
  found=$(command -v gpulint || true)
  if [ -n "$found" ] && at_version "$found"; then
    say "using $found ($version), already on PATH"
    exit 0
  fi
  if at_version "$BIN_DIR/gpulint"; then
    use_dir "$BIN_DIR"
  fi
}

from_release() {
  local arch url unpacked
  arch=$(uname -m)
  case "$(uname -s)-$arch" in
    Linux-x86_64 | Linux-aarch64) ;;
    *) say "no release binary for $(uname -s) $arch"; return 1 ;;
  esac
  url="https://github.com/${ACTION_REPOSITORY:-gpulint/gpulint}/releases/download/v$version/gpulint-v$version-$arch-unknown-linux-gnu.tar.gz"
  say "downloading $url"
  unpacked=$(mktemp -d)
  if ! curl -fsSL --retry 3 "$url" | tar -xzf - -C "$unpacked"; then
    say "no release binary at $url"
    return 1
  fi
  mv "$unpacked/gpulint" "$BIN_DIR/gpulint" || return 1
  at_version "$BIN_DIR/gpulint" || return 1
  use_dir "$BIN_DIR"
}

# Called after `||`, where `set -e` does not act: every failure returns by hand.
from_source() {
  if [ "$version" != "$own" ]; then
    say "the action's source is gpulint $own, not $version: pin the action to v$version, or leave version empty"
    return 1
  fi
  if ! command -v cargo > /dev/null; then
    say "cargo is not installed: install Rust (https://rustup.rs), or put a gpulint binary on PATH"
    return 1
  fi
  local root
  root=$(mktemp -d)
  say "building gpulint $version from $ACTION_PATH with cargo"
  if ! cargo install --locked --quiet --path "$ACTION_PATH" --root "$root"; then
    say "cargo install failed"
    return 1
  fi
  mv "$root/bin/gpulint" "$BIN_DIR/gpulint" || return 1
  at_version "$BIN_DIR/gpulint" || return 1
  use_dir "$BIN_DIR"
}

from_pip() {
  local venv="$BIN_DIR/venv" spec=gpulint
  if [ -n "${GPULINT_VERSION:-}" ]; then spec="gpulint==$version"; fi
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet "$spec"
  use_dir "$venv/bin"
}

case "$mode" in
  auto) from_path; from_release || from_source ;;
  release) from_release ;;
  cargo) from_source ;;
  pip) from_pip ;;
  *) say "install: $mode is not one of auto, release, cargo, pip"; exit 2 ;;
esac
say "could not install gpulint $version (install: $mode)"
exit 1
