#!/usr/bin/env bash
# How often the learned estimate's lean (the outcome it finds likeliest, shown beside unknown
# values by analyze, review and the board) is the real value: on a file of positions with
# their values, or on random positions at some plies that the solver settles within a node
# limit. Prints the values against the leans, the share right, and always guessing the
# commonest value for comparison.
# Usage: scripts/estimate-accuracy.sh BIN --file FILE        (POSITION VALUE a line)
#        scripts/estimate-accuracy.sh BIN --plies 26-34 [--count N] [--seed S] [--node-limit N]
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/estimate_accuracy.py "$@"
