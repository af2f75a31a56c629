#!/usr/bin/env bash
# The cost of proof certificates on a position file (default positions/bench.txt): per
# position the solve time, the time to write the certificate, the time to verify it, its
# bytes and the positions the verifier visited, with totals and ratios to the solve time.
# Extra arguments go to `uttt solve` (e.g. --engine dfpn, --threads 2).
# --uttt BIN measures another build (default: this tree's, built first).
# Usage: scripts/bench-certificates.sh [--file FILE] [--uttt BIN] [uttt solve options...]
set -euo pipefail
cd "$(dirname "$0")/.."
file=positions/bench.txt
uttt=
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --file) file=$2; shift ;;
    --uttt) uttt=$2; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
if [ -z "$uttt" ]; then
  cargo build --release --quiet
  uttt=./target/release/uttt
fi
"$uttt" solve --file "$file" --json --jobs 1 --quiet --verify ${args[@]+"${args[@]}"} \
  | python3 scripts/bench_certificates.py
