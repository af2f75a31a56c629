"""Types of the native half of ``uttt`` (built from python/src by maturin)."""

import os
from typing import Any, Callable, Optional, TypedDict, Union

import numpy as np
import numpy.typing as npt
from typing_extensions import Unpack

#: The table size when none is given: 1 GiB, the command line's ``--table-mem`` default.
DEFAULT_TABLE_BYTES: int

_Duration = Union[float, int, str, None]
_Size = Union[int, str, None]
_Progress = Optional[Callable[[dict[str, int]], Any]]

class SolverOptions(TypedDict, total=False):
    """The keywords of :class:`Solver` (and of ``uttt.solve``, ``analyze``, ``review``)."""

    time_limit: _Duration
    node_limit: Optional[int]
    threads: Optional[int]
    table_mem: _Size
    win_in: str
    db: Optional[Union[str, os.PathLike[str]]]
    engine: Optional[str]
    estimate_playouts: Optional[int]

class CallSettings(TypedDict, total=False):
    """The keywords of one call of a Solver: limits in place of its own, progress."""

    time_limit: _Duration
    node_limit: Optional[int]
    progress: _Progress
    progress_every: float

class Position:
    """A position under a rule set, with the moves from the start when known. Immutable and
    hashable; equal when the game state is equal, whatever moves led to it."""

    def __init__(self, text: str = "start", rules: str = "common") -> None: ...
    @staticmethod
    def parse(text: str, rules: str = "common") -> Position:
        """Any notation the command line takes: ``start``, ours (``X;...;...``), moves from the
        start (``ee ea``), uttt.ai states, move lists and links, CodinGame moves; an optional
        rule set's name and a colon first (``open:ee ea``). ValueError when wrong."""
    def legal_moves(self) -> list[str]:
        """The legal moves in our notation, by square; empty once the game is over."""
    def play(self, move_: Union[str, int]) -> Position:
        """The position after a move (``"ae"``), a move list (``"ae ea"``) or a square index
        0..80 (``9 * board + cell``). ValueError for a malformed or illegal move."""
    @property
    def to_move(self) -> str:
        """``"X"`` or ``"O"``."""
    @property
    def result(self) -> Optional[str]:
        """``"X"``, ``"O"``, ``"draw"``, or None while the game goes on."""
    @property
    def is_over(self) -> bool: ...
    @property
    def rules(self) -> str:
        """``"common"``, ``"open"`` or ``"codingame"``."""
    @property
    def moves(self) -> Optional[list[str]]:
        """The moves from the start, when known."""
    def notation(self, kind: str = "uttt") -> str:
        """``"uttt"``, ``"moves"``, ``"uttt.ai"``, ``"uttt.ai-link"``, ``"uttt.ai-moves"``,
        ``"uttt.ai-moves-link"`` or ``"codingame"``."""
    def symmetries(self) -> list[tuple[Position, dict[str, str]]]:
        """The 8 symmetric images (identity first), each with its map of the 81 squares."""
    def planes(self) -> npt.NDArray[np.float32]:
        """Shape (4, 9, 9): X's stones, O's stones, legal moves, the boards to play in, on the
        whole board's 9×9 grid (board b's cell c at row 3(b//3)+c//3, column 3(b%3)+c%3)."""
    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """Shape (81,): the legal moves by square index ``9 * board + cell``."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...

class Solver:
    """A solver whose table (and database, with ``db``) lasts between calls."""

    def __init__(self, **options: Unpack[SolverOptions]) -> None: ...
    def solve(
        self, position: Union[Position, str], **call: Unpack[CallSettings]
    ) -> dict[str, Any]:
        """The dict of ``uttt solve --json``."""
    def analyze(
        self, position: Union[Position, str], **call: Unpack[CallSettings]
    ) -> dict[str, Any]:
        """The dict of ``uttt analyze --json``."""
    def review(
        self,
        game: Union[Position, str],
        *,
        rules: str = "common",
        stop_after: Optional[int] = 2,
        **call: Unpack[CallSettings],
    ) -> list[dict[str, Any]]:
        """The lines of ``uttt review --json``: one dict per ply, then the summary."""
    def choose(
        self,
        position: Union[Position, str],
        *,
        time_limit: _Duration = None,
        playouts: Optional[int] = None,
        node_limit: Optional[int] = None,
        seed: int = 1,
        temperature: float = 0.0,
    ) -> dict[str, Any]:
        """The dict of ``uttt play --json``: a move by tree search, its tree kept between calls."""
    @property
    def table_mem(self) -> int: ...
    @property
    def threads(self) -> int: ...

def perft(
    position: Union[Position, str], depth: int, *, threads: int = 1, divide: bool = False
) -> dict[str, Any]:
    """The dict of ``uttt perft --json``."""

def verify(
    certificate: Union[str, os.PathLike[str]], *, time_limit: _Duration = None
) -> dict[str, Any]:
    """The dict of ``uttt verify --json``."""
