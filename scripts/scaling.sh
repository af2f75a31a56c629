#!/usr/bin/env bash
# How the search scales with threads and MPI ranks: each position solved by one-threaded DFPN
# once, then by the default engine with 2, 4, 8 and 16 threads and over MPI (`mpirun`) with 4
# worker ranks x 4 threads, 8 x 2 and 16 x 1, each a fresh process, one at a time, every
# process with the same table size (default 512M). Prints per position and run the answer,
# time, nodes, nodes per second, search overhead (nodes / one-threaded DFPN's nodes), speed-up
# (one-threaded DFPN's time / time) and the busy shares of the root and of the workers; then
# per configuration the geometric means over the positions it settled, and the speed-up of their
# times together (which the longest solves weigh most). Says which figures hold
# on the machine it ran on: with more threads than cores, only the search overhead does.
# Flags a disagreement between any two answers (exit 1).
# Default positions: lines 48, 58, 90, 40, 70, 84 of positions/reach.txt (one-threaded DFPN
# settles each in 9-40 s on the 2-core machine; wins of X and O and draws, from played games
# and from playouts). The MPI runs need a build with `--features mpi` and Open MPI's mpirun
# (`--mpi ""` leaves them out). On a machine of many cores these solves take seconds, and a
# few longer ones show what reach gets: lines 24 and 46 take one-threaded DFPN 3-6 minutes.
# With --ceiling S it first measures what every core busy costs each search here, whatever the
# engine: as many one-threaded DFPN searches at once as the most threads of any run, S seconds
# each on the first position (each its own table), against one alone (skipped with more threads
# than cores).
# With --baseline BIN (an earlier MPI build) its MPI runs follow this build's, position by position.
# MPI runs print their messages (count, bytes, bytes per node). --transport tcp keeps them on TCP
# over loopback, as between machines; --mpi-options=--table-per-rank gives each rank a table of
# its own, as separate machines have (so both together: ranks apart); --mpi-table-mem sets the
# worker ranks' tables apart from --table-mem (pooled memory: 4 ranks with a quarter each).
# --options go to every run, the one-threaded DFPN reference's too (so that `--guide G` compares
# searches steered alike); --mpi-options to the MPI runs only (name an option in one of them).
# Usage: scripts/scaling.sh [--uttt BIN] [--baseline BIN] [--lines 48,58] [--threads 2,4,8,16]
#        [--mpi 4x4,8x2,16x1] [--table-mem 512M] [--mpi-table-mem 128M] [--limit S]
#        [--options "..."] [--mpi-options "..."] [--transport tcp] [--mpirun "..."]
#        [--ceiling S]
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/scaling.py "$@"
