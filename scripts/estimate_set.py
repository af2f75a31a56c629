#!/usr/bin/env python3
"""The sets behind `uttt play`'s calibrated estimate, and its measure (issue 74).

  make BIN --seed S --count N [--plies 22-34] [--node-limit N] [--rules R] --out FILE
      Positions of seeded random games at the plies given, each solved by a long solve
      (`uttt solve --node-limit N`, one thread); each one proved is searched by
      `uttt play --threads 1 --playouts 200000 --seed 1` (a budget in playouts, so that the
      shares do not depend on the machine's load). One JSON line each, appended as it comes:
      the position, its ply, its value, the play's raw shares (`x`, `o`, `draw`) and its
      bounds, whether play proved it (such positions are left out of fits and measures), and
      the pattern-table model's estimate (`uttt learn predict`). Two positions at a time.
  fit FILE... --out models/estimate.json
      Fits the calibration to the positions of FILE...: per rule set,
      p_k = softmax_k(a_k + b * ln(share_k + 1/playouts)), by gradient descent on the log loss.
  measure FILE [--model models/estimate.json] [--rules R] [--playouts N [--bin BIN]]
      Brier scores (sum over the three outcomes) of the raw shares, the calibrated estimate,
      the pattern-table model and the set's own shares as a constant; the lean's accuracy on
      decisive and drawn positions (with --rules, of that rule set's positions). With --playouts, each position is searched again with N
      playouts (`uttt play --threads 1 --seed 1`): the estimate of a shorter search, such as
      `analyze` gives each move.
"""

import argparse
import json
import math
import subprocess
import sys
import threading

OUTCOMES = ["x", "o", "draw"]
PLAY_PLAYOUTS = 200_000


def run_json(cmd, stdin=None):
    out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=3600)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def make(args):
    lo, hi = (int(p) for p in args.plies.split("-"))
    plies = list(range(lo, hi + 1))
    jobs = []
    for i in range(args.count):
        ply = plies[i % len(plies)]
        jobs.append((ply, args.seed * 100_000 + i))
    lock = threading.Lock()
    out = open(args.out, "a")
    done = [0, 0]

    def work(ply, seed):
        rules = ["--rules", args.rules]
        [position] = [
            l for l in subprocess.run(
                [args.bin, "gen", "--plies", str(ply), "--count", "1", "--seed", str(seed), *rules],
                capture_output=True, text=True, check=True).stdout.splitlines() if l.strip()
        ]
        solved = run_json([args.bin, "solve", position, "--json", "-q", "--engine", "dfpn",
                           "--node-limit", str(args.node_limit), "--table-mem", "512M", *rules])[0]
        row = {"position": position, "ply": ply, "seed": seed, "rules": args.rules,
               "value": solved["result"], "solve_nodes": solved["nodes"]}
        if solved["result"] in ("X", "O", "draw"):
            played = run_json([args.bin, "play", position, "--json", "--threads", "1",
                               "--playouts", str(PLAY_PLAYOUTS), "--seed", "1", *rules])[0]
            row["play_proved"] = played["proved"]
            row["bounds"] = played["bounds"]
            row["playouts"] = played["playouts"]
            if played["estimate"]:
                # The playouts' own shares (before calibration; builds before it gave only them).
                shares = played["estimate"].get("shares", played["estimate"])
                row["raw"] = {k: shares[k] for k in OUTCOMES}
            predicted = run_json([args.bin, "learn", "predict", *rules], stdin=position + "\n")[0]
            row["model"] = predicted.get("estimate")
        with lock:
            out.write(json.dumps(row) + "\n")
            out.flush()
            done[0] += 1
            done[1] += row["value"] != "unknown"
            print(f"{done[0]}/{len(jobs)} done, {done[1]} proved", file=sys.stderr, flush=True)

    index = [0]

    def worker():
        while True:
            with lock:
                if index[0] >= len(jobs):
                    return
                job = jobs[index[0]]
                index[0] += 1
            work(*job)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def usable(rows):
    return [r for r in rows if r["value"] in ("X", "O", "draw") and not r.get("play_proved")
            and r.get("raw")]


def read(files):
    return [json.loads(line) for f in files for line in open(f) if line.strip()]


def target(row):
    return {"X": "x", "O": "o", "draw": "draw"}[row["value"]]


def calibrated(params, row):
    a, b = params["bias"], params["sharpness"]
    eps = 1.0 / max(row["playouts"], 1)
    logits = {k: a[k] + b * math.log(row["raw"][k] + eps) for k in OUTCOMES}
    allowed = allowed_outcomes(row.get("bounds"))
    top = max(logits[k] for k in allowed)
    weights = {k: (math.exp(logits[k] - top) if k in allowed else 0.0) for k in OUTCOMES}
    total = sum(weights.values())
    return {k: w / total for k, w in weights.items()}


def allowed_outcomes(bounds):
    if bounds == "X cannot win":
        return ["o", "draw"]
    if bounds == "O cannot win":
        return ["x", "draw"]
    return OUTCOMES


def fit(args):
    rows = usable(read(args.files))
    by_rules = {}
    for r in rows:
        by_rules.setdefault(r["rules"], []).append(r)
    model = {}
    for rules, group in by_rules.items():
        params = {"bias": {k: 0.0 for k in OUTCOMES}, "sharpness": 1.0}
        rate = 0.05
        for _ in range(4000):
            grad_a = {k: 0.0 for k in OUTCOMES}
            grad_b = 0.0
            for r in group:
                p = calibrated(params, r)
                eps = 1.0 / max(r["playouts"], 1)
                t = target(r)
                for k in allowed_outcomes(r.get("bounds")):
                    diff = p[k] - (1.0 if k == t else 0.0)
                    grad_a[k] += diff
                    grad_b += diff * math.log(r["raw"][k] + eps)
            n = len(group)
            for k in OUTCOMES:
                params["bias"][k] -= rate * grad_a[k] / n
            params["sharpness"] -= rate * grad_b / n
        # Only differences of the biases matter: pin the draw's at 0.
        shift = params["bias"]["draw"]
        params["bias"] = {k: round(v - shift, 6) for k, v in params["bias"].items()}
        params["sharpness"] = round(params["sharpness"], 6)
        params["samples"] = len(group)
        model[rules] = params
        print(f"{rules}: {len(group)} positions, {params}", file=sys.stderr)
    with open(args.out, "w") as f:
        json.dump(model, f, indent=2, sort_keys=True)
        f.write("\n")


def brier(p, t):
    return sum((p[k] - (1.0 if k == t else 0.0)) ** 2 for k in OUTCOMES)


def lean(p):
    return max(OUTCOMES, key=lambda k: p[k])


def research(rows, bin, playouts):
    """Each row's playout shares (and bounds) again, from a search of `playouts` playouts:
    the estimate of a shorter search, as `analyze` and `review` give with a smaller budget."""
    for r in rows:
        played = run_json([bin, "play", r["position"], "--json", "--threads", "1",
                           "--playouts", str(playouts), "--seed", "1", "--rules", r["rules"]])[0]
        r["bounds"] = played["bounds"]
        r["playouts"] = played["playouts"]
        if played["estimate"]:
            r["raw"] = {k: played["estimate"]["shares"][k] for k in OUTCOMES}
        else:
            # Proved by the shorter search too: its value, certain.
            value = target({"value": played["result"]})
            r["raw"] = {k: float(k == value) for k in OUTCOMES}


def measure(args):
    rows = [r for r in usable(read([args.file])) if args.rules in (None, r["rules"])]
    if args.playouts:
        research(rows, args.bin, args.playouts)
    model = json.load(open(args.model)) if args.model else {}
    n = len(rows)
    counts = {k: sum(target(r) == k for r in rows) for k in OUTCOMES}
    constant = {k: counts[k] / n for k in OUTCOMES}
    kinds = {
        "raw playout shares": lambda r: r["raw"],
        "pattern-table model": lambda r: r["model"],
        "constant (the set's shares)": lambda r: constant,
    }
    if model:
        kinds["calibrated"] = lambda r: calibrated(model[r["rules"]], r)
    print(f"{n} positions (plies {min(r['ply'] for r in rows)}-{max(r['ply'] for r in rows)}): "
          f"X {counts['x']}, O {counts['o']}, draw {counts['draw']}")
    for name, estimate in kinds.items():
        score = sum(brier(estimate(r), target(r)) for r in rows) / n
        decisive = [r for r in rows if target(r) != "draw"]
        right = sum(lean(estimate(r)) == target(r) for r in decisive)
        draws = [r for r in rows if target(r) == "draw"]
        drawn_right = sum(lean(estimate(r)) == "draw" for r in draws)
        draw_brier = sum(brier(estimate(r), "draw") for r in draws) / max(len(draws), 1)
        print(f"{name:30} Brier {score:.3f}   decisive leans right {right}/{len(decisive)}"
              f"   draws: lean right {drawn_right}/{len(draws)}, Brier {draw_brier:.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("bin")
    m.add_argument("--seed", type=int, required=True)
    m.add_argument("--count", type=int, required=True)
    m.add_argument("--plies", default="22-34")
    m.add_argument("--node-limit", type=int, default=20_000_000)
    m.add_argument("--rules", default="common")
    m.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("files", nargs="+")
    f.add_argument("--out", required=True)
    s = sub.add_parser("measure")
    s.add_argument("file")
    s.add_argument("--model")
    s.add_argument("--playouts", type=int,
                   help="search each position again with this many playouts (needs --bin)")
    s.add_argument("--bin", default="target/release/uttt")
    s.add_argument("--rules", help="only the positions of this rule set")
    args = parser.parse_args()
    {"make": make, "fit": fit, "measure": measure}[args.command](args)


if __name__ == "__main__":
    main()
