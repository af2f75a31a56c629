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


def solve(args, position, mode, extra=()):
    """The JSON of one solve in a fresh process (`mode` its --win-in)."""
    # `off` is the default, and --win-in (even `off`) is refused beside --attacker.
    win_in = ["--win-in", mode] if mode != "off" else []
    command = [args.uttt, "solve", position, *win_in, "--threads", str(args.threads),
               "--table-mem", args.table_mem, "--time-limit", args.time_limit, "--json",
               "--quiet", *extra]
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
    parser.add_argument("--modes", default=",".join(MODES[1:]),
                        help="the modes measured against off (default: range,exact)")
    parser.add_argument("--bounded-floor", action="store_true",
                        help="for each exact distance d, also the bounded questions a phase of "
                             "bounded questions could not do without: the winner within d "
                             "(the proof) and within d - 2 (the disproof below it; d - 1 under "
                             "CodinGame's rules), each alone in a fresh process")
    args = parser.parse_args()
    modes = ["off", *args.modes.split(",")]
    if args.bounded_floor and "exact" not in modes:
        sys.exit("--bounded-floor needs the exact distances: --modes must include exact")
    rows = []
    for path in args.files:
        for position in positions(path):
            runs = {mode: solve(args, position, mode) for mode in modes}
            distance = runs.get("exact", {}).get("win_in")
            if args.bounded_floor and isinstance(distance, int):
                winner = runs["exact"]["result"]
                step = 1 if position.startswith("codingame:") else 2
                for name, plies in (("proof", distance), ("disproof", distance - step)):
                    if plies >= 1:
                        runs[name] = solve(args, position, "off",
                                           ("--attacker", winner, "--max-plies", str(plies)))
            stones = sum(position.split(";")[2].count(c) for c in "XO")
            rows.append((position, stones, runs))
            line = f"{stones:2d} stones  {runs['off']['result']:>7}  off {runs['off']['time_ms']:7d} ms"
            for mode in modes[1:]:
                line += (f"  {mode} {runs[mode]['time_ms']:7d} ms "
                         f"{json.dumps(runs[mode].get('win_in')):>8}")
            for name in ("proof", "disproof"):
                if name in runs:
                    line += f"  {name} {runs[name]['result']} {runs[name]['time_ms']:7d} ms"
            print(line, flush=True)
    wins = [r for r in rows if r[2]["off"]["result"] in ("X", "O")]
    print(f"{len(rows)} positions, {len(wins)} wins")
    compared = [m for m in modes[1:]] + (["proof", "disproof"] if args.bounded_floor else [])
    for mode in compared:
        measured = [r for r in wins if mode in r[2]]
        if not measured:
            continue
        for what, key in (("time", "time_ms"), ("nodes", "nodes")):
            ratios = [max(r[2][mode][key], 1) / max(r[2]["off"][key], 1) for r in measured]
            total = (sum(r[2][mode][key] for r in measured)
                     / max(sum(r[2]["off"][key] for r in measured), 1))
            print(f"{mode}/off over {len(measured)} wins: {what} geometric mean "
                  f"{geomean(ratios):.2f}x, total {total:.2f}x")
    for mode in ("exact", "range"):
        if mode in modes:
            known = sum(1 for r in wins if isinstance(r[2][mode].get("win_in"), int))
            print(f"exact distances with --win-in {mode}: {known}/{len(wins)}")


if __name__ == "__main__":
    main()
