#!/usr/bin/env bash
# An MPI-style launcher: starts two ranks of ./build/rank at once and waits for both.
here=$(cd "$(dirname "$0")" && pwd)
"$here/build/rank" 0 & "$here/build/rank" 1 &
wait
