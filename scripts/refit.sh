#!/usr/bin/env bash
# Learning as it goes, measured: each position's campaign is run twice from nothing, in runs
# of --run-nodes MID calls, once refitting the calibrated guide between runs (the default) and
# once with --no-refit, the two interleaved run by run (one process at a time), until each
# settles or --runs runs are spent. Prints, per position, the runs, nodes and seconds each
# took and what the refit measured on its held-back positions; then, over the positions both
# settle, the geometric-mean ratio refit / plain of nodes and of time, and the value each
# found (they must agree: exit 1 otherwise).
# Usage: scripts/refit.sh [--uttt BIN] [--file FILE] [--lines 16,24,...] [--run-nodes N]
#        [--runs N] [--threads N] [--table-mem SIZE] [--work DIR]
# Defaults: target/release/uttt; lines 16,24,26,40,48,70,84,92 of positions/reach.txt (those
# the calibrated guide settles in 10-60 s on two threads); runs of 5,000,000 nodes, at most
# 20; 2 threads; 1G; target/refit.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/refit_campaign.py "$@"
