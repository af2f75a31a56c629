"""The work of scripts/estimate-accuracy.sh (see there)."""
import argparse
import json
import subprocess
import sys
from collections import Counter


def labelled(path):
    """(position, value X/O/draw) of each line of a file that gives a value after it, and
    (`rules NAME` line, None) for each rule-set line, which `uttt learn predict` reads too."""
    for line in open(path):
        fields = line.split("#", 1)[0].split()
        if len(fields) == 2 and fields[0] == "rules":
            yield " ".join(fields), None
        elif len(fields) >= 2 and fields[-1] in ("X", "O", "draw"):
            yield " ".join(fields[:-1]), fields[-1]


def generated(binary, plies, count, seed, node_limit):
    """Positions of seeded random playouts at each ply of `plies`, solved by `binary` within
    `node_limit` nodes each; the ones it settles, with their values."""
    for ply in plies:
        out = subprocess.run([binary, "gen", "--plies", str(ply), "--count", str(count),
                              "--seed", str(seed + ply)], capture_output=True, text=True,
                             check=True, timeout=600).stdout.split()
        for position in out:
            report = json.loads(subprocess.run(
                [binary, "solve", position, "--node-limit", str(node_limit), "--threads", "2",
                 "--table-mem", "256M", "--json", "--quiet"], capture_output=True, text=True,
                timeout=600).stdout)
            if report["result"] in ("X", "O", "draw"):
                yield position, report["result"]


def lean(estimate, mover):
    """The outcome an estimate finds likeliest, ties broken as the boards break them (for the
    side to move: a win, then a loss, then a draw)."""
    other = "O" if mover == "X" else "X"
    chance = {"X": estimate["x"], "O": estimate["o"], "draw": estimate["draw"]}
    if chance[mover] >= chance[other] and chance[mover] >= chance["draw"]:
        return mover
    return other if chance[other] >= chance["draw"] else "draw"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--file", help="positions with their values (POSITION VALUE a line)")
    parser.add_argument("--plies", help="or generate: plies A-B of random playouts")
    parser.add_argument("--count", type=int, default=10, help="positions generated per ply")
    parser.add_argument("--seed", type=int, default=7_700_000)
    parser.add_argument("--node-limit", type=int, default=2_000_000)
    args = parser.parse_args()
    if args.file:
        pairs = list(labelled(args.file))
    elif args.plies:
        low, _, high = args.plies.partition("-")
        pairs = list(generated(args.binary, range(int(low), int(high or low) + 1), args.count,
                               args.seed, args.node_limit))
    else:
        sys.exit("give --file or --plies")
    predicted = subprocess.run([args.binary, "learn", "predict"], capture_output=True,
                               text=True, check=True, timeout=600,
                               input="".join(p + "\n" for p, _ in pairs)).stdout.splitlines()
    confusion = Counter()
    without = 0
    # `rules` lines give no line of predictions.
    positions = [pair for pair in pairs if pair[1] is not None]
    for (position, value), line in zip(positions, predicted):
        prediction = json.loads(line)
        estimate = prediction.get("estimate")
        if estimate is None:
            without += 1  # the static rules settle it: no estimate is ever shown
            continue
        mover = prediction["position"][0]
        confusion[(value, lean(estimate, mover))] += 1
    total = sum(confusion.values())
    if not total:
        sys.exit(f"no estimate among {len(positions)} positions")
    right = sum(n for (value, guess), n in confusion.items() if value == guess)
    values = Counter(value for value, _ in confusion.elements())
    majority, most = values.most_common(1)[0]
    print(f"positions {len(positions)}, with an estimate {total} (settled by the rules: {without})")
    print("values: " + ", ".join(f"{v} {values[v]}" for v in ("X", "O", "draw")))
    print("value \\ lean   X     O  draw")
    for value in ("X", "O", "draw"):
        print(f"{value:>11} " + " ".join(f"{confusion[(value, g)]:>5}" for g in ("X", "O", "draw")))
    print(f"the lean is right {right} of {total}: {right / max(total, 1):.1%} "
          f"(always `{majority}`: {most / max(total, 1):.1%})")


if __name__ == "__main__":
    main()
