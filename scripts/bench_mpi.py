"""Formats scripts/bench-mpi.sh's rows (JSON objects per line, tab-separated, one per column
named on the command line, one process first) as a table with geometric-mean time and node
ratios to one process."""
import json
import math
import sys

names = sys.argv[1:]
time_logs, node_logs = {}, {}
header_printed = False
for number, line in enumerate(sys.stdin, 1):
    runs = [json.loads(part) for part in line.rstrip("\n").split("\t")]
    columns = names[:len(runs)]
    if not header_printed:
        print("%4s  %-10s" % ("#", "result") + "".join(f"{n:>17}" for n in columns))
        header_printed = True
    times = [run["time_ms"] for run in runs]
    results = [run["result"] for run in runs]
    if len(set(r for r in results if r != "unknown")) > 1:
        print(f"DISAGREEMENT on position {number}: {results}")
    print("%4d  %-10s" % (number, results[0]) + "".join(f"{t:>14} ms" for t in times))
    if "unknown" not in results:
        for name, run in zip(columns[1:], runs[1:]):
            time_logs.setdefault(name, []).append(
                math.log(max(run["time_ms"], 1) / max(times[0], 1)))
            node_logs.setdefault(name, []).append(math.log(run["nodes"] / runs[0]["nodes"]))
for name, values in time_logs.items():
    time_ratio = math.exp(sum(values) / len(values))
    node_ratio = math.exp(sum(node_logs[name]) / len(values))
    print(f"{name} / 1 process: {time_ratio:.2f}x the time, {node_ratio:.2f}x the nodes "
          f"(geometric means over {len(values)} positions)")
