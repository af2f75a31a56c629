//! What a root tree learns from outside its search and what it tells: the database of solved
//! positions (leaves solved there need no job; leaves the jobs solve are worth keeping) and,
//! for a campaign, the tree itself, kept between runs (see `crate::services::known`).

use crate::db::campaign::{walk_kept_tree, KeptNode};
use crate::game::{Move, Position};
use crate::search::numbers::Numbers;
use crate::search::{table_key, Question};
use crate::table::Table;

/// Keeps what a PN-DFPN search finds beyond the process, and tells it what is known already.
pub trait TreeKeeper {
    /// The tree an earlier run kept (root first, dense ids), taken once when the search starts;
    /// empty to start from the root alone.
    fn kept_tree(&mut self) -> Vec<KeptNode>;
    /// Whether the whole tree is kept: then solved subtrees stay in it (so that a proof can be
    /// read from it later) and every merge reports the nodes it changed.
    fn keeps_tree(&self) -> bool;
    /// The numbers of `leaf` (for its side to move, on the search's question) if they are
    /// known without a search: proved or disproved; asked once per leaf, before its first job.
    fn known(&mut self, leaf: &Position) -> Option<Numbers>;
    /// What one merged job changed; `false` ends the search (the keeper failed, and keeps its
    /// error to report it).
    fn record(&mut self, change: &TreeChange) -> bool;
}

/// What one merged job (or leaf answered by [`TreeKeeper::known`]) changed.
#[derive(Clone, Debug)]
pub struct TreeChange<'a> {
    /// The nodes that changed or are new, when the keeper keeps the tree (else empty).
    pub nodes: &'a [KeptNode],
    /// The leaf the job solved, if it did.
    pub solved: Option<SolvedLeaf>,
    /// The job's MID calls.
    pub work: u64,
    /// The root's numbers after the merge.
    pub root: Numbers,
}

/// A leaf a job solved.
#[derive(Clone, Copy, Debug)]
pub struct SolvedLeaf {
    /// Its position.
    pub position: Position,
    /// Its numbers (proved or disproved, for its side to move).
    pub numbers: Numbers,
    /// The MID calls below it, over every job.
    pub work: u64,
    /// A move that keeps the side to move's goal where it is proved (to a child disproved for
    /// its own side to move); where it is disproved every move fails, and this is one of them.
    pub best_move: Option<Move>,
}

/// Stores every node of a kept tree in the table, as the merges stored them: the searches of
/// this run then start from what the earlier runs found (and read a best move from it).
pub(crate) fn seed_table(kept: &[KeptNode], root: &Position, question: Question, table: &Table) {
    let mut writer = table.writer();
    walk_kept_tree(kept, root, |node, pos| {
        let numbers = Numbers {
            phi: node.phi,
            delta: node.delta,
        };
        writer.store(
            table_key(pos, question),
            numbers,
            u64::from(node.work).max(1),
        );
    });
}
