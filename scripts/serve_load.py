"""The work of scripts/serve-load.sh (see there)."""
import argparse
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import subprocess
import sys

from reach import positions


def rss_bytes(pid):
    """The resident memory of process `pid` (0 once it is gone)."""
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def get(url, timeout):
    """(status, seconds) of one GET."""
    began = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    return status, time.monotonic() - began


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uttt", default="target/release/uttt")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--file", default="positions/midgame.txt")
    parser.add_argument("--table-mem", default="256M")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-searches", type=int, default=8)
    parser.add_argument("--time-limit", type=float, default=5)
    args = parser.parse_args()
    table_bytes = int(args.table_mem[:-1]) << {"K": 10, "M": 20, "G": 30}[args.table_mem[-1]]
    todo = [position for _, position, _ in positions(args.file)]
    server = subprocess.Popen([args.uttt, "serve", "--port", "0", "--threads", str(args.threads),
                               "--table-mem", args.table_mem, "--max-searches",
                               str(args.max_searches), "--time-limit", f"{args.time_limit}s"],
                              stdout=subprocess.PIPE, text=True)
    url = server.stdout.readline().split("uttt serve: ")[1].split(" ")[0]
    end = time.monotonic() + args.seconds
    lock = threading.Lock()
    counts = {"answered": 0, "refused": 0, "failed": 0}
    show_latencies = []
    peak = [0]

    def client(index):
        turn = index
        while time.monotonic() < end:
            query = urllib.parse.urlencode({"position": todo[turn % len(todo)]})
            try:
                status, _ = get(f"{url}api/analyze?{query}", args.time_limit + 60)
            except OSError:
                status = None
            with lock:
                key = {200: "answered", 503: "refused"}.get(status, "failed")
                counts[key] += 1
            if status == 503:
                time.sleep(0.05)
            turn += args.clients

    def prober():
        while time.monotonic() < end:
            try:
                status, seconds = get(f"{url}api/show?position=start", 10)
            except OSError:
                status, seconds = None, None
            with lock:
                if status == 200:
                    show_latencies.append(seconds)
                else:
                    counts["failed"] += 1
            peak[0] = max(peak[0], rss_bytes(server.pid))
            time.sleep(0.1)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
    threads.append(threading.Thread(target=prober))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    alive = server.poll() is None
    server.terminate()
    server.wait(timeout=60)
    latencies = sorted(show_latencies) or [float("nan")]
    pick = lambda share: latencies[min(len(latencies) - 1, int(share * len(latencies)))]
    print(f"{args.clients} clients for {args.seconds:.0f} s: {counts['answered']} analyses "
          f"answered, {counts['refused']} refused (503), {counts['failed']} failed; server "
          f"{'alive' if alive else 'DEAD'}")
    print(f"GET /api/show during them: {len(show_latencies)} answers, median "
          f"{pick(0.5) * 1000:.1f} ms, 99th percentile {pick(0.99) * 1000:.1f} ms, most "
          f"{latencies[-1] * 1000:.1f} ms")
    print(f"server's peak resident memory {peak[0] / 2**20:.0f} MiB against --table-mem "
          f"{table_bytes / 2**20:.0f} MiB (margin {(peak[0] - table_bytes) / 2**20:.0f} MiB)")
    sys.exit(0 if alive and counts["failed"] == 0 else 1)


if __name__ == "__main__":
    main()
