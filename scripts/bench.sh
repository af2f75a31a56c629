#!/usr/bin/env bash
# Solves positions/bench.txt one position at a time and prints per-position time, nodes and
# nodes/s plus totals. Extra arguments go to `uttt solve` (e.g. --engine dfpn, --threads 2).
# Usage: scripts/bench.sh [--json] [--file FILE] [uttt solve options...]
set -euo pipefail
cd "$(dirname "$0")/.."
json=0
file=positions/bench.txt
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json=1 ;;
    --file) file=$2; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
cargo build --release --quiet
./target/release/uttt solve --file "$file" --json --jobs 1 --quiet ${args[@]+"${args[@]}"} \
  | python3 scripts/bench_report.py $([ $json = 1 ] && echo --json)
