#!/usr/bin/env bash
# Nodes per second of one uttt build with each guide: one-threaded DFPN on every fourth
# position of positions/midgame.txt to a node limit, each solve a fresh process, the two
# guides interleaved, two rounds; prints each solve and the geometric-mean rate of each guide
# and their ratio (learned / rules).
# Usage: scripts/guide-speed.sh BIN [--file FILE] [--every N] [--rounds R]
#        [--node-limit N] [--table-mem SIZE]
# Defaults: positions/midgame.txt, every 4th, 2 rounds, 3000000 nodes, 1G (about 2 min here).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/guide_speed.py "$@"
