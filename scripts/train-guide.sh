#!/usr/bin/env bash
# Remakes the learned guides' tables from nothing: samples from the solver's own proofs
# (`uttt learn data`, seeded, the benchmarks' positions kept out), then the model fitted to
# them (`uttt learn train`, seeded: models/guide.bin) and the stage calibration of the
# hand-built numbers (`uttt learn calibrate`: models/calibration.bin). The same options give
# the same files, byte for byte. Rebuild afterwards (cargo build --release) to put them into
# the program.
# Usage: scripts/train-guide.sh [--uttt BIN] [--games N] [--work DIR]
# Defaults: target/release/uttt (built if missing), 5400 games (about 25 minutes on two
# cores), target/guide for the samples.
set -euo pipefail
cd "$(dirname "$0")/.."
uttt=target/release/uttt
games=5400
work=target/guide
while [[ $# -gt 0 ]]; do
  case "$1" in
    --uttt) uttt="$2"; shift 2 ;;
    --games) games="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x "$uttt" ]] || cargo build --release
mkdir -p "$work"
exclude=()
for file in positions/*.txt; do exclude+=(--exclude "$file"); done
"$uttt" learn data --games "$games" --node-limit 200000 --keep-work 256 --threads 2 \
  "${exclude[@]}" --output "$work/samples.jsonl"
"$uttt" learn train "$work/samples.jsonl" --out models/guide.bin --seed 1 --epochs 4 \
  --learning-rate 0.02
"$uttt" learn calibrate "$work/samples.jsonl" --out models/calibration.bin
