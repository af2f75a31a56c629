#!/usr/bin/env python3
"""Side-by-side benchmark of uttt against the earlier public solver (the anchor).

For each position of the file, interleaved in one run: uttt's three-valued answer, uttt's
binary question for the side to move (--attacker), the anchor's default (its published
speed, with its unsound rule) and the anchor with ANCHOR_NOEVAL=1 (its sound mode). For
positions uttt finds drawn, uttt's other binary question is timed too, to price the draw.
All times are wall-clock seconds of the whole process, as a user sees them.

Prints one row per position, then the settled counts, the geometric-mean time ratios over
positions both sides settle, the draw costs, and every disagreement (exit code 1 if any).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time


def run_timed(cmd, env=None, limit=None):
    """Runs cmd, returns (wall seconds, stdout); a process past limit + 30 s is killed."""
    began = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env,
                              timeout=None if limit is None else limit + 30)
        out = proc.stdout
    except subprocess.TimeoutExpired:
        out = ""
    return time.monotonic() - began, out


def uttt_solve(args, position, attacker=None, binary=None):
    cmd = [binary or args.uttt, "solve", position, "--json", "--quiet", "--threads", str(args.threads),
           "--table-mem", args.table_mem, "--time-limit", f"{args.limit:g}s"]
    if attacker:
        cmd += ["--attacker", attacker]
    wall, out = run_timed(cmd, limit=args.limit)
    try:
        report = json.loads(out)
    except json.JSONDecodeError:
        return wall, "error"
    return wall, report["value"] if attacker is None else report["result"]


def anchor_solve(args, position, noeval):
    env = dict(os.environ)
    env.pop("ANCHOR_NOEVAL", None)
    if noeval:
        env["ANCHOR_NOEVAL"] = "1"
    cmd = [args.anchor, "analyze", "--engine=pn-dfpn", f"--threads={args.threads}",
           f"--table-mem={args.table_mem}", f"--limit={args.limit:g}s", position]
    wall, out = run_timed(cmd, env=env, limit=args.limit)
    for word in out.split():
        if word.startswith("result="):
            return wall, {"True": "win", "False": "no-win"}.get(word[7:], "unknown")
    return wall, "error"


def read_positions(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                fields = line.split()
                rows.append((fields[0], fields[1] if len(fields) > 1 else None))
    return rows


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def settled(value):
    return value not in ("unknown", "error")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--file", default="positions/midgame.txt")
    parser.add_argument("--limit", type=float, default=60, help="seconds per run")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--table-mem", default="256M")
    parser.add_argument("--uttt", default="target/release/uttt")
    parser.add_argument("--anchor", default=os.environ.get("ANCHOR", "../shared/anchor/ultimattt"))
    parser.add_argument("--baseline", help="another uttt binary (e.g. an earlier build) to time "
                        "alongside, for before/after ratios from the same run")
    parser.add_argument("--json", action="store_true", help="one JSON object per position")
    args = parser.parse_args()

    rows = []
    header = f"{'#':>3} {'value':>6} {'uttt3':>7} {'utttB':>7} {'anchor':>7} {'noeval':>7}  answers (uttt / anchor / noeval)"
    if not args.json:
        print(header, flush=True)
    for i, (position, expected) in enumerate(read_positions(args.file), 1):
        side = position.split(";")[0]
        other = "O" if side == "X" else "X"
        t3, v3 = uttt_solve(args, position)
        tb, vb = uttt_solve(args, position, attacker=side)
        ta, va = anchor_solve(args, position, noeval=False)
        tn, vn = anchor_solve(args, position, noeval=True)
        row = {"line": i, "position": position, "expected": expected, "uttt": v3,
               "uttt_s": t3, "binary": vb, "binary_s": tb, "anchor": va, "anchor_s": ta,
               "noeval": vn, "noeval_s": tn}
        if v3 == "draw":
            row["other_binary_s"] = uttt_solve(args, position, attacker=other)[0]
        if args.baseline:
            row["base_s"], row["base"] = uttt_solve(args, position, binary=args.baseline)
            row["base_binary_s"], row["base_binary"] = uttt_solve(
                args, position, attacker=side, binary=args.baseline)
        rows.append(row)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            base = f"  baseline {row['base_s']:.2f} {row['base_binary_s']:.2f} {row['base']}" \
                if args.baseline else ""
            print(f"{i:>3} {expected or '?':>6} {t3:7.2f} {tb:7.2f} {ta:7.2f} {tn:7.2f}  "
                  f"{v3} / {va} / {vn}{base}", flush=True)

    problems = []
    for r in rows:
        uttt_wins = {"win": True, "loss": False, "draw": False}.get(r["uttt"])
        for name in ("anchor", "noeval", "base"):
            if name not in r:
                continue
            if name == "base":
                if settled(r["base"]) and settled(r["uttt"]) and r["base"] != r["uttt"]:
                    problems.append(f"line {r['line']}: uttt says {r['uttt']}, the baseline "
                                    f"says {r['base']}: {r['position']}")
                continue
            if uttt_wins is not None and settled(r[name]) and (r[name] == "win") != uttt_wins:
                problems.append(f"line {r['line']}: uttt says {r['uttt']}, anchor ({name}) "
                                f"says {r[name]}: {r['position']}")
        if r["expected"] and settled(r["uttt"]):
            side = r["position"].split(";")[0]
            mine = {"win": side, "loss": "O" if side == "X" else "X", "draw": "draw"}[r["uttt"]]
            if mine != r["expected"]:
                problems.append(f"line {r['line']}: uttt says {mine}, the file says "
                                f"{r['expected']}: {r['position']}")

    def ratio(mine, theirs, mine_ok, theirs_ok):
        pairs = [r[mine] / r[theirs] for r in rows if mine_ok(r) and theirs_ok(r)]
        return geomean(pairs), len(pairs)

    kinds = ("uttt", "binary", "anchor", "noeval") + (("base", "base_binary") if args.baseline else ())
    summary = {
        "positions": len(rows),
        "settled": {k: sum(settled(r[k]) for r in rows) for k in kinds},
    }
    for name in ("anchor", "noeval"):
        summary[f"three_valued_vs_{name}"] = ratio(
            "uttt_s", f"{name}_s", lambda r: settled(r["uttt"]), lambda r, n=name: settled(r[n]))
        summary[f"binary_vs_{name}"] = ratio(
            "binary_s", f"{name}_s", lambda r: settled(r["binary"]),
            lambda r, n=name: settled(r[n]))
    if args.baseline:
        summary["three_valued_vs_baseline"] = ratio(
            "uttt_s", "base_s", lambda r: settled(r["uttt"]), lambda r: settled(r["base"]))
        summary["binary_vs_baseline"] = ratio(
            "binary_s", "base_binary_s", lambda r: settled(r["binary"]),
            lambda r: settled(r["base_binary"]))
        for name in ("anchor", "noeval"):
            summary[f"baseline_three_valued_vs_{name}"] = ratio(
                "base_s", f"{name}_s", lambda r: settled(r["base"]),
                lambda r, n=name: settled(r[n]))
    draws = [r for r in rows if "other_binary_s" in r]
    # A draw's answer holds both disproofs, so it costs at least the dearer question alone:
    # the ratio to the dearer one shows what reuse and ordering leave to gain.
    summary["draw_cost"] = [
        {"line": r["line"], "three_valued_s": round(r["uttt_s"], 2),
         "cheaper_binary_s": round(min(r["binary_s"], r["other_binary_s"]), 2),
         "dearer_binary_s": round(max(r["binary_s"], r["other_binary_s"]), 2),
         "ratio": round(r["uttt_s"] / min(r["binary_s"], r["other_binary_s"]), 2),
         "ratio_to_dearer": round(r["uttt_s"] / max(r["binary_s"], r["other_binary_s"]), 2)}
        for r in draws]
    summary["disagreements"] = problems
    if args.json:
        print(json.dumps({"type": "summary", **summary}))
    else:
        print(f"\nsettled of {len(rows)}: " + ", ".join(
            f"{k} {v}" for k, v in summary["settled"].items()))
        for key in [k for k in summary if "_vs_" in k]:
            value, n = summary[key]
            print(f"{key}: {value:.3f}x (geometric mean over {n} positions)")
        for d in summary["draw_cost"]:
            print(f"draw line {d['line']}: three-valued {d['three_valued_s']} s, cheaper "
                  f"binary {d['cheaper_binary_s']} s, ratio {d['ratio']}; dearer binary "
                  f"{d['dearer_binary_s']} s, ratio {d['ratio_to_dearer']}")
        for p in problems:
            print("DISAGREEMENT", p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
