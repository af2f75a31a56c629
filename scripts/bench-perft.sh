#!/usr/bin/env bash
# Perft speed from the start: leaves/s single-threaded (default depth 9, 2,317,018,992 leaves).
# Usage: scripts/bench-perft.sh [DEPTH] [extra uttt perft options, e.g. --threads 2]
set -euo pipefail
cd "$(dirname "$0")/.."
depth=${1:-9}
shift || true
cargo build --release --quiet
./target/release/uttt perft "$depth" "$@"
