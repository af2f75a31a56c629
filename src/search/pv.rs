//! The principal variation of a solved position, read from the table, and the best move at
//! each of its plies.

use super::dfpn::Dfpn;
use super::numbers::Numbers;
use super::rules::immediate_win;
use crate::game::{Move, Position};

/// The longest principal variation reported.
const MAX_PV_PLIES: usize = 40;

/// The moves that prove the decisive search's answer, read from the table. The first move is
/// always established (children missing from the table are searched again); later plies stop
/// where the table has lost the line. At a node whose side to move reaches its goal the move
/// is one to a child solved against its side to move; at one that fails, the move whose
/// refutation took the most work (the longest resistance by the search's own measure).
///
/// Searches spend at most `node_budget` MID calls in all; when it runs out the variation may
/// be empty even at a solved root.
pub fn principal_variation(root: &Position, searcher: &mut Dfpn, node_budget: u64) -> Vec<Move> {
    let mut pv = Vec::new();
    let mut pos = *root;
    let question = searcher.question();
    while pv.len() < MAX_PV_PLIES && !pos.is_over() && question.plies_left(&pos) != Some(0) {
        let search_budget = if pv.is_empty() { node_budget } else { 0 };
        let Some(mv) = best_move(&pos, searcher, search_budget) else {
            break;
        };
        pv.push(mv);
        pos = pos.play(mv);
    }
    pv
}

/// The best move at a solved `pos` (see [`principal_variation`]); `None` if the table does not
/// know and `search_budget` (MID calls for re-searches, shared by all of them) is zero, or a
/// limit or the budget stopped the re-search.
fn best_move(pos: &Position, searcher: &mut Dfpn, search_budget: u64) -> Option<Move> {
    let may_search = search_budget > 0;
    let budget_end = searcher.nodes().saturating_add(search_budget);
    if let Some(mv) = immediate_win(pos) {
        return Some(mv);
    }
    let mut numbers = searcher.peek(pos);
    if !numbers.is_solved() && may_search {
        numbers = searcher.solve(pos, budget_end.saturating_sub(searcher.nodes()));
    }
    if !numbers.is_solved() {
        return None;
    }
    let mut children: Vec<(Move, Position, Numbers, u64)> = pos
        .legal_moves()
        .into_iter()
        .map(|mv| {
            let child = pos.play(mv);
            let numbers = searcher.peek(&child);
            (mv, child, numbers, searcher.recorded_work(&child))
        })
        .collect();
    if numbers.phi != 0 {
        // Every move fails: resist longest, by the work the table recorded. Among equal work,
        // prefer a child the table or the rules have not already settled, so that a move that
        // loses at once comes last.
        return children
            .iter()
            .max_by_key(|c| (c.3, !c.2.is_solved()))
            .map(|c| c.0);
    }
    // A child disproved for its own side to move is a move that reaches the goal.
    if let Some(c) = children.iter().find(|c| c.2.delta == 0) {
        return Some(c.0);
    }
    if !may_search {
        return None;
    }
    children.sort_by_key(|c| c.2.delta);
    for (mv, child, _, _) in children {
        let left = budget_end.saturating_sub(searcher.nodes());
        if left == 0 {
            break;
        }
        if searcher.solve(&child, left).delta == 0 {
            return Some(mv);
        }
        if searcher.was_stopped() {
            break;
        }
    }
    None
}
