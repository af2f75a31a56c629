"""The examples run to their end: the endgame bot finishes a late game, and the labelling
script writes labels that agree with the positions' own solves."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np

import uttt
from conftest import late_positions

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_the_endgame_bot_plays_a_late_game_to_its_end():
    start = next(p for p in late_positions(12) if not uttt.Position.parse(p).is_over)
    bot = uttt.Position.parse(start).to_move
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "endgame_bot.py"), start, "--bot", bot,
         "--seconds", "0.5"], capture_output=True, text=True, check=True)
    assert "(solved: " in done.stdout
    assert done.stdout.splitlines()[-1].split(": ")[1] in ("X", "O", "draw")


def test_the_labelling_script_writes_the_solved_values(tmp_path):
    out = tmp_path / "labels"
    subprocess.run([sys.executable, str(EXAMPLES / "label_positions.py"), "--random", "1",
                    "--seconds", "0.5", "--out", str(out)], check=True, capture_output=True)
    rows = list(csv.DictReader(open(f"{out}.csv")))
    arrays = np.load(f"{out}.npz")
    assert rows and len(rows) == len(arrays["value"]) == len(arrays["planes"])
    for row, planes in list(zip(rows, arrays["planes"]))[-5:]:
        position = uttt.Position.parse(row["position"])
        assert np.array_equal(planes, position.planes())
        answer = uttt.solve(position, table_mem="64M", time_limit=5)
        assert answer["value"] == row["value"]
