//! The learned estimate of a node's children, computed together: what the children's rows
//! share is summed once, and each child adds only what its move changed.
//!
//! A child differs from its parent by one stone. Seen by the child's side to move (the
//! parent's opponent), eight of the nine small boards keep their patterns, the big board's
//! lines keep theirs unless the move won or filled a board, and the ways the boards may be
//! played in follow from the child's target alone: the target board is played in, every
//! other board neither, or, after a move that sends to a closed board, every open board
//! freely. So the sum of a child's board rows is the parent's sum of its boards in one of two
//! layouts (all neither, or free), less the old and plus the new rows of the board moved in
//! and of the target: four rows read instead of nine, and nine patterns computed once instead
//! of once a child. A move that wins or fills a board changes the lines and the free boards;
//! such a child is estimated whole.
//!
//! The sums are exact integers, so a child's estimate here is the estimate of the child
//! alone, to the last bit (tested on every child of thousands of positions).

use super::features::{
    board_pattern, board_row, count_rows, line_rows, pattern_with_theirs, Features, Findings, Way,
};
use super::model::Model;
use crate::game::{Move, Player, Position};

/// What the children of one position share, for one question's costs.
pub struct Siblings<'m> {
    /// The cost weights of the children's question, told from their side to move.
    table: &'m [[i16; 2]],
    /// Whether the children's side to move is the question's attacker.
    mine: bool,
    /// Each small board's pattern seen by the children's side to move.
    patterns: [u32; 9],
    /// The parent's won boards of each player and closed boards: a child with the same has
    /// the same lines and the same free boards.
    boards: [u16; 3],
    /// The nine boards' rows summed, every board played in neither way.
    neither: [i32; 2],
    /// The same with every open board free (after a move that sends to a closed board).
    free: [i32; 2],
    /// The lines' rows summed.
    lines: [i32; 2],
}

fn boards_of(pos: &Position) -> [u16; 3] {
    [
        pos.won_boards(Player::X),
        pos.won_boards(Player::O),
        pos.closed_boards(),
    ]
}

impl<'m> Siblings<'m> {
    /// What the children of `parent` share, for the question whose attacker is the
    /// children's side to move (`mine`) or the parent's.
    pub fn of(model: &'m Model, parent: &Position, mine: bool) -> Siblings<'m> {
        let table = model.question_table(mine);
        let child_to_move = parent.side_to_move().opponent();
        let patterns = std::array::from_fn(|board| board_pattern(parent, child_to_move, board));
        let closed = parent.closed_boards();
        let mut neither = [0; 2];
        let mut free = [0; 2];
        for (board, &pattern) in patterns.iter().enumerate() {
            add(&mut neither, table, board_row(Way::Neither, pattern), 1);
            let way = if closed & 1 << board == 0 {
                Way::Free
            } else {
                Way::Neither
            };
            add(&mut free, table, board_row(way, pattern), 1);
        }
        // The lines as the children's side to move sees them, with the parent's boards (a
        // child whose boards differ is estimated whole).
        let mut lines = [0; 2];
        for row in line_rows(parent, child_to_move) {
            add(&mut lines, table, row, 1);
        }
        Siblings {
            table,
            mine,
            patterns,
            boards: boards_of(parent),
            neither,
            free,
            lines,
        }
    }

    /// The predicted log2 work to prove and to disprove the question at `child`, reached by
    /// `mv` from the parent, in fixed point: the same as [`Model::fixed_costs`] of the child
    /// alone.
    pub fn fixed_costs(
        &self,
        model: &Model,
        mv: Move,
        child: &Position,
        findings: &Findings,
    ) -> (i32, i32) {
        if boards_of(child) != self.boards {
            return model.fixed_costs(&Features::of(child, findings), self.mine);
        }
        let table = self.table;
        let moved = mv.board();
        let old = self.patterns[moved];
        let new = pattern_with_theirs(old, mv.cell());
        let target = child.target_board();
        let boards = if target.is_some() {
            self.neither
        } else {
            self.free
        };
        let mut sums = [self.lines[0] + boards[0], self.lines[1] + boards[1]];
        match target {
            Some(target) => {
                add(&mut sums, table, board_row(Way::Neither, old), -1);
                add(&mut sums, table, board_row(Way::Neither, new), 1);
                let pattern = if target == moved {
                    new
                } else {
                    self.patterns[target]
                };
                add(&mut sums, table, board_row(Way::Neither, pattern), -1);
                add(&mut sums, table, board_row(Way::Target, pattern), 1);
            }
            None => {
                // The board moved in is still open (its closed state is the parent's).
                add(&mut sums, table, board_row(Way::Free, old), -1);
                add(&mut sums, table, board_row(Way::Free, new), 1);
            }
        }
        for row in count_rows(child, findings) {
            add(&mut sums, table, row, 1);
        }
        (sums[0], sums[1])
    }
}

/// Adds `sign` (1 or -1) times the weights of `row` to `sums`.
fn add(sums: &mut [i32; 2], table: &[[i16; 2]], row: u32, sign: i32) {
    let [prove, disprove] = table[row as usize];
    sums[0] += sign * i32::from(prove);
    sums[1] += sign * i32::from(disprove);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Rng, Rules};
    use crate::search::guide::embedded_model;
    use crate::search::rules::{evaluate, Evaluation};
    use crate::search::Question;

    #[test]
    fn each_childs_costs_from_its_siblings_are_its_costs_alone() {
        let model = embedded_model().expect("the built-in weights pass their check");
        let mut rng = Rng::new(0x7369_626c);
        let (mut children, mut whole, mut free) = (0, 0, 0);
        for game in 0..1_500 {
            let rules = Rules::ALL[game % 3];
            let start = Position::start_under(rules);
            let moves = rng.playout(&start, game % 70);
            let parent = moves.iter().fold(start, |p, &m| p.play(m));
            for attacker in [Player::X, Player::O] {
                let question = Question::wins(attacker);
                let mine = parent.side_to_move().opponent() == attacker;
                let siblings = Siblings::of(model, &parent, mine);
                for mv in parent.legal_moves() {
                    let child = parent.play(mv);
                    let Evaluation::Open(node) = evaluate(&child, question) else {
                        continue;
                    };
                    assert_eq!(node.attacker_to_move, mine);
                    let findings = Findings::of_node(&node);
                    let alone = model.fixed_costs(&Features::of(&child, &findings), mine);
                    assert_eq!(
                        siblings.fixed_costs(model, mv, &child, &findings),
                        alone,
                        "{parent:?} {mv}"
                    );
                    children += 1;
                    whole += usize::from(boards_of(&child) != siblings.boards);
                    free += usize::from(child.target_board().is_none());
                }
            }
        }
        // Every kind of child is among them: sent to a board, sent anywhere, and one that
        // wins or fills a board (estimated whole).
        assert!(
            children > 20_000 && whole > 500 && free > 500,
            "{children} {whole} {free}"
        );
    }
}
