"""Campaigns with and without the refit between runs, interleaved (see scripts/refit.sh)."""

import argparse
import json
import math
import os
import subprocess
import sys


def position_of_line(path, line):
    with open(path) as f:
        return f.read().splitlines()[line - 1].split()[0]


def run_once(args, pos, db, refit):
    command = [args.uttt, "campaign", "run", pos, "--db", db, "--threads", str(args.threads),
               "--node-limit", str(args.run_nodes), "--table-mem", args.table_mem, "--json"]
    if not refit:
        command.append("--no-refit")
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if not done.stdout.strip():
        sys.exit(f"no output from {' '.join(command)}: {done.stderr}")
    return json.loads(done.stdout)


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uttt", default="target/release/uttt")
    parser.add_argument("--file", default="positions/reach.txt")
    parser.add_argument("--lines", default="16,24,26,40,48,70,84,92")
    parser.add_argument("--run-nodes", type=int, default=5_000_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--table-mem", default="1G")
    parser.add_argument("--work", default="target/refit")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    arms = {"refit": True, "plain": False}
    node_ratios, time_ratios, disagree = [], [], 0
    for line in [int(x) for x in args.lines.split(",")]:
        pos = position_of_line(args.file, line)
        state = {}
        for arm in arms:
            db = os.path.join(args.work, f"{line}-{arm}.db")
            for suffix in ["", "-wal", "-shm", ".table"]:
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            state[arm] = {"db": db, "runs": 0, "nodes": 0, "ms": 0, "value": "unknown",
                          "refit": None}
        for _ in range(args.runs):
            for arm, refit in arms.items():
                s = state[arm]
                if s["value"] != "unknown":
                    continue
                out = run_once(args, pos, s["db"], refit)
                s["runs"] += 1
                s["nodes"] += out["nodes"]
                s["ms"] += out["time_ms"]
                s["value"] = out["value"]
                learned = (out.get("learning") or {}).get("refit")
                if learned:
                    s["refit"] = learned
            if all(s["value"] != "unknown" for s in state.values()):
                break
        r, p = state["refit"], state["plain"]
        measured = ""
        if r["refit"]:
            k = r["refit"]
            measured = (f"  last refit: {k['fitted']} fitted, {k['held_back']} held back, "
                        f"log2 error {k['error_before']:.2f} -> {k['error_after']:.2f}")
        print(f"line {line}: refit {r['value']} in {r['runs']} runs, {r['nodes']} nodes, "
              f"{r['ms'] / 1000:.1f} s; plain {p['value']} in {p['runs']} runs, {p['nodes']} "
              f"nodes, {p['ms'] / 1000:.1f} s{measured}", flush=True)
        if r["value"] != "unknown" and p["value"] != "unknown":
            if r["value"] != p["value"]:
                disagree += 1
                print(f"  DISAGREE on line {line}", flush=True)
            node_ratios.append(r["nodes"] / p["nodes"])
            time_ratios.append(max(r["ms"], 1) / max(p["ms"], 1))
    print(f"both settle {len(node_ratios)}: nodes refit / plain {geometric_mean(node_ratios):.3f}x "
          f"(geometric), time {geometric_mean(time_ratios):.3f}x")
    sys.exit(1 if disagree else 0)


main()
