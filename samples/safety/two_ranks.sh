#!/usr/bin/env bash
# An MPI-style launcher: starts two ranks of ./build/rank at once, each with its number in
# RANK as torchrun and MPI launchers set it, and waits for both.
here=$(cd "$(dirname "$0")" && pwd)
RANK=0 "$here/build/rank" 0 & RANK=1 "$here/build/rank" 1 &
wait
