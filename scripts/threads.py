"""The work of scripts/threads.sh (see there)."""
import argparse
import statistics
import sys

from reach import geometric_mean, positions, settled, solve


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uttt", default="target/release/uttt")
    parser.add_argument("--file", default="positions/reach.txt")
    parser.add_argument("--lines", default="24,48,84,90",
                        help="file line numbers (comma-separated)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3,
                        help="runs of the multi-threaded solve per position")
    parser.add_argument("--limit", type=float, default=300, help="seconds per solve")
    parser.add_argument("--options", default="",
                        help="more `uttt solve` options for the multi-threaded runs")
    args = parser.parse_args()
    wanted = {int(n) for n in args.lines.split(",")}
    lines = [line for line in positions(args.file) if line[0] in wanted]
    print(f"# one thread: --engine dfpn; {args.threads} threads: the default engine"
          f"{' ' + args.options if args.options else ''}; {args.runs} runs each; "
          f"speed-up = one thread's time / the mean of the runs' times", flush=True)
    print(f"{'line':>4} {'answer':>7} {'1 thread s':>10} {'nodes':>11} | runs: time s / nodes"
          f" | speed-up", flush=True)
    speedups = []
    failures = 0
    for number, position, _ in lines:
        one = solve(args.uttt, "--engine dfpn", position, 1, args.limit, None)
        runs = [solve(args.uttt, args.options, position, args.threads, args.limit, None)
                for _ in range(args.runs)]
        cells = " ".join(f"{r['wall']:.1f}/{r['nodes']}" for r in runs)
        answers = {r["result"] for r in [one, *runs] if settled(r)}
        if len(answers) > 1:
            failures += 1
            print(f"{number:>4} DISAGREEMENT {sorted(answers)}", flush=True)
            continue
        if settled(one) and all(settled(r) for r in runs):
            speedup = one["wall"] / statistics.mean(r["wall"] for r in runs)
            speedups.append(speedup)
            shown = f"{speedup:.2f}"
        else:
            shown = "-"
        print(f"{number:>4} {one['result']:>7} {one['wall']:>10.1f} {one['nodes']:>11} | "
              f"{cells} | {shown}", flush=True)
    if speedups:
        print(f"speed-up with {args.threads} threads: {geometric_mean(speedups):.2f} geometric "
              f"mean over the {len(speedups)} positions every run settled "
              f"(per position {', '.join(f'{s:.2f}' for s in speedups)})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
