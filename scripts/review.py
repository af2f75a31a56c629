"""The work of scripts/review.sh (see there)."""
import argparse
import json
import subprocess
import sys
import time

# Unknown positions in a row after which both walks stop (`uttt review`'s default).
STOP_AFTER = 2


def run_json(command, timeout_s):
    """Runs `command`; its stdout's JSON lines (an empty list if it timed out)."""
    try:
        out = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                             timeout=timeout_s).stdout
    except subprocess.TimeoutExpired:
        return []
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def game_of(binary, seed, search_nodes):
    """The moves of the game the search player plays with `seed`, as one move list."""
    command = [binary, "gen", "--plies", "81", "--allow-finished", "--player", "search",
               "--games", "--count", "1", "--seed", str(seed), "--search-nodes",
               str(search_nodes)]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def reach(values):
    """The earliest ply from which every value to the end is settled ({ply: value})."""
    ply = max(values)
    while ply - 1 in values and values[ply - 1] != "unknown":
        ply -= 1
    return ply if values[max(values)] != "unknown" else None


def earliest(values):
    """The earliest ply whose value is settled, or None."""
    known = [ply for ply, value in values.items() if value != "unknown"]
    return min(known) if known else None


def by_review(binary, game, args):
    """{ply: value} and wall seconds of one `uttt review`."""
    command = [binary, "review", game, "--json", "--quiet", "--threads", str(args.threads),
               "--time-limit", f"{args.limit}s", "--table-mem", args.table_mem,
               "--stop-after", str(STOP_AFTER)]
    began = time.monotonic()
    lines = run_json(command, timeout_s=args.limit * 90 + 600)
    wall = time.monotonic() - began
    values = {line["ply"]: line["value"] for line in lines
              if line.get("type") == "ply" and line["reviewed"]}
    return values, wall


def by_solves(binary, game, args):
    """{ply: value} and wall seconds of separate `uttt solve` runs from the end back."""
    moves = game.split()
    values = {}
    unknowns = 0
    began = time.monotonic()
    for ply in range(len(moves), -1, -1):
        position = " ".join(moves[:ply]) or "start"
        command = [binary, "solve", position, "--json", "--quiet", "--threads",
                   str(args.threads), "--time-limit", f"{args.limit}s",
                   "--table-mem", args.table_mem]
        lines = run_json(command, timeout_s=args.limit + 120)
        values[ply] = lines[0]["result"] if lines else "unknown"
        unknowns = unknowns + 1 if values[ply] == "unknown" else 0
        if unknowns >= STOP_AFTER:
            break
    return values, time.monotonic() - began


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uttt", default="target/release/uttt")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--limit", type=float, default=60, help="seconds per position")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--search-nodes", type=int, default=20000,
                        help="the search player's nodes per candidate move")
    parser.add_argument("--table-mem", default="1G")
    args = parser.parse_args()
    print(f"# {args.limit:g} s a position, {args.threads} threads, table {args.table_mem}, "
          f"stop after {STOP_AFTER} unknowns in a row", flush=True)
    print(f"{'seed':>4} {'plies':>5} | {'review: reach':>13} {'earliest':>8} {'time s':>8} | "
          f"{'solves: reach':>13} {'earliest':>8} {'time s':>8} | gained", flush=True)
    gains = []
    disagreements = 0
    for seed in [int(s) for s in args.seeds.split(",")]:
        game = game_of(args.uttt, seed, args.search_nodes)
        reviewed, review_wall = by_review(args.uttt, game, args)
        solved, solves_wall = by_solves(args.uttt, game, args)
        for ply in sorted(set(reviewed) & set(solved)):
            a, b = reviewed[ply], solved[ply]
            if "unknown" not in (a, b) and a != b:
                print(f"DISAGREEMENT seed {seed} ply {ply}: review {a}, solve {b}")
                disagreements += 1
        r, s = reach(reviewed), reach(solved)
        gained = s - r if r is not None and s is not None else None
        if gained is not None:
            gains.append(gained)
        print(f"{seed:>4} {len(game.split()):>5} | {str(r):>13} {str(earliest(reviewed)):>8} "
              f"{review_wall:>8.1f} | {str(s):>13} {str(earliest(solved)):>8} "
              f"{solves_wall:>8.1f} | {gained}", flush=True)
    if gains:
        print(f"plies gained by review: mean {sum(gains) / len(gains):.2f}, "
              f"min {min(gains)}, max {max(gains)} over {len(gains)} games")
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
