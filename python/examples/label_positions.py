#!/usr/bin/env python3
"""Labels positions from games for training: each game's positions solved from its end
backwards (``uttt.review``, one table a game), written as rows of the position, the side to
move, its exact value when settled and the move played there, with the network's input
tensors in a numpy archive beside them.

Games are read one a line (any notation of games: our move lists, uttt.ai links, CodinGame
moves), or played at random when no file is given.

    python examples/label_positions.py --random 20 --out labels
    python examples/label_positions.py games.txt --seconds 5 --out labels
"""

from __future__ import annotations

import argparse
import csv
import random
from pathlib import Path

import numpy as np

import uttt

#: A value for the side to move as a training target.
TARGET = {"win": 1.0, "draw": 0.0, "loss": -1.0}


def random_games(count: int, seed: int) -> list[str]:
    """``count`` games of random moves to their end, as move lists."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        position = uttt.Position()
        while not position.is_over:
            position = position.play(rng.choice(position.legal_moves()))
        games.append(position.notation("moves"))
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=Path, help="a file of games, one a line")
    parser.add_argument("--random", type=int, default=10, help="random games without a file")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=2.0, help="a position's time limit")
    parser.add_argument("--out", type=Path, default=Path("labels"), help="prefix of the files")
    args = parser.parse_args()

    if args.games:
        games = [line.split("#")[0].strip() for line in args.games.read_text().splitlines()]
        games = [game for game in games if game]
    else:
        games = random_games(args.random, args.seed)

    rows, planes, masks, targets = [], [], [], []
    for number, game in enumerate(games, 1):
        plies = [line for line in uttt.review(game, time_limit=args.seconds, table_mem="256M")
                 if line["type"] == "ply" and line["value"] in ("X", "O", "draw")]
        for ply in plies:
            position = uttt.Position.parse(ply["position"])
            if position.is_over:
                continue
            value = "draw" if ply["value"] == "draw" else (
                "win" if ply["value"] == position.to_move else "loss")
            rows.append([number, ply["ply"], ply["position"], position.to_move, value,
                         ply["move"] or ""])
            planes.append(position.planes())
            masks.append(position.legal_mask())
            targets.append(TARGET[value])
        print(f"game {number}: {len(plies)} positions labelled")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{args.out}.csv", "w", newline="") as table:
        writer = csv.writer(table)
        writer.writerow(["game", "ply", "position", "to_move", "value", "played"])
        writer.writerows(rows)
    np.savez_compressed(f"{args.out}.npz", planes=np.array(planes), legal_mask=np.array(masks),
                        value=np.array(targets, dtype=np.float32))
    print(f"{len(rows)} positions: {args.out}.csv, {args.out}.npz")


if __name__ == "__main__":
    main()
