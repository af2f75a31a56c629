"""The work of scripts/serve-bench.sh (see there)."""
import argparse
import json
import subprocess
import sys
import time
import urllib.parse
import urllib.request

from reach import geometric_mean, positions


def analyze_cli(binary, position, threads, table_mem):
    """`uttt analyze --json` in a fresh process: (wall seconds, its JSON)."""
    began = time.monotonic()
    out = subprocess.run([binary, "analyze", position, "--json", "--quiet", "--threads",
                          str(threads), "--table-mem", table_mem],
                         capture_output=True, text=True, timeout=600, check=False)
    return time.monotonic() - began, json.loads(out.stdout)


def analyze_api(binary, position, threads, table_mem):
    """`GET /api/analyze` of a fresh `uttt serve`: (wall seconds of the request, its JSON)."""
    server = subprocess.Popen([binary, "serve", "--port", "0", "--threads", str(threads),
                               "--table-mem", table_mem, "--time-limit", "600s"],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().split("uttt serve: ")[1].split(" ")[0]
        query = urllib.parse.urlencode({"position": position})
        began = time.monotonic()
        with urllib.request.urlopen(f"{url}api/analyze?{query}", timeout=600) as response:
            body = json.loads(response.read())
        return time.monotonic() - began, body
    finally:
        server.terminate()
        server.wait(timeout=60)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uttt", default="target/release/uttt")
    parser.add_argument("--file", default="positions/demo.txt")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--table-mem", default="256M")
    args = parser.parse_args()
    wall_ratios, search_ratios, disagreements = [], [], 0
    print(f"{'line':>5} {'cli wall':>9} {'api wall':>9} {'ratio':>6} {'cli ms':>7} "
          f"{'api ms':>7} {'ratio':>6}  value")
    for number, position, _ in positions(args.file):
        cli_wall, cli = analyze_cli(args.uttt, position, args.threads, args.table_mem)
        api_wall, api = analyze_api(args.uttt, position, args.threads, args.table_mem)
        agree = cli["value"] == api["value"]
        disagreements += not agree
        wall_ratios.append(api_wall / max(cli_wall, 1e-6))
        search_ratios.append(max(api["time_ms"], 1) / max(cli["time_ms"], 1))
        print(f"{number:>5} {cli_wall:>8.3f}s {api_wall:>8.3f}s {wall_ratios[-1]:>6.2f} "
              f"{cli['time_ms']:>7} {api['time_ms']:>7} {search_ratios[-1]:>6.2f}  "
              f"{cli['value']}{'' if agree else ' DISAGREEMENT: api ' + api['value']}",
              flush=True)
    print(f"api / cli, geometric means: wall {geometric_mean(wall_ratios):.3f}, search "
          f"{geometric_mean(search_ratios):.3f} ({len(wall_ratios)} positions; the command's "
          f"wall time includes starting the process and making its table)")
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
