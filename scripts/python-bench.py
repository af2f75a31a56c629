#!/usr/bin/env python3
"""The Python package's targets (issue 65), measured in one run:

1. random playouts a second, ``legal_moves`` and ``play`` every ply, on one core; against
   the same loop over a pure-Python move generator (below, checked against the package first);
2. two Python threads solving at once against one thread solving alone (wall time ratio);
3. the call overhead of ``uttt.solve`` on a position settled without search (a finished game);
4. a Solver's second solve of a position against its first, in nodes.

Run it with a Python that has the package (``pip install ./python``):

    python scripts/python-bench.py [--seconds S] [--rounds N] [--batches N] [--uttt BIN]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import threading
import time

import uttt

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class PurePosition:
    """Ultimate Tic Tac Toe under the common rules in plain Python: the generator a Python bot
    would write without the package. Cells ``9 * board + cell``; 0 empty, 1 X, 2 O."""

    __slots__ = ("cells", "boards", "target", "side", "over")

    def __init__(self):
        self.cells = [0] * 81
        self.boards = [0] * 9  # 0 open, 1 won by X, 2 won by O, 3 drawn
        self.target = None  # None: any open board
        self.side = 1
        self.over = False

    def legal_moves(self) -> list[int]:
        if self.over:
            return []
        boards = [self.target] if self.target is not None else [
            b for b in range(9) if self.boards[b] == 0]
        return [9 * b + c for b in boards for c in range(9) if self.cells[9 * b + c] == 0]

    def play(self, square: int) -> "PurePosition":
        child = PurePosition.__new__(PurePosition)
        child.cells = self.cells.copy()
        child.boards = self.boards.copy()
        board, cell = divmod(square, 9)
        child.cells[square] = self.side
        local = child.cells[9 * board: 9 * board + 9]
        if any(local[a] == local[b] == local[c] == self.side for a, b, c in LINES):
            child.boards[board] = self.side
        elif 0 not in local:
            child.boards[board] = 3
        won = any(child.boards[a] == child.boards[b] == child.boards[c] == self.side
                  for a, b, c in LINES)
        child.over = won or 0 not in child.boards
        child.target = cell if child.boards[cell] == 0 else None
        child.side = 3 - self.side
        return child


def check_pure_generator(games: int) -> None:
    """The pure generator gives the package's legal moves along random games."""
    rng = random.Random(7)
    for _ in range(games):
        ours, pure = uttt.Position(), PurePosition()
        while True:
            moves = ours.legal_moves()
            names = [chr(97 + s // 9) + chr(97 + s % 9) for s in pure.legal_moves()]
            assert moves == names, (ours.notation(), moves, names)
            if not moves:
                break
            index = rng.randrange(len(moves))
            ours, pure = ours.play(moves[index]), pure.play(pure.legal_moves()[index])


def playouts_per_second(start, seconds: float) -> float:
    """Random playouts from ``start`` for ``seconds``: ``legal_moves`` then ``play`` each ply."""
    choice = random.Random(1).choice
    count, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        position = start
        while True:
            moves = position.legal_moves()
            if not moves:
                break
            position = position.play(choice(moves))
        count += 1
    return count / (time.perf_counter() - began)


def threaded_solves(positions, options) -> float:
    """Wall seconds to solve ``positions``, one Python thread each, all at once."""
    threads = [threading.Thread(target=uttt.solve, args=(p,), kwargs=options) for p in positions]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - began


def processes(commands) -> float:
    """Wall seconds to run ``commands`` as processes, all at once."""
    began = time.perf_counter()
    running = [subprocess.Popen(c, stdout=subprocess.DEVNULL) for c in commands]
    for process in running:
        process.wait()
    return time.perf_counter() - began


def game(seed: int, plies: int) -> uttt.Position:
    rng = random.Random(seed)
    position = uttt.Position()
    for _ in range(plies):
        if position.is_over:
            break
        position = position.play(rng.choice(position.legal_moves()))
    return position


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per playout measurement")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the threaded solves")
    parser.add_argument("--batches", type=int, default=30, help="batches of 100 timed calls")
    parser.add_argument("--uttt", help="the command line's binary: two processes solving at "
                        "once against one, the machine's own ceiling for the threads' ratio")
    args = parser.parse_args()

    check_pure_generator(200)
    native = playouts_per_second(uttt.Position(), args.seconds)
    pure = playouts_per_second(PurePosition(), args.seconds)
    print(f"playouts/s  package {native:,.0f}  pure Python {pure:,.0f}  "
          f"({native / pure:.1f}x)  [target: package >= 10,000]")

    # Single-threaded DFPN on each thread: the same work alone and side by side, and with
    # --uttt the same by processes of the command line, interleaved.
    medium = game(22, 36)
    options = dict(engine="dfpn", table_mem="256M")
    command = [args.uttt, "solve", medium.notation(), "--engine", "dfpn", "--table-mem", "256M",
               "-q"] if args.uttt else None
    ratios, process_ratios = [], []
    for _ in range(args.rounds):
        one = threaded_solves([medium], options)
        two = threaded_solves([medium, medium], options)
        ratios.append(two / one)
        line = f"threads: alone {one:.3f} s, two at once {two:.3f} s: {two / one:.3f}x"
        if command:
            one_process = processes([command])
            two_processes = processes([command, command])
            process_ratios.append(two_processes / one_process)
            line += (f"; processes: alone {one_process:.3f} s, two at once "
                     f"{two_processes:.3f} s: {two_processes / one_process:.3f}x")
        print(line)
    print(f"two threads / one  median {statistics.median(ratios):.3f}x  [target: <= 1.3x]")
    if process_ratios:
        print(f"two processes / one (the command line)  median "
              f"{statistics.median(process_ratios):.3f}x")

    finished = game(4, 81)
    assert finished.is_over
    kept = uttt.Solver()
    calls = {
        "uttt.solve (a fresh 1G table each call)": lambda: uttt.solve(finished),
        "uttt.solve, table_mem='16M'": lambda: uttt.solve(finished, table_mem="16M"),
        "Solver.solve (its table kept)": lambda: kept.solve(finished),
    }
    for name, call in calls.items():
        # The median of batches: the machine is shared, and a batch that another process
        # interrupted says nothing of the call.
        batches = []
        for _ in range(args.batches):
            began = time.perf_counter()
            for _ in range(100):
                call()
            batches.append((time.perf_counter() - began) / 100)
        print(f"overhead on a finished game, {name}: median {statistics.median(batches) * 1e3:.3f}"
              f" ms, least {min(batches) * 1e3:.3f} ms a call  [target: <= 0.2 ms]")

    solver = uttt.Solver(engine="dfpn", table_mem="256M")
    first, second = solver.solve(medium), solver.solve(medium)
    print(f"Solver: first solve {first['nodes']} nodes, second {second['nodes']}: "
          f"{second['nodes'] / first['nodes']:.4f}x  [target: < 0.1x]")


if __name__ == "__main__":
    main()
