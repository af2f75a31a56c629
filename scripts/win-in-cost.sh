#!/usr/bin/env bash
# What `--win-in` costs (issue 58): every position of the files solved three times in fresh
# processes, `--win-in off`, `range` and `exact`; prints each position's times and distances,
# then over the wins the geometric-mean and total ratios of time and nodes against `off`, and
# how many distances each mode found exactly. --modes picks the modes; --bounded-floor adds,
# for each exact distance d, the proof within d and the disproof below it alone (the least any
# phase of bounded questions inside a solve would pay).
# Usage: scripts/win-in-cost.sh FILE... [--uttt BIN] [--threads N] [--table-mem SIZE]
#        [--time-limit TIME] [--modes range,exact] [--bounded-floor]
#        (defaults: target/release/uttt, 2 threads, 512M, 300s)
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/win_in_cost.py "$@"
