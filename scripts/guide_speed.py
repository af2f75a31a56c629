"""The work of scripts/guide-speed.sh (see there)."""
import argparse
import json
import math
import subprocess
import sys

from compare_nodes import positions


def rate(binary, position, guide, args):
    """(nodes, nodes per second) of one one-threaded DFPN solve in a fresh process."""
    command = [binary, "solve", position, "--engine", "dfpn", "--threads", "1",
               "--table-mem", args.table_mem, "--node-limit", str(args.node_limit),
               "--guide", guide, "--json", "--quiet"]
    out = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                         timeout=600)
    if not out.stdout.strip():
        sys.exit(f"{binary} failed on {position}: {out.stderr.strip()}")
    report = json.loads(out.stdout)
    return report["nodes"], report["nodes"] / max(report["time_ms"], 1) * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--file", default="positions/midgame.txt")
    parser.add_argument("--every", type=int, default=4, help="every N-th position of the file")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--node-limit", type=int, default=3_000_000)
    parser.add_argument("--table-mem", default="1G")
    args = parser.parse_args()
    chosen = list(positions(args.file))[:: args.every]
    logs = {"rules": [], "learned": []}
    for round_ in range(args.rounds):
        for number, position in chosen:
            # Interleaved, so that the machine's drift touches both guides alike.
            for guide in ("rules", "learned"):
                nodes, per_second = rate(args.binary, position, guide, args)
                logs[guide].append(math.log(per_second))
                print(f"round {round_ + 1} line {number:>3} {guide:>7} {nodes:>9} nodes "
                      f"{per_second / 1000:>7.0f}k/s", flush=True)
    mean = {guide: math.exp(sum(v) / len(v)) for guide, v in logs.items()}
    print(f"nodes per second (geometric means of {len(logs['rules'])} solves each): "
          f"rules {mean['rules'] / 1000:.0f}k, learned {mean['learned'] / 1000:.0f}k, "
          f"learned / rules {mean['learned'] / mean['rules']:.3f}x")


if __name__ == "__main__":
    main()
