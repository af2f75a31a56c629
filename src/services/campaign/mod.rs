//! Campaigns: solves kept in the database, stopped and resumed at will.
//!
//! - Running one: [`Campaign`] ([`run`]), a [`super::Solver`] made with
//!   [`super::Solver::as_campaign`], with the table's [`snapshot`] kept beside the database.
//! - Where one stands (`uttt campaign status`): for each question, its stored answer, its kept
//!   tree's root numbers, size, depth and open leaves, the work spent over every run, and the
//!   trend of the root's numbers ([`campaign_status`]).
//! - Learning as it goes: between runs, the calibrated guide's table refitted to what the
//!   campaign settled, and steering the next run where it predicts better ([`refit`]).
//! - What a settled campaign's certificate is written from ([`settled_campaign`], then
//!   [`super::certify::certify_campaign`]).

use super::report::Verdict;
use crate::db::campaign::guide::KeptGuide;
use crate::db::campaign::{kept_tree_defect, KeptNode, Question, Totals, TrendSample, NO_NODE};
use crate::db::key::canonical;
use crate::db::{Database, DbError};
use crate::game::{Player, Position};
use crate::search::numbers::Numbers;
use serde::Serialize;

pub mod refit;
mod run;
pub mod snapshot;

pub use run::{Campaign, CampaignError, CampaignRequest, CampaignRun, Learning, SnapshotPlan};

/// A campaign's state, read from the database.
#[derive(Clone, Debug, Serialize)]
pub struct CampaignStatus {
    /// The campaign's position, in the canonical orientation its trees are kept in.
    pub position: Position,
    /// The bound of its questions ("within so many plies"), for a bounded campaign.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_plies: Option<u32>,
    /// Each question, the side to move's first.
    pub questions: Vec<QuestionStatus>,
    /// The campaign's last refit of the calibrated guide, if one is kept ([`refit`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guide: Option<KeptGuide>,
}

/// One question of a campaign: "does `attacker` win?".
#[derive(Clone, Debug, Serialize)]
pub struct QuestionStatus {
    /// The question's player.
    pub attacker: Player,
    /// The stored answer (the attacker wins or not), when it is settled.
    pub answer: Option<bool>,
    /// The kept tree's root numbers (for the side to move), if a tree is kept.
    pub root: Option<Numbers>,
    /// Nodes of the kept tree.
    pub tree_nodes: u64,
    /// Its depth in plies below the root.
    pub depth: u32,
    /// Unsolved leaves not below a solved node: where the search may go next.
    pub open_leaves: u64,
    /// Work over every run.
    pub totals: Totals,
    /// The root's numbers over the question's search time, oldest first.
    pub trend: Vec<TrendSample>,
}

/// The campaign on `pos` (or a symmetric image of it), if one was started; with `within`, the
/// campaign of its questions within so many plies. A kept tree that `campaign run` would
/// refuse is refused here too ([`DbError::DamagedTree`]).
pub fn campaign_status(
    database: &Database,
    pos: &Position,
    within: Option<u32>,
) -> Result<Option<CampaignStatus>, DbError> {
    let Some(campaign) = database.find_campaign(pos, within)? else {
        return Ok(None);
    };
    let (_, image, _) = canonical(pos);
    let known = database.lookup(&image)?;
    let side = image.side_to_move();
    let mut questions = Vec::new();
    for attacker in [side, side.opponent()] {
        let question = Question { campaign, attacker };
        let tree = database.kept_tree(question)?;
        if let Some(defect) = kept_tree_defect(&tree, &image) {
            return Err(database.damaged_tree(defect));
        }
        let shape = TreeShape::of(&tree);
        questions.push(QuestionStatus {
            attacker,
            // An unbounded question's own answer; a bounded one's from every fact that
            // reaches its bound.
            answer: match within {
                None => known.of(attacker),
                Some(_) => known.answer(attacker, within),
            }
            .map(|answer| answer.wins),
            root: tree.first().map(|root| Numbers {
                phi: root.phi,
                delta: root.delta,
            }),
            tree_nodes: tree.len() as u64,
            depth: shape.depth,
            open_leaves: shape.open_leaves,
            totals: database.totals(question)?,
            trend: database.trend(question)?,
        });
    }
    Ok(Some(CampaignStatus {
        position: image,
        max_plies: within,
        questions,
        guide: database.kept_guide(campaign)?,
    }))
}

/// Drops the kept trees of the campaign on `pos` (`within`: its bounded one), so that the next
/// run starts them anew; the facts it settled stay, and answer the next run's leaves at once.
/// The way out of a tree that is damaged ([`DbError::DamagedTree`]). Refused while another
/// process runs the campaign ([`DbError::CampaignBusy`]). Returns the nodes dropped, `None`
/// when there is no such campaign.
pub fn reset_campaign(
    database: &Database,
    pos: &Position,
    within: Option<u32>,
) -> Result<Option<u64>, DbError> {
    let Some(campaign) = database.find_campaign(pos, within)? else {
        return Ok(None);
    };
    database.take_lease(campaign)?;
    let dropped = database.drop_kept_trees(campaign);
    // A lease not given back is taken over by the next run; the trees' fate is the answer.
    let _ = database.release_lease(campaign);
    dropped.map(Some)
}

/// The depth and open leaves of a kept tree.
struct TreeShape {
    depth: u32,
    open_leaves: u64,
}

impl TreeShape {
    fn of(tree: &[KeptNode]) -> TreeShape {
        let mut shape = TreeShape {
            depth: 0,
            open_leaves: 0,
        };
        if tree.is_empty() {
            return shape;
        }
        // (node, depth, whether every node above is unsolved). A tree visits each node once:
        // a damaged file whose links loop ends the walk after as many visits as nodes.
        let mut stack = vec![(0u32, 0u32, true)];
        let mut visits = 0usize;
        while let Some((id, depth, open_path)) = stack.pop() {
            visits += 1;
            if visits > tree.len() {
                break;
            }
            let node = tree[id as usize];
            shape.depth = shape.depth.max(depth);
            let open = open_path && node.phi != 0 && node.delta != 0;
            if node.first_child == NO_NODE {
                shape.open_leaves += u64::from(open);
            }
            let mut child = node.first_child;
            let mut siblings = 0usize;
            while child != NO_NODE && siblings < tree.len() {
                stack.push((child, depth + 1, open));
                child = tree[child as usize].next_sibling;
                siblings += 1;
            }
        }
        shape
    }
}

/// A campaign's settled answer with what is needed to certify it: its canonical position, the
/// verdict stored for it, and each question's kept tree.
pub struct SettledCampaign {
    /// The campaign's position, in the canonical orientation its trees are kept in.
    pub position: Position,
    /// The value stored for it.
    pub verdict: Verdict,
    /// Each question's attacker and kept tree (empty where none was kept).
    pub trees: Vec<(Player, Vec<KeptNode>)>,
}

/// The campaign on `pos` once it has settled the position's value: `Ok(None)` when there is
/// no campaign on it, or its value is not yet known.
pub fn settled_campaign(
    database: &Database,
    pos: &Position,
) -> Result<Option<SettledCampaign>, DbError> {
    let Some(campaign) = database.find_campaign(pos, None)? else {
        return Ok(None);
    };
    let (_, image, _) = canonical(pos);
    let known = database.lookup(&image)?;
    let side = image.side_to_move();
    let wins = |player: Player| known.of(player).map(|answer| answer.wins);
    let verdict = match (wins(side), wins(side.opponent())) {
        (Some(true), _) => Verdict::Wins(side),
        (_, Some(true)) => Verdict::Wins(side.opponent()),
        (Some(false), Some(false)) => Verdict::Draw,
        _ => return Ok(None),
    };
    let mut trees = Vec::new();
    for attacker in [Player::X, Player::O] {
        trees.push((
            attacker,
            database.kept_tree(Question { campaign, attacker })?,
        ));
    }
    Ok(Some(SettledCampaign {
        position: image,
        verdict,
        trees,
    }))
}
