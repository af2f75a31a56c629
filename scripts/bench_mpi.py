"""Formats scripts/bench-mpi.sh's rows (the position's number, then JSON objects, one per
column named on the command line, one process first; tab-separated) as a table with
geometric-mean time and node ratios to one process, the time of each MPI column of two
worker ranks against one process with private tables, and for each MPI column the share of
its jobs that went to a rank other than the one that searched their subtree last. A position met
again (another round) adds its times and nodes to the earlier rounds'."""
import json
import math
import sys

names = sys.argv[1:]
# Per position number: summed times and nodes per column, and whether every run settled.
totals = {}
# Per column: jobs and jobs moved from another rank's subtree, over every run that reports them.
moved = {}
header_printed = False
for line in sys.stdin:
    number, *parts = line.rstrip("\n").split("\t")
    number = int(number)
    runs = [json.loads(part) for part in parts]
    columns = names[:len(runs)]
    if not header_printed:
        print("%4s  %-10s" % ("#", "result") + "".join(f"{n:>17}" for n in columns))
        header_printed = True
    times = [run["time_ms"] for run in runs]
    results = [run["result"] for run in runs]
    if len(set(r for r in results if r != "unknown")) > 1:
        print(f"DISAGREEMENT on position {number}: {results}")
    print("%4d  %-10s" % (number, results[0]) + "".join(f"{t:>14} ms" for t in times))
    total = totals.setdefault(number, {"settled": True, "time": [0] * len(runs),
                                       "nodes": [0] * len(runs)})
    total["settled"] &= "unknown" not in results
    for column, run in enumerate(runs):
        total["time"][column] += max(run["time_ms"], 1)
        total["nodes"][column] += run["nodes"]
        for rank in run.get("ranks", []):
            if "jobs_moved" in rank:
                counts = moved.setdefault(columns[column], [0, 0])
                counts[0] += rank["jobs"]
                counts[1] += rank["jobs_moved"]
time_logs, node_logs = {}, {}
for total in totals.values():
    if total["settled"]:
        for column, name in enumerate(names[1:len(total["time"])], 1):
            time_logs.setdefault(name, []).append(
                math.log(total["time"][column] / total["time"][0]))
            node_logs.setdefault(name, []).append(
                math.log(total["nodes"][column] / total["nodes"][0]))
for name, values in time_logs.items():
    time_ratio = math.exp(sum(values) / len(values))
    node_ratio = math.exp(sum(node_logs[name]) / len(values))
    print(f"{name} / 1 process: {time_ratio:.2f}x the time, {node_ratio:.2f}x the nodes "
          f"(geometric means over {len(values)} positions)")
# The message layer (with the queue and minimum of work that hide its round trip): each MPI
# column of two worker ranks against one process whose two threads have tables as separate
# as those ranks' (when the run has that column).
if "private tables" in names:
    base = names.index("private tables")
    for column, name in enumerate(names):
        if name in ("mpi locality", "mpi round-robin", "baseline mpi"):
            logs = [math.log(t["time"][column] / t["time"][base])
                    for t in totals.values() if t["settled"] and column < len(t["time"])]
            if logs:
                print(f"{name} / private tables: {math.exp(sum(logs) / len(logs)):.2f}x the time")
for name, (jobs, jobs_moved) in moved.items():
    print(f"{name}: {jobs_moved} of {jobs} jobs ({100 * jobs_moved / max(jobs, 1):.0f} %) went "
          "to a rank other than the one that searched their subtree last")
