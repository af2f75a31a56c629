#!/usr/bin/env bash
# Compares two uttt builds by exact node counts on depth-bounded questions (`--max-plies`):
# every third position of positions/midgame.txt (the first 12), bounds 11, 15 and 19 plies,
# each attacker, one-threaded DFPN (deterministic), each solve a fresh process. Prints one
# line per question (bound, attacker | old result and nodes | new result and nodes), then the
# geometric-mean node ratio NEW/OLD over the questions both settle, and flags any answer on
# which the builds disagree (exit 1).
# Usage: scripts/compare-bounded.sh OLD_BIN NEW_BIN [NODE_LIMIT (default 5000000)]
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1
new=$2
limit=${3:-5000000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
grep -v '^#' positions/midgame.txt | grep -v '^$' | awk 'NR % 3 == 1 { print $1 }' | head -12 |
  while read -r position; do
    for bound in 11 15 19; do
      for attacker in X O; do
        line="$bound $attacker"
        for bin in "$old" "$new"; do
          # Exit code 1 is an unknown answer, which is counted, not an error.
          answer=$({ "$bin" solve "$position" --attacker "$attacker" --max-plies "$bound" \
            --engine dfpn --table-mem 512M --node-limit "$limit" --json --quiet || true; } |
            python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["result"], d["nodes"])')
          line="$line | $answer"
        done
        echo "$line" | tee -a "$out"
      done
    done
  done
python3 - "$out" <<'PY'
import math, sys
ratios, disagreements = [], 0
for row in open(sys.argv[1]):
    _, old, new = [part.split() for part in row.split("|")]
    if "unknown" in old or "unknown" in new:
        continue
    if old[:-1] != new[:-1]:
        disagreements += 1
        print("DISAGREE:", row.strip())
    if int(old[-1]) > 0 and int(new[-1]) > 0:
        ratios.append(int(new[-1]) / int(old[-1]))
mean = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
print(f"nodes new/old: {mean:.3f}x geometric mean over {len(ratios)} questions both settle")
sys.exit(1 if disagreements else 0)
PY
