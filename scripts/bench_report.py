"""Formats `uttt solve --file ... --json` output (JSON Lines on stdin) as a benchmark table,
or with --json as one object {"positions": [...], "totals": {...}}."""
import json
import sys

rows, summary = [], {}
for line in sys.stdin:
    d = json.loads(line)
    if d["type"] == "result":
        rows.append({"line": d["line"], "result": d["result"], "expected": d.get("expected"),
                     "time_ms": d["time_ms"], "nodes": d["nodes"], "nps": d["nps"],
                     "engine": d["engine"], "threads": d["threads"]})
    elif d["type"] == "summary":
        summary = d
total_ms = sum(r["time_ms"] for r in rows)
total_nodes = sum(r["nodes"] for r in rows)
totals = {"positions": len(rows), "time_ms": total_ms, "nodes": total_nodes,
          "nps": int(total_nodes * 1000 / max(total_ms, 1)),
          "mismatches": summary.get("mismatches"), "unknown": summary.get("unknown")}
if "--json" in sys.argv[1:]:
    print(json.dumps({"positions": rows, "totals": totals}))
    sys.exit(0)
print("%5s %7s %3s %9s %12s %10s" % ("line", "result", "ok", "time s", "nodes", "nodes/s"))
for r in rows:
    ok = "-" if r["expected"] is None else ("yes" if r["expected"] == r["result"] else "NO")
    print("%5d %7s %3s %9.3f %12d %10d" % (r["line"], r["result"], ok, r["time_ms"] / 1000,
                                            r["nodes"], r["nps"]))
engine = "%s x%d" % (rows[0]["engine"], rows[0]["threads"]) if rows else "-"
print("total (%s): %d positions, %.3f s, %d nodes, %d nodes/s, %s mismatches, %s unknown"
      % (engine, len(rows), total_ms / 1000, total_nodes, totals["nps"], totals["mismatches"],
         totals["unknown"]))
