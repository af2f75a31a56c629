"""Formats scripts/bench-mpi.sh's rows (three JSON objects per line, tab-separated: one
process, MPI with locality, MPI round-robin) as a table with geometric-mean time ratios."""
import json
import math
import sys

names = ("1 process", "mpi locality", "mpi round-robin")
logs = {name: [] for name in names[1:]}
print("%4s  %-10s %12s %14s %16s" % ("#", "result", *names))
for number, line in enumerate(sys.stdin, 1):
    runs = [json.loads(part) for part in line.rstrip("\n").split("\t")]
    times = [run["time_ms"] for run in runs]
    results = [run["result"] for run in runs]
    if len(set(r for r in results if r != "unknown")) > 1:
        print(f"DISAGREEMENT on position {number}: {results}")
    print("%4d  %-10s %10d ms %12d ms %14d ms" % (number, results[0], *times))
    if "unknown" not in results:
        for name, time in zip(names[1:], times[1:]):
            logs[name].append(math.log(max(time, 1) / max(times[0], 1)))
for name, values in logs.items():
    if values:
        ratio = math.exp(sum(values) / len(values))
        print(f"{name} / 1 process: {ratio:.2f}x (geometric mean over {len(values)} positions)")
