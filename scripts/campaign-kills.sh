#!/usr/bin/env bash
# What stopping a campaign costs: one position solved by one uninterrupted `uttt solve`, then
# by a campaign (a fresh database) killed with SIGKILL after each of KILL_AFTER seconds of
# its runs and resumed, run to the end; prints both answers (they must agree), the times and
# their ratio, and the campaign's status. Both with --threads 2 (and any further options).
# Usage: scripts/campaign-kills.sh POSITION [--uttt BIN] [--kills N] [--every SECONDS]
#        [--spread SECONDS] [--campaign-options "..."] [-- uttt options...]
# Defaults: this tree's build, 5 kills, one every 20 s (±5 s, seeded), no further options;
# --campaign-options go to the campaign's runs only (e.g. "--table-file /tmp/c.tt").
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/campaign_kills.py "$@"
