"""The work of scripts/win-in-cost.sh (see there)."""
import argparse
import json
import math
import subprocess
import sys

MODES = ("off", "range", "exact")


def positions(path):
    """Every position of a benchmark file (the first field of each line that has one)."""
    for line in open(path):
        fields = line.split("#", 1)[0].split()
        if fields:
            yield fields[0]


def solve(args, position, mode):
    """The JSON of one solve in a fresh process."""
    command = [args.uttt, "solve", position, "--win-in", mode, "--threads", str(args.threads),
               "--table-mem", args.table_mem, "--time-limit", args.time_limit, "--json",
               "--quiet"]
    out = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                         timeout=3600)
    if not out.stdout.strip():
        sys.exit(f"uttt failed on {position}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def geomean(ratios):
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--uttt", default="target/release/uttt")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--table-mem", default="512M")
    parser.add_argument("--time-limit", default="300s")
    args = parser.parse_args()
    rows = []
    for path in args.files:
        for position in positions(path):
            runs = {mode: solve(args, position, mode) for mode in MODES}
            stones = sum(position.split(";")[2].count(c) for c in "XO")
            rows.append((position, stones, runs))
            off, ranged, exact = (runs[m] for m in MODES)
            print(f"{stones:2d} stones  {off['result']:>7}  "
                  f"off {off['time_ms']:7d} ms  range {ranged['time_ms']:7d} ms "
                  f"{json.dumps(ranged.get('win_in')):>22}  exact {exact['time_ms']:7d} ms "
                  f"{json.dumps(exact.get('win_in')):>6}", flush=True)
    wins = [r for r in rows if r[2]["off"]["result"] in ("X", "O")]
    print(f"{len(rows)} positions, {len(wins)} wins")
    for mode in ("range", "exact"):
        for what, key in (("time", "time_ms"), ("nodes", "nodes")):
            ratios = [max(r[2][mode][key], 1) / max(r[2]["off"][key], 1) for r in wins]
            total = (sum(r[2][mode][key] for r in wins)
                     / max(sum(r[2]["off"][key] for r in wins), 1))
            print(f"{mode}/off over the wins: {what} geometric mean {geomean(ratios):.2f}x, "
                  f"total {total:.2f}x")
    exact_known = sum(1 for r in wins if isinstance(r[2]["exact"].get("win_in"), int))
    ranged_exact = sum(1 for r in wins if isinstance(r[2]["range"].get("win_in"), int))
    print(f"exact distances: --win-in exact {exact_known}/{len(wins)}, "
          f"--win-in range {ranged_exact}/{len(wins)}")


if __name__ == "__main__":
    main()
