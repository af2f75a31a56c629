#!/usr/bin/env bash
# Compares two uttt builds by exact node counts: every position of a file solved three-valued
# by single-threaded DFPN (deterministic, so one run each is the whole answer), each solve a
# fresh process, two processes at a time (--parallel N for N at a time). Prints per position
# both values and node counts (and each binary search's nodes for NEW), then the
# geometric-mean and total node ratio NEW/OLD over positions both settle, and the same for the
# table lookups (the children the searches made, which the clock pays for); flags any value on
# which the builds disagree (exit 1).
# Usage: scripts/compare-nodes.sh OLD_BIN NEW_BIN [--file FILE] [--node-limit N]
#        [--table-mem SIZE] [--old-options "..."] [--new-options "..."] [--parallel N]
# (the same binary twice with different options compares settings, e.g. --epsilon).
# Defaults: positions/midgame.txt, 40000000 nodes, 2G (about 45 s per build here).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/compare_nodes.py "$@"
