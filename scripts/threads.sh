#!/usr/bin/env bash
# What more threads buy: each position solved by one-threaded DFPN once (deterministic), then
# by the default engine with --threads N (default 2) --runs times (default 3; its runs vary,
# some positions between two node counts), each solve a fresh process, one at a time. Prints
# per position the times and node counts and the speed-up (one thread's time over the mean of
# the runs'), then the geometric mean over positions every run settled; flags a disagreement
# (exit 1). Default positions: lines 24, 48, 84 and 90 of positions/reach.txt (one thread
# takes 10-90 s on each here), so a run takes 5-10 minutes.
# Usage: scripts/threads.sh [--uttt BIN] [--file FILE] [--lines 24,48] [--threads N]
#        [--runs N] [--limit S] [--options "..."]
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/threads.py "$@"
