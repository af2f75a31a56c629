#!/usr/bin/env python3
"""A bot that plays perfect endgames: at each move it solves the position, plays the solver's
best move when the value is settled (a win kept, a draw held, the longest resistance when
lost), and otherwise the move its analysis ranks first (settled wins and draws first, then
the open moves as the analysis orders them).

One Solver serves the whole game, so each move starts from what the earlier ones stored.

    python examples/endgame_bot.py                    # the bot against random moves
    python examples/endgame_bot.py "ee ea ae" --seconds 2
"""

from __future__ import annotations

import argparse
import random

import uttt


def choose(solver: uttt.Solver, position: uttt.Position, seconds: float) -> tuple[str, str]:
    """The bot's move in ``position`` and why: ``solved`` or ``analysed``."""
    answer = solver.solve(position, time_limit=seconds / 2)
    if answer["result"] != "unknown" and answer["best_move"]:
        return answer["best_move"], f"solved: {answer['result']}"
    analysis = solver.analyze(position, time_limit=seconds / 2)
    return analysis["moves"][0]["move"], f"analysed: {analysis['moves'][0]['value']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("position", nargs="?", default="start")
    parser.add_argument("--seconds", type=float, default=1.0, help="thinking time a move")
    parser.add_argument("--bot", choices=["X", "O"], default="X", help="the side the bot plays")
    parser.add_argument("--seed", type=int, default=1, help="of the random opponent")
    args = parser.parse_args()

    solver = uttt.Solver(table_mem="256M")
    opponent = random.Random(args.seed)
    position = uttt.Position.parse(args.position)
    while not position.is_over:
        if position.to_move == args.bot:
            move, why = choose(solver, position, args.seconds)
        else:
            move, why = opponent.choice(position.legal_moves()), "random"
        print(f"{position.to_move} {move}  ({why})")
        position = position.play(move)
    print(position)
    print("result:", position.result)


if __name__ == "__main__":
    main()
