"""scripts/campaign-kills.sh: an uninterrupted solve against a campaign killed again and again."""
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[: args.index("--")]
    if not args:
        sys.exit(__doc__)
    position, rest = args[0], args[1:]
    options = {"--uttt": None, "--kills": "5", "--every": "20", "--spread": "5",
               "--campaign-options": ""}
    while rest:
        key = rest.pop(0)
        if key not in options or not rest:
            sys.exit(f"unknown or incomplete option {key}")
        options[key] = rest.pop(0)
    uttt = options["--uttt"]
    if uttt is None:
        subprocess.run(["cargo", "build", "--release", "--quiet"], check=True)
        uttt = "./target/release/uttt"
    common = ["--threads", "2", "--quiet"] + extra
    rng = random.Random(2027)

    start = time.monotonic()
    plain = json.loads(subprocess.run([uttt, "solve", position, "--json"] + common,
                                      capture_output=True, text=True).stdout)
    plain_s = time.monotonic() - start
    print(f"solve      {plain['result']:8} {plain_s:8.1f} s  {plain['nodes']} nodes")

    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "campaign.db")
        campaign_options = options["--campaign-options"].split()
        run = [uttt, "campaign", "run", position, "--db", db] + common + campaign_options
        total = 0.0
        kills = 0
        final = None
        for _ in range(int(options["--kills"])):
            after = float(options["--every"]) + rng.uniform(-1, 1) * float(options["--spread"])
            begun = time.monotonic()
            child = subprocess.Popen(run + ["--json"], stdout=subprocess.PIPE, text=True)
            try:
                out, _ = child.communicate(timeout=after)
                final = json.loads(out)
                total += time.monotonic() - begun
                break
            except subprocess.TimeoutExpired:
                child.send_signal(signal.SIGKILL)
                child.communicate()
                total += time.monotonic() - begun
                kills += 1
                print(f"killed     after {after:5.1f} s")
        if final is None:
            begun = time.monotonic()
            final = json.loads(subprocess.run(run + ["--json"], capture_output=True,
                                              text=True).stdout)
            total += time.monotonic() - begun
        print(f"campaign   {final['result']:8} {total:8.1f} s  {kills} kills, "
              f"{final['nodes']} nodes in its last run")
        print(f"ratio      {total / plain_s:.3f}x the uninterrupted solve's time")
        status = subprocess.run([uttt, "campaign", "status", position, "--db", db],
                                capture_output=True, text=True).stdout
        print(status, end="")
        if final["result"] != plain["result"]:
            print("DISAGREE", file=sys.stderr)
            sys.exit(1)


main()
