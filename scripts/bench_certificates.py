"""Formats `uttt solve --file ... --verify --json` output (JSON Lines on stdin) as a table of
certificate costs: solve time, write time, verify time, bytes and verified positions."""
import json
import sys

rows = []
for line in sys.stdin:
    d = json.loads(line)
    if d["type"] != "result" or "certificate" not in d:
        continue
    c = d["certificate"]
    rows.append({"line": d["line"], "result": d["result"], "solve": d["time_ms"],
                 "write": c["write_ms"], "verify": c.get("verify_ms", 0), "bytes": c["bytes"],
                 "positions": c.get("positions", 0), "certified": d.get("certified")})
header = ("line", "result", "solve ms", "write ms", "verify ms", "bytes", "positions")
print("%5s %7s %9s %9s %9s %9s %10s  certified" % header)
for r in rows:
    print("%5d %7s %9d %9d %9d %9d %10d  %s" % (r["line"], r["result"], r["solve"], r["write"],
                                             r["verify"], r["bytes"], r["positions"],
                                             r["certified"]))
solve = sum(r["solve"] for r in rows)
write = sum(r["write"] for r in rows)
verify = sum(r["verify"] for r in rows)
size = [r["bytes"] for r in rows]
print(f"total: {len(rows)} positions, solve {solve} ms, write {write} ms "
      f"({100 * write / max(solve, 1):.1f} % of solve), verify {verify} ms "
      f"({100 * verify / max(solve, 1):.1f} %), {sum(size)} bytes "
      f"(mean {sum(size) / max(len(size), 1):.0f}, max {max(size, default=0)}), "
      f"all certified: {all(r['certified'] for r in rows)}")
