#!/usr/bin/env bash
# Side-by-side benchmark against the earlier public solver (see scripts/vs_anchor.py):
# uttt (three-valued and --attacker) and the anchor (default and ANCHOR_NOEVAL=1), the same
# threads and table size, interleaved per position. Takes about 20 minutes on 2 cores.
# Usage: scripts/vs-anchor.sh [--file F] [--limit SECONDS] [--threads N] [--table-mem M]
#        [--uttt PATH] [--anchor PATH] [--json]     (ANCHOR=path also sets the anchor)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 scripts/vs_anchor.py "$@"
