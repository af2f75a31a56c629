"""Ultimate Tic Tac Toe: positions, moves and an exact solver.

The solver of the ``uttt`` command, as a library: positions in every notation the command
line reads, a move generator as fast as the engine's, the tensors a learner feeds a network,
and the services the command line runs, answering its JSON objects as dicts.

Positions (immutable, hashable)::

    >>> import uttt
    >>> p = uttt.Position.parse("ee ea")       # moves from the start, ours, uttt.ai, CodinGame
    >>> p.to_move, len(p.legal_moves())
    ('X', 9)
    >>> q = p.play("ae")                         # a new position; p is unchanged
    >>> print(q)                                 # the board, as `uttt show` draws it

Searches (``uttt solve --json``, ``uttt analyze --json``, ... as dicts)::

    >>> uttt.solve(q, time_limit=1)["result"]   # 'X', 'O', 'draw' or 'unknown'
    >>> solver = uttt.Solver(threads=2)          # keeps its table between calls
    >>> solver.analyze(q)["moves"][0]
    >>> solver.choose(q, time_limit=0.5)["move"]  # a move where the proof does not reach

A search runs without the GIL, so other threads go on; Ctrl-C stops it within a second and
the call returns what it knows (``"result": "unknown"``), as the command line does.
Bad positions and moves raise ValueError with the command line's words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from ._native import DEFAULT_TABLE_BYTES, Position, Solver, perft, verify

__all__ = [
    "Position",
    "Solver",
    "solve",
    "analyze",
    "review",
    "choose",
    "perft",
    "verify",
    "DEFAULT_TABLE_BYTES",
]

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._native import SolverOptions

#: A position argument: a Position, or its text read under the common rules.
PositionLike = Union[Position, str]


def __dir__() -> list[str]:
    """The package's own names: not the typing helpers it imports."""
    return sorted(__all__)


def _solver(caller: str, options: dict) -> Solver:
    """A Solver of ``options`` for the function ``caller``, whose name a bad keyword's
    TypeError gives (not ``Solver.__new__``, which the caller never called)."""
    try:
        return Solver(**options)
    except TypeError as error:
        raise TypeError(str(error).replace("Solver.__new__()", f"{caller}()")) from None


def solve(
    position: PositionLike,
    *,
    progress: Optional[Callable[[dict], Any]] = None,
    **options: Unpack[SolverOptions],
) -> dict:
    """Solve ``position``: X wins, O wins or draw, with a best move.

    Returns the dict ``uttt solve --json`` prints (the same keys and values): ``result``
    (``"X"``, ``"O"``, ``"draw"`` or ``"unknown"`` when a limit stopped it), ``value`` for the
    side to move, ``best_move``, ``pv``, ``win_in`` when asked, and the searches' and table's
    figures. The keywords ``options`` are :class:`Solver`'s, the command line's options:
    ``time_limit`` (seconds, or text such as ``"30s"``) and ``node_limit`` bound the search,
    ``threads`` (default: every core), ``table_mem`` (default ``"1G"``), ``win_in``
    (``"off"``, ``"range"`` or ``"exact"``: how soon a win comes), ``db`` (a database of
    solved positions), ``engine``, ``estimate_playouts`` (of the estimates that ``analyze``
    and ``review`` show beside unknown values). ``progress`` is called every half second with a dict of
    ``nodes``, ``time_ms``, ``root_phi`` and ``root_delta``.

    Each call makes a fresh table; a :class:`Solver` keeps one between calls.
    """
    return _solver("solve", options).solve(position, progress=progress)


def analyze(
    position: PositionLike,
    *,
    progress: Optional[Callable[[dict], Any]] = None,
    **options: Unpack[SolverOptions],
) -> dict:
    """Analyse every legal move of ``position``: the dict of ``uttt analyze --json``.

    ``value`` is the position's value for the side to move, ``moves`` each move's ``value``
    and ``best_reply``, best first, ``unknown_moves`` those a limit left open. The keywords
    are :func:`solve`'s. Raises ValueError when the game is over.
    """
    return _solver("analyze", options).analyze(position, progress=progress)


def review(
    game: PositionLike,
    *,
    rules: str = "common",
    stop_after: Optional[int] = 2,
    progress: Optional[Callable[[dict], Any]] = None,
    **options: Unpack[SolverOptions],
) -> list:
    """Review a game: where it was won and lost. The lines of ``uttt review --json``.

    ``game`` is a Position read or played as a game, or the game's text (a move list, a
    uttt.ai move list or link, CodinGame moves) under ``rules``. Its positions are solved from
    the end backwards on one table, each within ``time_limit`` (default 10 s) and
    ``node_limit``; the walk stops after ``stop_after`` unknown positions in a row (None walks
    on to the start). Returns one dict per ply (``"type": "ply"``: its value, the move played
    and its mark, best, mistake or blunder), then the summary (``"type": "summary"``). The
    other keywords are :func:`solve`'s.
    """
    return _solver("review", options).review(
        game, rules=rules, stop_after=stop_after, progress=progress
    )


def choose(
    position: PositionLike,
    *,
    time_limit: Optional[Union[float, str]] = None,
    playouts: Optional[int] = None,
    seed: int = 1,
    temperature: float = 0.0,
    **options: Unpack[SolverOptions],
) -> dict:
    """Choose a move at ``position``: the dict of ``uttt play --json``.

    A Monte Carlo tree search that knows what is proved: ``move`` (None once the game is
    over), ``result`` and ``value`` (proved values only, as :func:`solve`'s), ``proved``,
    ``bounds`` (what is proved when the value is not, such as ``"X cannot win"``) and
    ``estimate`` (``x``, ``o``, ``draw`` shares of playouts and their number: an estimate,
    never a value). ``time_limit`` (default 1 s unless ``playouts`` is given) and
    ``playouts`` bound the search; with ``threads=1``, a ``seed`` and ``playouts`` the same
    call gives the same answer; ``temperature`` > 0 varies the choice among unproved moves.
    The other keywords are :class:`Solver`'s. Not to be confused with :meth:`Position.play`,
    which makes a move: this one chooses it.

    Each call makes a fresh table and tree; :meth:`Solver.choose` keeps both between calls.
    """
    return _solver("choose", options).choose(
        position, time_limit=time_limit, playouts=playouts, seed=seed, temperature=temperature
    )
