#!/usr/bin/env bash
# `uttt serve` under load: N clients (default 8) ask for analyses of the positions of a file
# (default positions/midgame.txt), each its next as soon as it has its answer, for S seconds
# (default 30), while a prober asks `GET /api/show` every 100 ms. Prints the analyses answered
# and refused (503), the show's latency (median, 99th percentile, most), and the server's
# peak resident memory against its --table-mem; exits 1 if the server died or a request failed
# otherwise. Every request is local (127.0.0.1) and the run ends by itself.
# Usage: scripts/serve-load.sh [--uttt BIN] [--clients N] [--seconds S] [--file FILE]
#        [--table-mem SIZE] [--threads N] [--max-searches N] [--time-limit S]
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/serve_load.py "$@"
