#!/usr/bin/env bash
# The cost of the MPI message layer: every position of a file (default positions/midgame.txt)
# solved by one process with 2 threads, by one process whose 2 threads each search against a
# table of their own (`--private-tables`, as worker ranks on separate machines do: what
# separate tables cost without messages), by `mpirun -np 3` (rank 0 + 2 worker ranks of 1
# thread) with a table per rank (`--table-per-rank`) and locality assignment, the same with
# round-robin assignment, and the same ranks sharing one table (the default on one machine),
# interleaved per position; 256 MiB
# tables, a time limit per solve (default 10s). With `--baseline PATH` (an earlier build with
# `--features mpi`) its MPI with locality runs in the same loop, so a change to the message
# layer is compared in one run. With `--one-worker-rank`, also `mpirun -np 2 --bind-to none`
# with one worker rank of 2 threads: one table, as in one process. With `--rounds N` the
# whole loop runs N times and each position's times and nodes are summed over the rounds
# (runs of one build vary by a third on some positions). Prints per position and round the
# times and, over positions all settle in every round, the geometric-mean time and node
# ratios to one process, the time of each MPI run of two worker ranks against private
# tables (the message layer, with the queue and minimum of work that hide its round trip),
# and the share of each MPI run's jobs sent to a rank other than the one that searched their
# subtree last (`jobs_moved`).
# Needs a build with `--features mpi` and Open MPI's mpirun.
# Usage: scripts/bench-mpi.sh [--file FILE] [--limit TIME] [--rounds N] [--baseline PATH]
#   [--one-worker-rank]
set -euo pipefail
cd "$(dirname "$0")/.."
file=positions/midgame.txt
limit=10s
rounds=1
baseline=""
one_worker_rank=""
while [ $# -gt 0 ]; do
  case "$1" in
    --file) file=$2; shift ;;
    --limit) limit=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --baseline) baseline=$2; shift ;;
    --one-worker-rank) one_worker_rank=1 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
cargo build --release --features mpi --quiet
uttt=./target/release/uttt
common=(--json --quiet --table-mem 256M --time-limit "$limit")
mpi=(mpirun --allow-run-as-root --oversubscribe -np 3 "$uttt")
columns=("1 process" "private tables" "mpi locality" "mpi round-robin" "mpi one table")
if [ -n "$one_worker_rank" ]; then columns+=("mpi 1 rank x 2"); fi
if [ -n "$baseline" ]; then columns+=("baseline mpi"); fi
for _ in $(seq "$rounds"); do grep -v '^#' "$file" | awk 'NF {print $1}' | cat -n; done |
while read -r number position; do
  row=("$number")
  row+=("$("$uttt" solve "$position" --threads 2 "${common[@]}" </dev/null || true)")
  row+=("$("$uttt" solve "$position" --threads 2 --private-tables "${common[@]}" </dev/null || true)")
  row+=("$("${mpi[@]}" solve "$position" --mpi --threads 1 --table-per-rank "${common[@]}" </dev/null || true)")
  row+=("$("${mpi[@]}" solve "$position" --mpi --threads 1 --table-per-rank --mpi-assignment round-robin "${common[@]}" </dev/null || true)")
  row+=("$("${mpi[@]}" solve "$position" --mpi --threads 1 "${common[@]}" </dev/null || true)")
  if [ -n "$one_worker_rank" ]; then
    row+=("$(mpirun --allow-run-as-root --bind-to none -np 2 "$uttt" solve "$position" --mpi --threads 2 "${common[@]}" </dev/null || true)")
  fi
  if [ -n "$baseline" ]; then
    row+=("$(mpirun --allow-run-as-root --oversubscribe -np 3 "$baseline" solve "$position" --mpi --threads 1 "${common[@]}" </dev/null || true)")
  fi
  (IFS=$'\t'; printf '%s\n' "${row[*]}")
done | python3 scripts/bench_mpi.py "${columns[@]}"
