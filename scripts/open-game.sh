#!/usr/bin/env bash
# Settles the whole game under won boards open (`--rules open`) from the empty board, and
# writes and checks a certificate of it: "X wins within 43 plies".
#
# One search from the empty board does not find the win in an hour on two cores: it spreads
# over X's 81 first moves. So the game is settled in steps on one table file, as a campaign
# would be, following the opening of Bertholon et al.'s strategy: X takes the centre of the
# centre board and answers each of O's moves there, to cell c, with the centre of board c,
# until O's eighth move fills the centre board. O chooses only which cell comes last, so the
# opening ends in one of 8 positions (X to move in the board of that cell).
#   1. Each of the 8: does X win within 27 more plies (by ply 43)?
#   2. After X's first move: does X win within 42 more plies? (The 8 are in the table.)
#   3. The empty board, within 43 plies, with `--verify`: the certificate is written from the
#      table and checked by the independent verifier.
# The steps only choose what is searched first: the certificate is the whole proof, checked
# move by move from the empty board, whatever guided the search.
#
# Usage: scripts/open-game.sh [--uttt BIN] [--threads N] [--table-mem SIZE]
#                             [--table-file PATH] [--certificate FILE]
# The table file should be in memory (the default is under /dev/shm when it has room): on
# disk the kernel's write-back of the mapped table takes much of the time.
set -euo pipefail
cd "$(dirname "$0")/.."
uttt=target/release/uttt
threads=2
table_mem=8G
table_file=
certificate=open-game.cert
while [ $# -gt 0 ]; do
  case $1 in
    --uttt) uttt=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --table-mem) table_mem=$2; shift 2 ;;
    --table-file) table_file=$2; shift 2 ;;
    --certificate) certificate=$2; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [ -z "$table_file" ]; then
  # In memory when /dev/shm has room for the table (containers often give it 64 MiB).
  dir=${TMPDIR:-/tmp}
  need=$(numfmt --from=iec "$table_mem")
  if [ -d /dev/shm ] && [ "$(df -B1 --output=avail /dev/shm | tail -1)" -gt "$need" ]; then
    dir=/dev/shm
  fi
  table_file=$dir/uttt-open-game.$$.tt
fi
echo "table file $table_file ($table_mem)"
trap 'rm -f "$table_file"' EXIT

# One step: does X win POSITION within PLIES plies? Prints the answer, nodes and seconds, and
# fails unless X does.
step() {
  local position=$1 plies=$2
  shift 2
  local answer
  answer=$("$uttt" solve "$position" --rules open --attacker X --max-plies "$plies" \
    --threads "$threads" --table-mem "$table_mem" --table-file "$table_file" --json --quiet "$@" |
    python3 -c 'import json, sys
d = json.load(sys.stdin)
result, best, nodes, seconds = d["result"], d["best_move"], d["nodes"], d["time_ms"] / 1000
line = f"{result} best {best}  {nodes:>13,} nodes  {seconds:8.1f} s"
if d.get("certificate"):
    line += "  certificate " + json.dumps(d["certificate"])
print(line)')
  printf '%-54s within %2d  %s\n' "$position" "$plies" "$answer"
  case $answer in "X best"*) ;; *) echo "X was expected to win here" >&2; exit 1 ;; esac
}

start=$(date +%s)
for last in a b c d f g h i; do
  opening=ee
  for cell in a b c d f g h i; do
    [ "$cell" = "$last" ] || opening="$opening e$cell ${cell}e"
  done
  step "$opening e$last" 27
done
step ee 42
step start 43 --certificate "$certificate" --verify
echo "settled and certified in $(($(date +%s) - start)) s: $certificate"
