#!/usr/bin/env python3
"""Two batches writing one database at once, round after round (issue 73's target).

Each round starts from an empty database and runs `uttt solve --file A` beside `uttt solve
--file B`, both storing every answer. It counts the lines left `unknown` that their batch
answers when it runs alone, the lines whose database report names an error, and the answers
that a later solve does not find in the database. Each search is bounded by nodes, not time,
and runs on one thread, so that a line's answer alone and beside the other batch is the same
whatever the machine is doing. Usage:

    scripts/two_batches.py UTTT [--rounds 10] [--count 12] [--plies 36] [--node-limit 3000000]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile


def batch(uttt, positions, db, node_limit):
    """`uttt solve --file positions --db db --json`, started (not waited for)."""
    command = [uttt, "solve", "--file", positions, "--db", db, "--db-min-work", "0",
               "--node-limit", str(node_limit), "--jobs", "1", "--threads", "1", "--json",
               "--table-mem", "256M"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def results(process):
    """The result lines of a finished batch, by line number."""
    stdout, _ = process.communicate(timeout=1800)
    lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return {r["line"]: r for r in lines if r.get("type") == "result"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("uttt")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--plies", type=int, default=36)
    parser.add_argument("--node-limit", type=int, default=3_000_000)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="uttt-two-batches-")
    files = []
    for seed in (1, 2):
        path = os.path.join(work, f"batch-{seed}.txt")
        with open(path, "w") as out:
            subprocess.run([args.uttt, "gen", "--plies", str(args.plies), "--count",
                            str(args.count), "--seed", str(seed)], stdout=out, check=True)
        files.append(path)
    alone = []
    for i, path in enumerate(files):
        db = os.path.join(work, f"alone-{i}.db")
        alone.append(results(batch(args.uttt, path, db, args.node_limit)))
    lost = errors = unstored = answered = 0
    for round_number in range(args.rounds):
        db = os.path.join(work, f"round-{round_number}.db")
        running = [batch(args.uttt, path, db, args.node_limit) for path in files]
        together = [results(process) for process in running]
        for i, path in enumerate(files):
            for line, result in together[i].items():
                known = result["result"] != "unknown"
                answered += known
                if not known and alone[i][line]["result"] != "unknown":
                    lost += 1
                if (result.get("database") or {}).get("error"):
                    errors += 1
            # Every answer stored: a second solve of the answered lines comes from the file.
            again = results(batch(args.uttt, path, db, args.node_limit))
            for line, result in together[i].items():
                if result["result"] != "unknown" and not again[line]["database"]["answered"]:
                    unstored += 1
        print(f"round {round_number + 1}: lost {lost}, database errors {errors}, "
              f"answers not stored {unstored} (of {answered} answered so far)", flush=True)
    print(f"{args.rounds} rounds: {lost} lines unknown that are answered alone, {errors} lines "
          f"with a database error, {unstored} of {answered} answers not stored")
    return 0 if lost == unstored == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
