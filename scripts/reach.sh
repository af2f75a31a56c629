#!/usr/bin/env bash
# The reach benchmark: every position of positions/reach.txt solved three-valued with
# 2 threads, first within 60 s with the default table, then, for those still unknown, within
# 10 minutes with an 8 GiB table; with --baseline BIN, that build runs each position right
# after this one (interleaved, so both see the same machine). Prints per position the answer,
# each binary question asked ("asked": X- O? means X cannot win, O's question is still open),
# time, nodes and final table fill of each build, then the settled counts per limit and the
# geometric-mean time ratio over positions both builds settle.
#
# It runs for HOURS (up to 2 x 42 x 11 minutes with a baseline); --quick takes every third
# position and the 60-s pass only (about 30 minutes with a baseline).
# Usage: scripts/reach.sh [--uttt BIN] [--baseline BIN] [--quick] [--file FILE]
#        [--limit S] [--long-limit S] [--long-table SIZE] [--threads N] [--no-long]
#        [--lines 2,8] [--uttt-options "..."] [--baseline-options "..."] [--parallel N]
# (--parallel N runs N solves at once, for a machine with N x threads cores or more; the
# builds' solves of one position are submitted side by side)
# (the same binary twice with different options compares settings, e.g. --table-mem 4G)
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/reach.py "$@"
