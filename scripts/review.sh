#!/usr/bin/env bash
# The review benchmark (issue 39): games played by `uttt gen --player search` (one per seed),
# each reviewed two ways with the same limits: `uttt review` (one process, one table, each
# position's solve starting from what the later ones learned) and separate `uttt solve` runs,
# one fresh process per position, walked back from the end with the same stop rule (two
# unknown positions in a row). Prints per game the plies each way reaches (the earliest ply
# from which every position to the end is settled, and the earliest settled at all), their
# wall times, and any position whose values disagree; then the mean plies gained (reach).
#
# With the defaults (60 s a position, 3 games) it runs about 30-60 minutes.
# Usage: scripts/review.sh [--uttt BIN] [--seeds 1,2,3] [--limit S] [--threads N]
#        [--search-nodes N] [--table-mem SIZE]
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/review.py "$@"
