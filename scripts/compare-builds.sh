#!/usr/bin/env bash
# Times two uttt builds on the same positions, each solve a fresh process (so table set-up
# and page zeroing count), the builds alternating per position, for several rounds; prints
# every time and the geometric-mean time ratio NEW/OLD over positions both settle.
# Usage: scripts/compare-builds.sh OLD_BIN NEW_BIN [--file FILE] [--lines 8,10,24]
#        [--rounds N] [-- uttt solve options...]
# Defaults: positions/midgame.txt, every position line, 2 rounds, options --threads 2
# --time-limit 30s (the default 1 GiB table unless --table-mem is given).
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2; shift 2
file=positions/midgame.txt lines="" rounds=2 options=(--threads 2 --time-limit 30s)
while [ $# -gt 0 ]; do
  case "$1" in
    --file) file=$2; shift ;;
    --lines) lines=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --) shift; options=("$@"); break ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$lines" ]; then
  lines=$(grep -n -v '^#' "$file" | awk -F: 'length($2) > 0 {print $1}' | paste -sd, -)
fi
for round in $(seq "$rounds"); do
  for line in ${lines//,/ }; do
    position=$(sed -n "${line}p" "$file" | awk '{print $1}')
    for build in old new; do
      bin=$old; [ $build = new ] && bin=$new
      start=$(date +%s.%N)
      # An unsettled solve exits 1: its report still counts (as unknown).
      report=$("$bin" solve "$position" --json --quiet "${options[@]}" </dev/null || true)
      end=$(date +%s.%N)
      # Read after the clock stops: Python's start-up (about 0.1 s) is no part of the solve.
      result=$(printf '%s' "$report" \
        | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["result"], d["nodes"])')
      echo "$round $line $build $result $(python3 -c "print(round($end - $start, 3))")"
    done
  done
done | python3 -c '
import math, sys
times = {}
for row in sys.stdin:
    print(row, end="")
    round_, line, build, result, nodes, seconds = row.split()
    times.setdefault((round_, line), {})[build] = (result, float(seconds))
logs = [math.log(t["new"][1] / t["old"][1]) for t in times.values()
        if "unknown" not in (t["old"][0], t["new"][0])]
if logs:
    print(f"new/old wall time: {math.exp(sum(logs) / len(logs)):.2f}x (geometric mean over {len(logs)} solves)")
'
