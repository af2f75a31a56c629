#!/usr/bin/env bash
# How `uttt verify` scales with the number of blocks (issue 63): certificates of N distinct
# positions (seeded playouts of 20 plies from `uttt gen`), each block `claim X holds for 0
# plies` with no moves, so that the time is the file's bookkeeping and not the proofs. Prints
# per N the file's size and the wall time of `uttt verify` (output to /dev/null); then the time
# of the open game's proof, docs/proofs/open-game.cert (one block, 81,240 positions), when it
# is there. A check that grows with the square of N shows as 10x the time for 3x the blocks.
# A run past --timeout S seconds is stopped and printed as such (the default, 600, keeps a
# quadratic build from taking an hour on 400,000 blocks).
# --uttt BIN measures another build (default: this tree's, built first).
# Usage: scripts/verify-scaling.sh [--uttt BIN] [--sizes 5000,40000,400000] [--timeout S]
set -euo pipefail
cd "$(dirname "$0")/.."
uttt=
sizes=5000,40000,400000
limit=600
while [ $# -gt 0 ]; do
  case $1 in
    --uttt) uttt=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [ -z "$uttt" ]; then
  cargo build --release --quiet
  uttt=./target/release/uttt
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Times `uttt verify FILE`: prints the seconds, or `over S s` when the timeout stopped it, and
# fails when it ran to the end without verifying every block.
time_verify() {
  local file=$1 start end status=0
  start=$(date +%s.%N)
  timeout "$limit" "$uttt" verify "$file" > /dev/null || status=$?
  end=$(date +%s.%N)
  case $status in
    0) awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f s\n", e - s }' ;;
    124) echo "over $limit s (stopped)" ;;
    *) echo "uttt verify exited $status on $file" >&2; return 1 ;;
  esac
}

printf '%-10s %-10s %s\n' blocks size "uttt verify"
for n in ${sizes//,/ }; do
  file=$dir/blocks-$n.cert
  # Playouts can meet: keep each position once and draw more than needed.
  "$uttt" gen --plies 20 --count $((n + n / 10 + 10)) --seed 63 |
    awk -v n="$n" '!seen[$0]++ && kept < n {
      kept++
      printf "uttt-certificate 1\nclaim X holds for 0 plies\nposition %s\nmoves 0\n", $0
    }' > "$file"
  got=$(grep -c '^position ' "$file")
  [ "$got" -eq "$n" ] || { echo "only $got distinct positions for $n" >&2; exit 1; }
  size=$(du -h --apparent-size "$file" | cut -f1)
  printf '%-10s %-10s %s\n' "$n" "$size" "$(time_verify "$file")"
done
proof=docs/proofs/open-game.cert
if [ -f "$proof" ]; then
  printf '%-21s %s\n' "$(basename "$proof")" "$(time_verify "$proof")"
fi
