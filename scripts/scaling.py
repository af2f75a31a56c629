"""The work of scripts/scaling.sh (see there)."""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

from reach import geometric_mean, positions


# Open MPI's options that keep every message on TCP over loopback, as between machines: the
# ob1 messaging layer (UCX, where installed, would move messages by shared memory itself) over
# the tcp and self transports only.
TCP_ONLY = ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include",
            "lo"]


def run_solve(command, limit_s):
    """One solve in a fresh process (`command` is the whole command line): its JSON object,
    or None when it failed or printed none."""
    try:
        out = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                             timeout=limit_s + 120).stdout
        return json.loads(out)
    except (subprocess.TimeoutExpired, json.JSONDecodeError):
        return None


def figures(report, one):
    """The row of one run against one-threaded DFPN's (`one`, a report or None)."""
    if report is None:
        return {"result": "error"}
    row = {
        "result": report["result"],
        "time": report["time_ms"] / 1000,
        "nodes": report["nodes"],
        "nps": report["nps"],
    }
    ranks = report.get("ranks")
    # Builds before 2026-11-28 (third stop) do not count their messages.
    if ranks and "to_rank" in ranks[0]:
        row["messages"] = sum(r["to_rank"]["messages"] + r["from_rank"]["messages"]
                              for r in ranks)
        row["message_bytes"] = sum(r["to_rank"]["bytes"] + r["from_rank"]["bytes"]
                                   for r in ranks)
        row["jobs"] = sum(r["jobs"] for r in ranks)
    tree = report.get("tree")
    if tree:
        row["root_busy"] = 100 - tree["root_wait_pct"]
        row["workers_busy"] = tree["worker_busy_pct"]
    if one is not None and one["result"] not in ("unknown", "error") and one["nodes"] > 0:
        row["overhead"] = report["nodes"] / one["nodes"]
        row["speedup"] = one["time_ms"] / max(report["time_ms"], 1)
        row["one_time"] = one["time_ms"] / 1000
    return row


def ceiling(binary, position, count, seconds, table_mem):
    """What every core busy costs a search on this machine: `count` one-threaded DFPN searches of
    `position` at once, each its own process and table, for `seconds`, against one alone
    before and after them. Every core busy costs each search nodes per second (shared caches
    and memory bandwidth, a lower clock), whatever the engine. Returns (the lone searches'
    mean rate, the rates of the searches at once)."""
    command = [binary, "solve", position, "--engine", "dfpn", "--threads", "1", "--json",
               "--quiet", "--table-mem", table_mem, "--time-limit", f"{seconds}s"]

    def rates(processes):
        running = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    stdin=subprocess.DEVNULL, text=True)
                   for _ in range(processes)]
        found = []
        for process in running:
            out, _ = process.communicate(timeout=seconds + 120)
            try:
                found.append(json.loads(out)["nps"])
            except (json.JSONDecodeError, KeyError):
                pass
        return found

    alone = rates(1)
    together = rates(count)
    alone += rates(1)
    return sum(alone) / max(len(alone), 1), together


def settled(row):
    return row["result"] not in ("unknown", "error")


def cell(row):
    if not settled(row):
        return f"{row['result']:>8}"
    busy = ""
    if "root_busy" in row:
        busy = f" {row['root_busy']:>4.1f}/{row['workers_busy']:>3.0f}%"
    messages = ""
    if "messages" in row:
        messages = (f" msgs {row['messages']} ({row['message_bytes'] / 2**20:.1f} MiB, "
                    f"{row['message_bytes'] / max(row['nodes'], 1):.2f} B/node, "
                    f"{row['jobs']} jobs)")
    return (f"{row['result']:>5} {row['time']:>7.1f}s {row['nodes']:>11} "
            f"{row['nps'] / 1e6:>5.2f}M/s so {row.get('overhead', 0):>4.2f} "
            f"su {row.get('speedup', 0):>5.2f}{busy}{messages}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uttt", default="target/release/uttt")
    parser.add_argument("--baseline",
                        help="an earlier build whose MPI runs follow this one's (same options)")
    parser.add_argument("--file", default="positions/reach.txt")
    parser.add_argument("--lines", default="48,58,90,40,70,84",
                        help="file line numbers (comma-separated)")
    parser.add_argument("--threads", default="2,4,8,16",
                        help="thread counts of the default engine in one process")
    parser.add_argument("--mpi", default="4x4,8x2,16x1",
                        help="worker ranks x threads of the MPI runs (none: empty)")
    parser.add_argument("--mpirun",
                        default="mpirun --allow-run-as-root --oversubscribe --bind-to none")
    parser.add_argument("--transport", choices=["default", "tcp"], default="default",
                        help="tcp: the MPI runs' messages over TCP on loopback only, as between "
                             "machines (Open MPI: pml ob1, btl tcp,self, interface lo)")
    parser.add_argument("--table-mem", default="512M", help="the table of every process")
    parser.add_argument("--mpi-table-mem",
                        help="the table of each MPI worker rank (or machine), when not "
                             "--table-mem: a quarter of it for 4 ranks apart pools the memory "
                             "of one process's table")
    parser.add_argument("--limit", type=float, default=600, help="seconds per solve")
    parser.add_argument("--options", default="",
                        help="more `uttt solve` options for every run: the default engine's, "
                             "MPI's and the one-threaded DFPN reference's (e.g. --guide)")
    parser.add_argument("--mpi-options", default="",
                        help="more options for the MPI runs only (--table-per-rank: ranks "
                             "apart, a table each, as on separate machines)")
    parser.add_argument("--ceiling", type=float, metavar="SECONDS",
                        help="first measure what every core busy costs: as many one-threaded DFPN "
                             "searches as the most threads of any run, at once, each for "
                             "SECONDS on the first position (each its own table)")
    args = parser.parse_args()

    wanted = [int(n) for n in args.lines.split(",")]
    by_number = {number: position for number, position, _ in positions(args.file)}
    common = ["--json", "--quiet", "--table-mem", args.table_mem,
              "--time-limit", f"{args.limit}s"]
    extra = shlex.split(args.options)
    configs = [(f"{t} threads", t, [args.uttt, "solve", None, "--threads", str(t), *common,
                                    *extra])
               for t in (int(t) for t in args.threads.split(",") if t)]
    builds = [("", args.uttt)] + ([("base ", args.baseline)] if args.baseline else [])
    mpirun = shlex.split(args.mpirun)
    if args.transport == "tcp":
        mpirun += TCP_ONLY
    mpi_common = common
    if args.mpi_table_mem:
        mpi_common = [args.mpi_table_mem if part == args.table_mem else part for part in common]
    for spec in (s for s in args.mpi.split(",") if s):
        ranks, threads = (int(x) for x in spec.split("x"))
        for label, binary in builds:
            command = [*mpirun, "-np", str(ranks + 1), binary, "solve", None,
                       "--mpi", "--threads", str(threads), *mpi_common, *extra,
                       *shlex.split(args.mpi_options)]
            configs.append((f"{label}mpi {ranks}x{threads}", ranks * threads, command))

    cores = os.cpu_count() or 1
    most = max([threads for _, threads, _ in configs] + [1])
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, {cores} cores; so = search overhead (nodes / "
          f"one-threaded DFPN's), su = speed-up (one-threaded DFPN's time / time), busy = "
          f"root / workers (per cent of the time)", flush=True)
    if most > cores:
        print(f"# this machine has {cores} cores for up to {most} threads: search overhead "
              f"holds here; speed-up and nodes per second hold only for runs of at most "
              f"{cores} threads (MPI counts one more process, rank 0)", flush=True)

    if args.ceiling and most > cores:
        print(f"# ceiling: not measured ({most} threads, {cores} cores)", flush=True)
    elif args.ceiling and wanted[0] in by_number:
        lone, together = ceiling(args.uttt, by_number[wanted[0]], most, args.ceiling,
                                 args.table_mem)
        if lone > 0 and together:
            ratio = sum(together) / len(together) / lone
            print(f"# ceiling: {len(together)} one-threaded DFPN searches at once ran at "
                  f"{ratio:.2f}x the nodes per second of one alone ({lone / 1e6:.2f}M/s; at once "
                  f"{min(together) / 1e6:.2f}-{max(together) / 1e6:.2f}M/s each), sharing "
                  f"nothing but the machine: {most} threads at search overhead 1, every one "
                  f"busy, would get about {most * ratio:.1f}x (a rate that also varies with "
                  f"the position and how full the table is)", flush=True)
        else:
            print("# ceiling: the searches printed no rate", flush=True)

    rows = {name: [] for name, _, _ in configs}
    failures = 0
    for number in wanted:
        position = by_number.get(number)
        if position is None:
            sys.exit(f"{args.file} has no position on line {number}")
        # The reference takes --options too (a --guide above all), so that the search overhead
        # compares searches steered alike.
        one = run_solve([args.uttt, "solve", position, "--engine", "dfpn", "--threads", "1",
                         *common, *extra], args.limit)
        one_row = figures(one, one)
        print(f"line {number}: one-threaded DFPN {cell(one_row)}", flush=True)
        answers = {one_row["result"]} if settled(one_row) else set()
        for name, _, command in configs:
            command = [position if part is None else part for part in command]
            row = figures(run_solve(command, args.limit), one)
            print(f"  {name:>17}: {cell(row)}", flush=True)
            if settled(row):
                answers.add(row["result"])
            if settled(row) and settled(one_row):
                rows[name].append(row)
        if len(answers) > 1:
            failures += 1
            print(f"line {number}: DISAGREEMENT {sorted(answers)}", flush=True)

    print(f"\n{'configuration':>18} {'positions':>9} {'overhead':>8} {'speed-up':>8} "
          f"{'of total':>8} {'nodes/s':>8} {'root busy':>9} {'workers busy':>12}")
    for name, _, _ in configs:
        done = rows[name]
        if not done:
            print(f"{name:>18} {0:>9}")
            continue
        overhead = geometric_mean([r["overhead"] for r in done])
        speedup = geometric_mean([r["speedup"] for r in done])
        total = sum(r["one_time"] for r in done) / max(sum(r["time"] for r in done), 1e-9)
        nps = geometric_mean([r["nps"] for r in done]) / 1e6
        per_node = ""
        if any("messages" in r for r in done):
            per_node = (f" {sum(r['message_bytes'] for r in done) / sum(r['nodes'] for r in done):.2f}"
                        f" B/node, {sum(r['messages'] for r in done) / sum(r['time'] for r in done):.0f}"
                        f" msgs/s")
        root = sum(r.get("root_busy", 0) for r in done) / len(done)
        workers = sum(r.get("workers_busy", 0) for r in done) / len(done)
        print(f"{name:>18} {len(done):>9} {overhead:>8.2f} {speedup:>8.2f} {total:>8.2f} "
              f"{nps:>7.2f}M "
              f"{root:>8.1f}% {workers:>11.0f}%{per_node}")
    print("(geometric means of overhead, speed-up and nodes per second over the positions "
          "both the configuration and one-threaded DFPN settled; of total: their one-threaded "
          "times together / their times together, which the longest solves weigh most; busy "
          "shares are plain means)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
