"""The work of scripts/reach.sh (see there)."""
import argparse
import concurrent.futures
import json
import math
import subprocess
import sys
import time


def positions(path):
    """(line number, position, expected value or None) for every position line of a file."""
    for number, line in enumerate(open(path), 1):
        fields = line.split("#", 1)[0].split()
        if fields:
            yield number, fields[0], fields[1] if len(fields) > 1 else None


# How `show` writes one binary question's outcome after its attacker's letter.
QUESTION_MARKS = {"proved": "+", "disproved": "-", "unknown": "?"}


def questions(report):
    """Each binary question the solve asked, as its attacker and a mark ("X- O?": X cannot
    win, O's question is open), so that a position left unknown shows what it did settle."""
    return " ".join(f"{search['attacker']}{QUESTION_MARKS.get(search['outcome'], '!')}"
                    for search in report.get("searches", []))


def solve(binary, options, position, threads, limit_s, table_mem):
    """One solve in a fresh process: a dict of result, questions, wall seconds, nodes and
    fill."""
    command = [binary, "solve", position, "--json", "--quiet", "--threads", str(threads),
               "--time-limit", f"{limit_s}s", *options.split()]
    if table_mem:
        command += ["--table-mem", table_mem]
    began = time.monotonic()
    try:
        out = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                             timeout=limit_s + 120).stdout
    except subprocess.TimeoutExpired:
        out = ""
    wall = time.monotonic() - began
    try:
        report = json.loads(out)
    except json.JSONDecodeError:
        return {"result": "error", "questions": "", "wall": wall, "nodes": 0, "fill": 0.0}
    return {"result": report["result"], "questions": questions(report), "wall": wall,
            "nodes": report["nodes"], "fill": report["table"]["fill"]}


def settled(run):
    return run is not None and run["result"] not in ("unknown", "error")


def show(run):
    if run is None:
        return f"{'-':>8} {'':>5} {'':>8} {'':>11} {'':>5}"
    return (f"{run['result']:>8} {run['questions']:>5} {run['wall']:>8.1f} {run['nodes']:>11} "
            f"{100 * run['fill']:>4.0f}%")


def geometric_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uttt", default="target/release/uttt")
    parser.add_argument("--baseline")
    parser.add_argument("--file", default="positions/reach.txt")
    parser.add_argument("--quick", action="store_true",
                        help="every third position, 60-s pass only")
    parser.add_argument("--lines", help="only these file line numbers (comma-separated)")
    parser.add_argument("--no-long", action="store_true", help="skip the long pass")
    parser.add_argument("--limit", type=float, default=60)
    parser.add_argument("--long-limit", type=float, default=600)
    parser.add_argument("--long-table", default="8G")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--uttt-options", default="",
                        help="more `uttt solve` options for the build measured (short pass)")
    parser.add_argument("--baseline-options", default="",
                        help="more `uttt solve` options for the baseline (short pass)")
    parser.add_argument("--parallel", type=int, default=1,
                        help="solves run at once (each with --threads threads): for machines "
                             "with at least parallel x threads cores")
    args = parser.parse_args()
    lines = list(positions(args.file))
    if args.lines:
        wanted = {int(n) for n in args.lines.split(",")}
        lines = [line for line in lines if line[0] in wanted]
    if args.quick:
        lines = lines[::3]
    builds = [("new", args.uttt, args.uttt_options)]
    if args.baseline:
        builds.append(("base", args.baseline, args.baseline_options))
    passes = [("short", args.limit, None)]
    if not (args.quick or args.no_long):
        passes.append(("long", args.long_limit, args.long_table))
    # results[pass][build][index]
    results = {name: {b: [None] * len(lines) for b, _, _ in builds} for name, _, _ in passes}
    header = "".join(f" | {b:>4}: {'answer':>8} {'asked':>5} {'time s':>8} {'nodes':>11} "
                     f"{'fill':>5}"
                     for b, _, _ in builds)
    mismatches = 0
    for name, limit, table in passes:
        print(f"# pass {name}: {limit:g} s, table {table or 'as the options say'}, "
              f"{args.threads} threads", flush=True)
        print(f"{'line':>4} {'expected':>8}{header}", flush=True)
        # Every solve of the pass, position by position and build by build, so that with
        # --parallel the builds' runs of one position still run side by side.
        tasks = []
        for index, (number, position, expected) in enumerate(lines):
            if name != "short" and all(settled(results["short"][b][index]) for b, _, _ in builds):
                continue
            for build, binary, options in builds:
                if name == "short" or not settled(results["short"][build][index]):
                    # The long pass sets its own table, so the options' table size yields.
                    extra = options if name == "short" else ""
                    tasks.append((index, build, binary, extra, position))
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.parallel)) as pool:
            runs = {(index, build): pool.submit(solve, binary, extra, position, args.threads,
                                                limit, table)
                    for index, build, binary, extra, position in tasks}
            for index, (number, position, expected) in enumerate(lines):
                if not any((index, b) in runs for b, _, _ in builds):
                    continue
                row = f"{number:>4} {expected or '?':>8}"
                for build, _, _ in builds:
                    run = runs[(index, build)].result() if (index, build) in runs else None
                    results[name][build][index] = run
                    if settled(run) and expected and run["result"] != expected:
                        mismatches += 1
                        row += "  MISMATCH"
                    row += f" | {build:>4}: {show(run)}"
                print(row, flush=True)
    print()
    for build, _, _ in builds:
        counts = []
        ever = [False] * len(lines)
        for name, limit, table in passes:
            for i in range(len(lines)):
                ever[i] = ever[i] or settled(results[name][build][i])
            counts.append(f"within {limit:g} s: {sum(ever)}")
        print(f"{build}: settled of {len(lines)}: {', '.join(counts)}")
    if args.baseline:
        def time_to_settle(build, i):
            # The wall time of the run that settled the position (the first pass that did).
            for name, _, _ in passes:
                if settled(results[name][build][i]):
                    return results[name][build][i]["wall"]
            return None
        ratios = []
        for i in range(len(lines)):
            new, base = time_to_settle("new", i), time_to_settle("base", i)
            if new is not None and base is not None:
                ratios.append(new / base)
        if ratios:
            print(f"time new/base: {geometric_mean(ratios):.3f}x geometric mean over the "
                  f"{len(ratios)} positions both settle (each build's settling run)")
        for i in range(len(lines)):
            answers = {settled(results[n][b][i]) and results[n][b][i]["result"]
                       for n, _, _ in passes for b, _, _ in builds} - {False}
            if len(answers) > 1:
                print(f"DISAGREEMENT on line {lines[i][0]}: {sorted(answers)}")
                mismatches += 1
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
