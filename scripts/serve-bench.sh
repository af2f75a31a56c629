#!/usr/bin/env bash
# Analysis through `uttt serve`'s API against `uttt analyze`: each position of a file analysed
# by `uttt analyze --json` in a fresh process, then through `GET /api/analyze` of a fresh
# `uttt serve` (same threads and table size; the server is started and its table made before
# the clock starts). Prints per position both wall times and search times (`time_ms`) and their
# ratios, then the geometric means; flags a value on which the two disagree (exit 1).
# Default: the positions of positions/demo.txt, 2 threads, 256M.
# Usage: scripts/serve-bench.sh [--uttt BIN] [--file FILE] [--threads N] [--table-mem SIZE]
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/serve_bench.py "$@"
