#!/usr/bin/env bash
# The strength match of `uttt play` against a plain UCT (examples/uct_match.rs): UCB1 with
# c = 1.4, uniformly random playouts, one node expanded per playout, 60,000 playouts a move;
# games from seeded 2-ply openings, each played with colours swapped. Runs in the background
# (a match of 100 games takes about half an hour on two cores) with a two-hour timeout; each
# game is a JSON line in OUT, the summary (score: a win 1, a draw ½) the last.
# Nothing else should run meanwhile: the player's search is bounded by time.
# Usage: scripts/strength.sh OUT [--pairs 50] [--time-ms 500] [--threads 2]
#                                [--uct-playouts 60000] [--seed 1]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/strength.sh OUT [options]}
shift
cargo build --release --quiet --example uct_match
nohup timeout 7200 target/release/examples/uct_match "$@" >"$out" 2>"$out.err" &
echo "match running as pid $!: games in $out (the last line is the summary)"
