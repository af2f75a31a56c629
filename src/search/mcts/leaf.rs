//! What is proved of a node as the tree meets it: the static rules and the table first (cheap,
//! at every new node), then near the end of the game a short DFPN against the same table.
//! Every answer here is exact: a table entry or a DFPN proof is a fact about its position (the
//! game has no repetitions), and the DFPN's proofs stay in the table for later searches.

use super::bounds::{Bounds, Score};
use crate::game::{MoveSet, Player, Position};
use crate::search::dfpn::{Dfpn, Limits};
use crate::search::guide::Guide;
use crate::search::numbers::Numbers;
use crate::search::options::DEFAULT_EPSILON;
use crate::search::rules::{evaluate, safe_moves, Evaluation};
use crate::search::{table_key, Question};
use crate::table::{Table, TableWriter};

/// What a node's first look found: its bounds, and the moves worth playing from it (the
/// static rules leave out moves that hand the opponent a win at once while another exists:
/// they cannot change the value, see [`crate::search::rules::safe_moves`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Looked {
    /// What is proved.
    pub bounds: Bounds,
    /// The moves worth playing (empty when the value is proved).
    pub moves: MoveSet,
}

/// The bound that the numbers `numbers` of the question "does `attacker` win?" give at `pos`,
/// when they are solved. Numbers are for the side to move: φ = 0 says it reaches its goal (as
/// attacker, winning; as defender, keeping the attacker from winning), δ = 0 that it fails.
fn bound_of(pos: &Position, attacker: Player, numbers: Numbers) -> Option<Bounds> {
    if !numbers.is_solved() {
        return None;
    }
    let mover_reaches_goal = numbers.phi == 0;
    let attacker_wins = mover_reaches_goal == (pos.side_to_move() == attacker);
    Some(if attacker_wins {
        Bounds::exact(Score::win_for(attacker))
    } else {
        Bounds::cannot_win(attacker)
    })
}

/// The two questions, the side to move's first (its win is what a playing search hopes for).
fn questions(pos: &Position) -> [Question; 2] {
    let mover = pos.side_to_move();
    [Question::wins(mover), Question::wins(mover.opponent())]
}

/// Looks at nodes for one searching thread: the static rules, the table, and DFPN where it is
/// asked for.
pub struct Looker<'a> {
    table: &'a Table,
    writer: TableWriter<'a>,
    limits: Limits<'a>,
    /// Facts from outside (a database) about positions near the root, met with the first
    /// look of those positions.
    known: &'a [(Position, Bounds)],
    /// MID calls of the DFPN leaf searches so far.
    pub dfpn_nodes: u64,
}

impl<'a> Looker<'a> {
    /// A looker against `table`, its DFPN searches stopped by `limits`, that knows `known`
    /// besides (see [`Looker::look`]).
    pub fn new(
        table: &'a Table,
        limits: Limits<'a>,
        known: &'a [(Position, Bounds)],
    ) -> Looker<'a> {
        Looker {
            table,
            writer: table.writer(),
            limits,
            known,
            dfpn_nodes: 0,
        }
    }

    /// The first look at `pos`: a finished game's outcome, the static rules for both
    /// questions, and what the table has proved of either; and, for a position `near` the
    /// root, what the known facts say of it.
    pub fn look(&mut self, pos: &Position, near: bool) -> Looked {
        if let Some(score) = Score::of_outcome(pos.outcome()) {
            return Looked {
                bounds: Bounds::exact(score),
                moves: MoveSet::EMPTY,
            };
        }
        let mut bounds = Bounds::UNKNOWN;
        for question in questions(pos) {
            if let Evaluation::Solved(numbers) = evaluate(pos, question) {
                if let Some(bound) = bound_of(pos, question.attacker, numbers) {
                    bounds = bounds.meet(bound);
                }
            }
            if bounds.is_exact() {
                return Looked {
                    bounds,
                    moves: MoveSet::EMPTY,
                };
            }
        }
        let [own, other] = questions(pos).map(|question| table_key(pos, question));
        let (own, other) = self.writer.lookup_pair(own, other);
        for (question, found) in questions(pos).into_iter().zip([own, other]) {
            if let Some(bound) =
                found.and_then(|found| bound_of(pos, question.attacker, found.numbers))
            {
                bounds = bounds.meet(bound);
            }
        }
        if near {
            for (_, bound) in self.known.iter().filter(|(known, _)| known == pos) {
                bounds = bounds.meet(*bound);
            }
        }
        // The safe moves, not a question's moves worth searching: those leave out the
        // attacker's moves that let the defender kill, which cannot win but may draw.
        let moves = if bounds.is_exact() {
            MoveSet::EMPTY
        } else {
            safe_moves(pos)
        };
        Looked { bounds, moves }
    }

    /// A deeper look at `pos`, whose first look left it open within `bounds`: a DFPN search of
    /// at most `work` MID calls for each question still open, the side to move's first. Its
    /// proofs stay in the table.
    pub fn search(&mut self, pos: &Position, bounds: Bounds, work: u64) -> Bounds {
        let mut bounds = bounds;
        for question in questions(pos) {
            if bounds.is_exact() || !bounds.allows_win(question.attacker) {
                continue;
            }
            let mut dfpn = Dfpn::new(self.table, question, DEFAULT_EPSILON, self.limits)
                .guided_by(self.limits.estimate(Guide::default()));
            let numbers = dfpn.solve(pos, work);
            self.dfpn_nodes += dfpn.nodes();
            if let Some(bound) = bound_of(pos, question.attacker, numbers) {
                bounds = bounds.meet(bound);
            }
        }
        bounds
    }
}
