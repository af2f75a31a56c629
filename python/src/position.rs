//! `uttt.Position`: a position of the game (and the moves that reached it, when they are
//! known), immutable and hashable, with the move generator, the notations and the tensors a
//! learner feeds a network.

use crate::convert::{move_strings, numpy_array, value_error};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use uttt::game::formats::{
    format_codingame, format_uttt_ai_moves, format_uttt_ai_state, uttt_ai_moves_link,
    uttt_ai_state_link,
};
use uttt::game::{
    format_moves, parse_game_arg_under, read_move_list, shown, Move, Outcome, Player, Position,
};
use uttt::services::board::board_text;

/// The most moves a game has: one per cell.
const MAX_PLIES: usize = 81;

/// The moves of a game from the start, kept inline so that playing a move copies a few bytes
/// instead of allocating: random playouts make a position per ply.
#[derive(Clone, Copy)]
struct History {
    len: u8,
    squares: [u8; MAX_PLIES],
}

impl History {
    fn of(moves: &[Move]) -> History {
        let mut history = History {
            len: 0,
            squares: [0; MAX_PLIES],
        };
        for &mv in moves.iter().take(MAX_PLIES) {
            history = history.with(mv);
        }
        history
    }

    fn with(mut self, mv: Move) -> History {
        // A legal move fills an empty cell, so a game never has more than 81.
        if (self.len as usize) < MAX_PLIES {
            self.squares[self.len as usize] = mv.square() as u8;
            self.len += 1;
        }
        self
    }

    fn moves(&self) -> Vec<Move> {
        self.squares[..self.len as usize]
            .iter()
            .map(|&square| Move::from_square(square as usize))
            .collect()
    }
}

/// A position of Ultimate Tic Tac Toe under a rule set, and the moves from the start that
/// reached it when they are known (a position read as a game, or played from one).
///
/// Positions are immutable: `play` returns a new one. Two positions are equal (and hash
/// alike) when the game state is the same, whatever moves led to it.
///
/// >>> p = uttt.Position.parse("ee ea")
/// >>> p.to_move, p.legal_moves()[:3]
/// ('X', ['aa', 'ab', 'ac'])
#[pyclass(module = "uttt", name = "Position", frozen, skip_from_py_object)]
#[derive(Clone, Copy)]
pub struct PyPosition {
    pub(crate) pos: Position,
    history: Option<History>,
}

impl PyPosition {
    /// The position of `text` (any notation the command line takes) under the rule set named
    /// `rules`, or the command line's words for what is wrong.
    pub(crate) fn read(text: &str, rules: &str) -> PyResult<PyPosition> {
        let rules = uttt::game::Rules::parse(rules).map_err(value_error)?;
        let game = parse_game_arg_under(text, rules)
            .map_err(|error| value_error(format!("invalid position `{}`: {error}", shown(text))))?;
        Ok(PyPosition {
            pos: game.position,
            history: game.moves.as_deref().map(History::of),
        })
    }

    /// The position a Python argument names: a `Position`, or text read under the common
    /// rules.
    pub(crate) fn from_arg(arg: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        if let Ok(position) = arg.cast::<PyPosition>() {
            return Ok(*position.get());
        }
        let text: String = arg.extract().map_err(|_| {
            value_error("a position is a uttt.Position or its text (`start`, `X;...`, `ee ea`)")
        })?;
        PyPosition::read(&text, "common")
    }

    /// The moves from the start, when known.
    pub(crate) fn game_moves(&self) -> Option<Vec<Move>> {
        self.history.map(|history| history.moves())
    }

    /// After `mv`, which must be legal here.
    fn after(&self, mv: Move) -> PyPosition {
        PyPosition {
            pos: self.pos.play(mv),
            history: self.history.map(|history| history.with(mv)),
        }
    }

    /// The moves `text` names (one move, or a list), played here, or the command line's
    /// words for the first that cannot be.
    fn after_text(&self, text: &str) -> PyResult<PyPosition> {
        let bytes = text.as_bytes();
        // The common case of a playout, two letters of a legal move, without the list reader.
        if let [board @ b'a'..=b'i', cell @ b'a'..=b'i'] = *bytes {
            let mv = Move::new((board - b'a') as usize, (cell - b'a') as usize);
            if self.pos.is_legal(mv) {
                return Ok(self.after(mv));
            }
        }
        let (_, moves) = read_move_list(&self.pos, text)
            .map_err(|error| value_error(format!("invalid move `{}`: {error}", shown(text))))?;
        Ok(moves.into_iter().fold(*self, |here, mv| here.after(mv)))
    }

    /// The game's moves for the notations that write games, or why there are none.
    fn moves_for(&self, kind: &str) -> PyResult<Vec<Move>> {
        self.game_moves().ok_or_else(|| {
            value_error(format!(
                "the notation `{kind}` writes games, not positions: read the position as moves \
                 from the start to have its moves"
            ))
        })
    }

    /// The text that reads back as this position with its moves: the game from the start
    /// when known, else the position notation.
    fn text(&self) -> String {
        let Some(moves) = self.game_moves() else {
            return self.pos.to_string();
        };
        let rules = self.pos.rules();
        let prefix = if rules.is_common() {
            String::new()
        } else {
            format!("{rules}:")
        };
        if moves.is_empty() {
            format!("{prefix}start")
        } else {
            format!("{prefix}{}", format_moves(&moves))
        }
    }

    /// The eight images of this position under the board's symmetries.
    fn image(&self, sym: usize) -> PyPosition {
        PyPosition {
            pos: self.pos.transform(sym),
            history: self.history.map(|history| {
                History::of(
                    &history
                        .moves()
                        .into_iter()
                        .map(|mv| mv.transform(sym))
                        .collect::<Vec<_>>(),
                )
            }),
        }
    }
}

/// Where square `mv` lies on the 9×9 grid of the whole board, row-major: board `b`'s cell `c`
/// is at row `3 (b / 3) + c / 3`, column `3 (b % 3) + c % 3`.
fn grid_index(mv: Move) -> usize {
    let (board, cell) = (mv.board(), mv.cell());
    let row = 3 * (board / 3) + cell / 3;
    let column = 3 * (board % 3) + cell % 3;
    9 * row + column
}

/// The planes' order (see `planes`).
const PLANES: usize = 4;

#[pymethods]
impl PyPosition {
    /// Position(text="start", rules="common")
    /// --
    ///
    /// The position `text` names, as `Position.parse` reads it.
    #[new]
    #[pyo3(signature = (text = "start", rules = "common"))]
    fn new(text: &str, rules: &str) -> PyResult<PyPosition> {
        PyPosition::read(text, rules)
    }

    /// Reads a position in any notation the command line takes: `start`, ours
    /// (`X;...;...`), moves from the start (`ee ea ae` or `ee,ea`), a uttt.ai state, move
    /// list or link, or CodinGame moves (`4 4 3 3`); a rule set's name and a colon may come
    /// first (`open:ee ea`). `rules` is the rule set: `common`, `open` (won boards stay open
    /// until full) or `codingame` (without a line, more won boards win).
    ///
    /// Raises ValueError with the command line's words when the text is wrong.
    #[staticmethod]
    #[pyo3(signature = (text, rules = "common"))]
    fn parse(text: &str, rules: &str) -> PyResult<PyPosition> {
        PyPosition::read(text, rules)
    }

    /// The legal moves in our notation (board letter, then cell letter: `ae`), in square
    /// order; empty once the game is over.
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let names = move_strings(py);
        PyList::new(
            py,
            self.pos.legal_moves().map(|mv| names[mv.square()].bind(py)),
        )
    }

    /// The position after `move`: a move in our notation (`ae`), a list of them (`ae ea`), or
    /// a square index 0..80 (`9 * board + cell`, the index of `legal_mask`).
    ///
    /// Raises ValueError with the command line's words for a malformed or illegal move.
    #[pyo3(signature = (move_))]
    fn play(&self, move_: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        if let Ok(text) = move_.cast::<PyString>() {
            return self.after_text(text.to_str()?);
        }
        let square: i64 = move_.extract().map_err(|_| {
            value_error("a move is its notation (`ae`) or a square index 0..80 (9 * board + cell)")
        })?;
        match usize::try_from(square).ok().filter(|&s| s < 81) {
            Some(square) => self.after_text(&Move::from_square(square).to_string()),
            None => Err(value_error(format!(
                "invalid move {square}: a square index is 0..80 (9 * board + cell)"
            ))),
        }
    }

    /// The side to move: `"X"` or `"O"`.
    #[getter(to_move)]
    fn side_to_move(&self) -> &'static str {
        player_name(self.pos.side_to_move())
    }

    /// How the game ended: `"X"` or `"O"` (won), `"draw"`, or None while it goes on.
    #[getter]
    fn result(&self) -> Option<&'static str> {
        match self.pos.outcome() {
            Outcome::InPlay => None,
            Outcome::Won(player) => Some(player_name(player)),
            Outcome::Draw => Some("draw"),
        }
    }

    /// Whether the game is over (nobody has a legal move).
    #[getter]
    fn is_over(&self) -> bool {
        self.pos.is_over()
    }

    /// The rule set's name: `"common"`, `"open"` or `"codingame"`.
    #[getter]
    fn rules(&self) -> &'static str {
        self.pos.rules().name()
    }

    /// The moves from the start that reached this position, when it was read or played as
    /// a game; None for a position read in a notation without its moves.
    #[getter]
    fn moves(&self) -> Option<Vec<String>> {
        self.game_moves()
            .map(|moves| moves.iter().map(ToString::to_string).collect())
    }

    /// The position in a notation: `"uttt"` (ours, after the rule set's name when not the
    /// common rules), `"moves"` (our move list from the start, `start` when empty), `"uttt.ai"` (its state
    /// string), `"uttt.ai-link"`, `"uttt.ai-moves"`, `"uttt.ai-moves-link"` or `"codingame"`
    /// (its `row col` moves). The notations of uttt.ai and CodinGame close won boards, so
    /// they have nothing for the `open` rules; those of games need the moves.
    #[pyo3(signature = (kind = "uttt"))]
    fn notation(&self, kind: &str) -> PyResult<String> {
        let pos = &self.pos;
        let rules = pos.rules();
        if kind != "uttt" && kind != "moves" && !rules.won_boards_close() {
            return Err(value_error(format!(
                "uttt.ai and CodinGame close a won board, so a position under the rule set \
                 `{rules}` (won boards stay open) has no `{kind}` notation: use `uttt`"
            )));
        }
        Ok(match kind {
            "uttt" => pos.to_string(),
            // An empty list says nothing; the command line writes the start so.
            "moves" => match self.moves_for(kind)?.as_slice() {
                [] => "start".to_string(),
                moves => format_moves(moves),
            },
            "uttt.ai" => format_uttt_ai_state(pos),
            "uttt.ai-link" => uttt_ai_state_link(pos),
            "uttt.ai-moves" => format_uttt_ai_moves(&self.moves_for(kind)?),
            "uttt.ai-moves-link" => uttt_ai_moves_link(&self.moves_for(kind)?),
            "codingame" => format_codingame(&self.moves_for(kind)?),
            _ => {
                return Err(value_error(format!(
                    "unknown notation `{kind}`: expected uttt, moves, uttt.ai, uttt.ai-link, \
                     uttt.ai-moves, uttt.ai-moves-link or codingame"
                )))
            }
        })
    }

    /// The eight symmetric images of this position (the identity first), each with the map
    /// of moves: a list of `(position, {move: image move})` over all 81 squares. An image
    /// has the same value; a move's image is the same move there.
    fn symmetries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let names = move_strings(py);
        let images = (0..8)
            .map(|sym| {
                let map = PyDict::new(py);
                for square in 0..81 {
                    let mv = Move::from_square(square);
                    map.set_item(
                        names[square].bind(py),
                        names[mv.transform(sym).square()].bind(py),
                    )?;
                }
                PyTuple::new(
                    py,
                    [Bound::new(py, self.image(sym))?.into_any(), map.into_any()],
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, images)
    }

    /// The position as a network's input: a float32 array of shape (4, 9, 9), the whole board
    /// as a 9×9 grid (board `b`'s cell `c` at row `3 (b // 3) + c // 3`, column
    /// `3 (b % 3) + c % 3`), its planes: X's stones, O's stones, the legal moves, and the cells
    /// of the boards the side to move may play in.
    fn planes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut bytes = [0u8; PLANES * 81];
        let legal = self.pos.legal_moves();
        for square in 0..81 {
            let mv = Move::from_square(square);
            let at = grid_index(mv);
            let stones = |player| self.pos.cells(player) >> square & 1 == 1;
            bytes[at] = stones(Player::X) as u8;
            bytes[81 + at] = stones(Player::O) as u8;
            bytes[2 * 81 + at] = legal.contains(mv) as u8;
        }
        for mv in legal {
            // Every cell of a board with a legal move: the board may be played in.
            for cell in 0..9 {
                bytes[3 * 81 + grid_index(Move::new(mv.board(), cell))] = 1;
            }
        }
        numpy_array(py, &bytes, &[PLANES, 9, 9], "float32")
    }

    /// The legal moves as a bool array of 81, by square index (`9 * board + cell`, the
    /// order of `legal_moves` and what `play` takes as a number).
    fn legal_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut bytes = [0u8; 81];
        for mv in self.pos.legal_moves() {
            bytes[mv.square()] = 1;
        }
        numpy_array(py, &bytes, &[81], "bool")
    }

    /// The board as `uttt show` draws it.
    fn __str__(&self) -> String {
        board_text(&self.pos, false)
    }

    fn __repr__(&self) -> String {
        format!("Position({:?})", self.text())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyPosition>()
            .is_ok_and(|other| other.get().pos == self.pos)
    }

    fn __hash__(&self) -> u64 {
        // The game's own hash of the position (Zobrist keys of its stones and boards).
        self.pos.hash()
    }

    /// Pickles as the text that reads it back (moves included).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let parse = py.get_type::<PyPosition>().getattr("parse")?;
        let arguments = PyTuple::new(py, [slf.get().text()])?;
        PyTuple::new(py, [parse, arguments.into_any()])
    }
}

/// A player as the JSON writes it.
fn player_name(player: Player) -> &'static str {
    match player {
        Player::X => "X",
        Player::O => "O",
    }
}
