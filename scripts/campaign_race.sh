#!/usr/bin/env bash
# Issue 86's reproduction of two campaign runs on one position and database at once, tried
# five times with one build: a run of 4 s, a second of 3 s started half a second later (with a
# snapshot of its own), then a run of 1 s that must take the tree. Prints each try's exit codes
# and how many of the five left a tree the next run refuses (exit 2).
# Usage: scripts/campaign_race.sh UTTT_BIN   (about 25 s; works in a temporary directory)
set -uo pipefail
bin=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
damaged=0
for try in 1 2 3 4 5; do
  rm -f c.db* s2.table
  "$bin" campaign run "ee ea" --db c.db --table-mem 16M --time-limit 4s --threads 1 \
    >/dev/null 2>first.err &
  sleep 0.5
  "$bin" campaign run "ee ea" --db c.db --table-mem 16M --time-limit 3s --threads 1 \
    --snapshot s2.table >/dev/null 2>second.err
  second=$?
  wait
  "$bin" campaign run "ee ea" --db c.db --time-limit 1s --table-mem 16M >/dev/null 2>next.err
  next=$?
  [ "$next" = 2 ] && damaged=$((damaged + 1))
  echo "try $try: second run exit $second $(head -c 70 second.err | tr '\n' ' ')| next run exit $next $(head -c 90 next.err | tr '\n' ' ')"
done
echo "damaged trees: $damaged of 5"
