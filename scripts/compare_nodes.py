"""The work of scripts/compare-nodes.sh (see there)."""
import argparse
import json
import math
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def positions(path):
    """(line number, position) for every position line of a benchmark file."""
    for number, line in enumerate(open(path), 1):
        fields = line.split("#", 1)[0].split()
        if fields:
            yield number, fields[0]


def solve(binary, options, position, args):
    """(value, nodes, per-search "A:nodes" strings, table lookups) of one DFPN solve in a fresh
    process. The lookups count the children the search made (each is looked up once, unless
    the static rules settle it), which is what the clock pays for: a MID call at a node of
    many moves counts one node and costs many lookups."""
    command = [binary, "solve", position, "--engine", args.engine, "--threads", "1",
               "--table-mem", args.table_mem,
               "--node-limit", str(args.node_limit), "--json", "--quiet", *options.split()]
    out = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if not out.stdout.strip():
        sys.exit(f"{binary} failed on {position}: {out.stderr.strip()}")
    report = json.loads(out.stdout)
    searches = [f"{s['attacker']}:{s['nodes']}" for s in report["searches"]]
    return report["value"], report["nodes"], searches, report["table"]["lookups"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--file", default="positions/midgame.txt")
    parser.add_argument("--node-limit", type=int, default=40_000_000)
    parser.add_argument("--table-mem", default="2G")
    parser.add_argument("--engine", default="dfpn",
                        help="pn-dfpn runs its root thread and one worker: nearly deterministic")
    parser.add_argument("--old-options", default="", help="more `uttt solve` options for OLD")
    parser.add_argument("--new-options", default="", help="more `uttt solve` options for NEW")
    parser.add_argument("--parallel", type=int, default=2,
                        help="solves at once (node counts do not depend on it)")
    args = parser.parse_args()
    lines = list(positions(args.file))
    with ThreadPoolExecutor(max(1, args.parallel)) as pool:
        old = list(pool.map(lambda lp: solve(args.old, args.old_options, lp[1], args), lines))
        new = list(pool.map(lambda lp: solve(args.new, args.new_options, lp[1], args), lines))
    ratios, totals, disagreements = [], [0, 0], 0
    lookup_ratios, lookup_totals = [], [0, 0]
    print(f"{'line':>4} {'old':>8} {'new':>8} {'old nodes':>11} {'new nodes':>11} {'ratio':>6}"
          "  new searches")
    for (number, _), (vo, no, _, lo), (vn, nn, searches, ln) in zip(lines, old, new):
        flag = ""
        if "unknown" not in (vo, vn):
            ratios.append(nn / no)
            totals[0] += no
            totals[1] += nn
            if lo > 0 and ln > 0:
                lookup_ratios.append(ln / lo)
                lookup_totals[0] += lo
                lookup_totals[1] += ln
            if vo != vn:
                flag, disagreements = "  DISAGREEMENT", disagreements + 1
        print(f"{number:>4} {vo:>8} {vn:>8} {no:>11} {nn:>11} {nn / no:>6.3f}  "
              f"{' '.join(searches)}{flag}")
    settled = [sum(row[0] != "unknown" for row in rows) for rows in (old, new)]
    print(f"settled: old {settled[0]}, new {settled[1]} of {len(lines)}")
    if ratios:
        mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"nodes new/old: {mean:.3f}x geometric mean, {totals[1] / totals[0]:.3f}x in "
              f"total (over {len(ratios)} positions both settle)")
    if lookup_ratios:
        mean = math.exp(sum(map(math.log, lookup_ratios)) / len(lookup_ratios))
        print(f"table lookups (children made) new/old: {mean:.3f}x geometric mean, "
              f"{lookup_totals[1] / lookup_totals[0]:.3f}x in total")
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
