//! Campaigns in the database: the root proof-number tree of each question of a long solve,
//! kept node by node, so that a campaign stopped at any moment (Ctrl-C, `kill -9`, a power cut)
//! resumes from the last jobs it recorded; with the totals of its work and the trend of its
//! root's numbers.
//!
//! What some merged jobs changed (their nodes, the facts they settled, the totals) is one
//! transaction ([`Database::record`]), so the file always holds a tree as it stood after some
//! whole number of jobs: an interrupted campaign loses the jobs in flight and those not yet
//! committed (and, after a power cut, the last transactions the operating system had not yet
//! written: SQLite's write-ahead log at `synchronous = NORMAL` keeps the file consistent, not
//! every last commit).
//!
//! A bounded question ("does X win within N plies?") has a campaign of its own for each bound,
//! its key the position's with the bound after it.

pub mod guide;
pub mod lease;

use super::{clamp, key, Database, DbError, Fact, Stored, BUSY_TIMEOUT};
use crate::game::{Move, Player, Position};
use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::Serialize;
use std::time::Duration;

/// The campaign tables, created with the facts table or added to a version-1 file.
pub(super) const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS campaigns (
        id INTEGER PRIMARY KEY,
        position BLOB NOT NULL UNIQUE,
        notation TEXT NOT NULL,
        created INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS campaign_totals (
        campaign INTEGER NOT NULL REFERENCES campaigns (id),
        attacker TEXT NOT NULL CHECK (attacker IN ('X', 'O')),
        runs INTEGER NOT NULL,
        jobs INTEGER NOT NULL,
        nodes INTEGER NOT NULL,
        seconds REAL NOT NULL,
        PRIMARY KEY (campaign, attacker)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS campaign_nodes (
        campaign INTEGER NOT NULL REFERENCES campaigns (id),
        attacker TEXT NOT NULL CHECK (attacker IN ('X', 'O')),
        id INTEGER NOT NULL,
        first_child INTEGER NOT NULL,
        next_sibling INTEGER NOT NULL,
        phi INTEGER NOT NULL,
        delta INTEGER NOT NULL,
        work INTEGER NOT NULL,
        square INTEGER NOT NULL,
        PRIMARY KEY (campaign, attacker, id)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS campaign_trend (
        campaign INTEGER NOT NULL REFERENCES campaigns (id),
        attacker TEXT NOT NULL CHECK (attacker IN ('X', 'O')),
        seconds REAL NOT NULL,
        nodes INTEGER NOT NULL,
        phi INTEGER NOT NULL,
        delta INTEGER NOT NULL
    );";

/// "No node" in a kept node's links.
pub const NO_NODE: u32 = u32::MAX;

/// A campaign: a position (in its canonical orientation, see [`key`]) whose root trees the
/// database keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CampaignId(i64);

/// One question of a campaign: "does `attacker` win at its position?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Question {
    /// The campaign.
    pub campaign: CampaignId,
    /// The question's player.
    pub attacker: Player,
}

/// A node of a campaign's root tree as kept: ids are dense from 0 (the root), children are
/// linked first-child/next-sibling, and a node's position is its root's after the squares of
/// the moves on its path. Numbers are for the side to move at the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct KeptNode {
    /// The node's id.
    pub id: u32,
    /// Its first child, or [`NO_NODE`].
    pub first_child: u32,
    /// The next child of its parent, or [`NO_NODE`].
    pub next_sibling: u32,
    /// Proof number.
    pub phi: u32,
    /// Disproof number.
    pub delta: u32,
    /// Job work (MID calls) at or below the node, saturating.
    pub work: u32,
    /// The square of the move from its parent (0 for the root).
    pub square: u8,
}

/// A question's work over every run of its campaign.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Runs that searched it.
    pub runs: u64,
    /// Jobs merged.
    pub jobs: u64,
    /// MID calls of the merged jobs.
    pub nodes: u64,
    /// Wall-clock seconds spent searching it.
    pub seconds: f64,
}

/// The root's numbers at one moment of a question's search.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TrendSample {
    /// The question's search time so far, over every run.
    pub seconds: f64,
    /// Its MID calls so far.
    pub nodes: u64,
    /// The root's proof number.
    pub phi: u32,
    /// The root's disproof number.
    pub delta: u32,
}

/// What merging some jobs changed, to keep in one transaction.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress<'a> {
    /// The tree's nodes that changed or are new.
    pub nodes: &'a [KeptNode],
    /// Facts the jobs settled (solved leaves).
    pub facts: &'a [Fact],
    /// Jobs merged.
    pub jobs: u64,
    /// Their MID calls.
    pub work: u64,
    /// Wall-clock seconds since the last record.
    pub seconds: f64,
    /// A sample of the root's numbers for the trend, when one is due.
    pub sample: Option<TrendSample>,
    /// Whether this is a run's first record: it counts the run (so a run counts only once it
    /// has kept something).
    pub begins_run: bool,
}

fn letter(attacker: Player) -> String {
    attacker.letter().to_string()
}

/// The key of the campaign on `pos` (any of its symmetric images) for questions within
/// `within` plies, if bounded: the position's canonical key, and the bound's byte after it for
/// a bounded campaign (so each bound is a campaign of its own, kept apart from the unbounded
/// one); and its notation, for people reading the file.
fn campaign_key(pos: &Position, within: Option<u32>) -> (Vec<u8>, String) {
    let (key, image, _) = key::canonical(pos);
    let mut key = key.to_vec();
    let mut notation = image.to_string();
    if let Some(plies) = within {
        key.push(plies.min(u32::from(u8::MAX)) as u8);
        notation += &format!(" within {plies} plies");
    }
    (key, notation)
}

impl Database {
    /// The campaign on `pos` (or any of its symmetric images), created if there is none; with
    /// `within`, the campaign of its questions within so many plies.
    pub fn campaign(&self, pos: &Position, within: Option<u32>) -> Result<CampaignId, DbError> {
        if let Some(id) = self.find_campaign(pos, within)? {
            return Ok(id);
        }
        let (key, notation) = campaign_key(pos, within);
        let created = super::now_seconds();
        let conn = self.connection();
        conn.execute(
            "INSERT OR IGNORE INTO campaigns (position, notation, created) VALUES (?1, ?2, ?3)",
            params![&key[..], notation, clamp(created)],
        )
        .map_err(|e| self.query_error(e))?;
        conn.query_row(
            "SELECT id FROM campaigns WHERE position = ?1",
            params![&key[..]],
            |row| row.get(0),
        )
        .map(CampaignId)
        .map_err(|e| self.query_error(e))
    }

    /// The campaign on `pos` (or any of its symmetric images), with `within` its bounded
    /// one, if one was started.
    pub fn find_campaign(
        &self,
        pos: &Position,
        within: Option<u32>,
    ) -> Result<Option<CampaignId>, DbError> {
        let (key, _) = campaign_key(pos, within);
        self.connection()
            .query_row(
                "SELECT id FROM campaigns WHERE position = ?1",
                params![&key[..]],
                |row| row.get(0),
            )
            .optional()
            .map(|id| id.map(CampaignId))
            .map_err(|e| self.query_error(e))
    }

    /// The root tree kept for `question`, root first, in id order; empty when none was kept.
    /// A tree whose ids or links are out of order is refused as damaged.
    pub fn kept_tree(&self, question: Question) -> Result<Vec<KeptNode>, DbError> {
        let conn = self.connection();
        let mut statement = conn
            .prepare_cached(
                "SELECT id, first_child, next_sibling, phi, delta, work, square
                 FROM campaign_nodes WHERE campaign = ?1 AND attacker = ?2 ORDER BY id",
            )
            .map_err(|e| self.query_error(e))?;
        let rows = statement
            .query_map(
                params![question.campaign.0, letter(question.attacker)],
                |row| {
                    let mut values = [0i64; 7];
                    for (i, value) in values.iter_mut().enumerate() {
                        *value = row.get(i)?;
                    }
                    Ok(values)
                },
            )
            .map_err(|e| self.query_error(e))?;
        let mut nodes = Vec::new();
        for row in rows {
            let values = row.map_err(|e| self.query_error(e))?;
            let node = kept_node(&values).ok_or_else(|| self.damaged_row(&values))?;
            if node.id as usize != nodes.len() {
                return Err(self.damaged_row(&values));
            }
            nodes.push(node);
        }
        let count = nodes.len() as u64;
        let linked = |link: u32| link == NO_NODE || u64::from(link) < count;
        if let Some(bad) = nodes
            .iter()
            .find(|n| !linked(n.first_child) || !linked(n.next_sibling))
        {
            let n = bad;
            return Err(self.damaged_row(&[
                n.id.into(),
                n.first_child.into(),
                n.next_sibling.into(),
                n.phi.into(),
                n.delta.into(),
                n.work.into(),
                n.square.into(),
            ]));
        }
        Ok(nodes)
    }

    /// Drops the kept trees of both questions of `campaign` (their totals, trend and the facts
    /// stay); only under its lease ([`Database::take_lease`]). Returns the nodes dropped.
    pub fn drop_kept_trees(&self, campaign: CampaignId) -> Result<u64, DbError> {
        let mut conn = self.connection();
        let transaction = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.query_error(e))?;
        self.check_lease(&transaction, campaign)?;
        let dropped = transaction
            .execute(
                "DELETE FROM campaign_nodes WHERE campaign = ?1",
                params![campaign.0],
            )
            .map_err(|e| self.query_error(e))?;
        transaction.commit().map_err(|e| self.query_error(e))?;
        Ok(dropped as u64)
    }

    fn damaged_row(&self, values: &[i64]) -> DbError {
        self.damaged_tree(format!("a node's row out of range: {values:?}"))
    }

    /// The error for a campaign tree the search cannot take whole: `defect` says why (see
    /// [`kept_tree_defect`]).
    pub fn damaged_tree(&self, defect: String) -> DbError {
        DbError::DamagedTree {
            path: self.path.clone(),
            defect,
        }
    }

    /// The error for a file whose content is damaged: `what` says how.
    pub fn damaged(&self, what: &str) -> DbError {
        DbError::NotADatabase {
            path: self.path.clone(),
            problem: what.to_string(),
        }
    }

    /// Keeps `progress` of `question` in one transaction: all of it or, after an error, none.
    /// Waits for another process's write as [`Database::store`] does. Only under the
    /// campaign's lease ([`Database::take_lease`]): without it, [`DbError::LeaseLost`].
    pub fn record(&self, question: Question, progress: &Progress) -> Result<Stored, DbError> {
        self.record_waiting(question, progress, BUSY_TIMEOUT)
    }

    /// [`Database::record`], waiting at most `wait` for another process's write (see
    /// [`Database::store_waiting`]).
    pub fn record_waiting(
        &self,
        question: Question,
        progress: &Progress,
        wait: Duration,
    ) -> Result<Stored, DbError> {
        let (campaign, attacker) = (question.campaign.0, letter(question.attacker));
        let mut conn = self.connection_waiting(wait)?;
        let transaction = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.query_error(e))?;
        // One writer per campaign: a run that lost its lease writes nothing more.
        self.check_lease(&transaction, question.campaign)?;
        let stored = self.store_in(&transaction, progress.facts)?;
        let query = |e| self.query_error(e);
        {
            let mut put = transaction
                .prepare_cached(
                    "INSERT OR REPLACE INTO campaign_nodes
                     (campaign, attacker, id, first_child, next_sibling, phi, delta, work, square)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )
                .map_err(query)?;
            for n in progress.nodes {
                put.execute(params![
                    campaign,
                    attacker,
                    n.id,
                    n.first_child,
                    n.next_sibling,
                    n.phi,
                    n.delta,
                    n.work,
                    n.square
                ])
                .map_err(query)?;
            }
        }
        transaction
            .execute(
                "INSERT INTO campaign_totals (campaign, attacker, runs, jobs, nodes, seconds)
                 VALUES (?1, ?2, ?6, ?3, ?4, ?5)
                 ON CONFLICT (campaign, attacker) DO UPDATE SET runs = runs + ?6,
                     jobs = jobs + ?3, nodes = nodes + ?4, seconds = seconds + ?5",
                params![
                    campaign,
                    attacker,
                    clamp(progress.jobs),
                    clamp(progress.work),
                    progress.seconds,
                    i64::from(progress.begins_run)
                ],
            )
            .map_err(query)?;
        if let Some(sample) = progress.sample {
            transaction
                .execute(
                    "INSERT INTO campaign_trend (campaign, attacker, seconds, nodes, phi, delta)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![
                        campaign,
                        attacker,
                        sample.seconds,
                        clamp(sample.nodes),
                        sample.phi,
                        sample.delta
                    ],
                )
                .map_err(query)?;
        }
        transaction.commit().map_err(query)?;
        Ok(stored)
    }

    /// `question`'s totals over every run (zero when it was never searched).
    pub fn totals(&self, question: Question) -> Result<Totals, DbError> {
        self.connection()
            .query_row(
                "SELECT runs, jobs, nodes, seconds FROM campaign_totals
                 WHERE campaign = ?1 AND attacker = ?2",
                params![question.campaign.0, letter(question.attacker)],
                |row| {
                    Ok(Totals {
                        runs: row.get::<_, i64>(0)?.max(0) as u64,
                        jobs: row.get::<_, i64>(1)?.max(0) as u64,
                        nodes: row.get::<_, i64>(2)?.max(0) as u64,
                        seconds: row.get(3)?,
                    })
                },
            )
            .optional()
            .map(Option::unwrap_or_default)
            .map_err(|e| self.query_error(e))
    }

    /// `question`'s trend samples, oldest first.
    pub fn trend(&self, question: Question) -> Result<Vec<TrendSample>, DbError> {
        let conn = self.connection();
        let mut statement = conn
            .prepare_cached(
                "SELECT seconds, nodes, phi, delta FROM campaign_trend
                 WHERE campaign = ?1 AND attacker = ?2 ORDER BY seconds",
            )
            .map_err(|e| self.query_error(e))?;
        let rows = statement
            .query_map(
                params![question.campaign.0, letter(question.attacker)],
                |row| {
                    Ok(TrendSample {
                        seconds: row.get(0)?,
                        nodes: row.get::<_, i64>(1)?.max(0) as u64,
                        phi: row.get(2)?,
                        delta: row.get(3)?,
                    })
                },
            )
            .map_err(|e| self.query_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.query_error(e))
    }
}

/// What keeps the kept tree `nodes` (as [`Database::kept_tree`] gives it, its links in range)
/// from being a tree the search can take whole at `root`, or `None` when nothing does: every
/// node but the root must be linked exactly once (as a first child or a next sibling), the
/// root never, so that following the links reaches each node once and never loops; and every
/// child's square must be a legal move of its parent, no two siblings playing the same one.
/// The search follows these links as they are (a loop would hang it, a node of two parents
/// take the results of both), so a damaged file is refused before it starts.
pub fn kept_tree_defect(nodes: &[KeptNode], root: &Position) -> Option<String> {
    if nodes.is_empty() {
        return None;
    }
    let mut linked = vec![false; nodes.len()];
    linked[0] = true;
    let mut stack = vec![(0usize, *root)];
    // Each pass of the inner loop links a node not linked before, or returns.
    while let Some((parent, pos)) = stack.pop() {
        let mut squares = 0u128;
        let mut link = nodes[parent].first_child;
        while let Some(child) = nodes.get(link as usize) {
            let id = link as usize;
            if std::mem::replace(&mut linked[id], true) {
                return Some(format!("node {id} is linked twice"));
            }
            let square = child.square;
            let mv = (square < 81).then(|| Move::from_square(usize::from(square)));
            let Some(mv) = mv.filter(|&mv| pos.is_legal(mv)) else {
                return Some(format!(
                    "node {id}'s square {square} is no legal move there"
                ));
            };
            if squares & (1 << square) != 0 {
                return Some(format!(
                    "two children of node {parent} play square {square}"
                ));
            }
            squares |= 1 << square;
            stack.push((id, pos.play(mv)));
            link = child.next_sibling;
        }
    }
    let unlinked = linked.iter().filter(|&&l| !l).count();
    (unlinked > 0).then(|| format!("{unlinked} of its {} nodes are not linked", nodes.len()))
}

/// Calls `f` with every node of the kept tree `nodes` (as [`Database::kept_tree`] gives it)
/// and its position, the tree's root being `root`, parents before children. Each node is
/// visited at most once and a sibling chain followed at most as far as there are nodes, so
/// links that loop (a damaged file) cannot hang it; a child whose square is not a legal move
/// of its parent (a damaged file, or a tree kept for another position) is left out with its
/// subtree.
pub fn walk_kept_tree(
    nodes: &[KeptNode],
    root: &Position,
    mut f: impl FnMut(&KeptNode, &Position),
) {
    if nodes.is_empty() {
        return;
    }
    let mut seen = vec![false; nodes.len()];
    let mut stack = vec![(0u32, *root)];
    while let Some((id, pos)) = stack.pop() {
        let Some(node) = nodes.get(id as usize) else {
            continue;
        };
        if std::mem::replace(&mut seen[id as usize], true) {
            continue;
        }
        f(node, &pos);
        for (child, mv) in kept_children(nodes, node, &pos) {
            if !seen[child.id as usize] {
                stack.push((child.id, pos.play(mv)));
            }
        }
    }
}

/// The children of the kept-tree node `node` at `pos`, with the move to each: its sibling
/// chain, followed at most as far as there are nodes (links that loop, in a damaged file,
/// cannot hang it), leaving out a child whose square is not a legal move at `pos`.
pub fn kept_children<'n>(
    nodes: &'n [KeptNode],
    node: &KeptNode,
    pos: &Position,
) -> impl Iterator<Item = (&'n KeptNode, Move)> {
    let pos = *pos;
    std::iter::successors(nodes.get(node.first_child as usize), move |child| {
        nodes.get(child.next_sibling as usize)
    })
    .take(nodes.len())
    .map(|child| (child, Move::from_square(usize::from(child.square))))
    .filter(move |(_, mv)| pos.is_legal(*mv))
}

/// A kept node from its row's values, if every value is in range.
fn kept_node(values: &[i64; 7]) -> Option<KeptNode> {
    let small = |v: i64| u32::try_from(v).ok();
    Some(KeptNode {
        id: small(values[0]).filter(|&id| id != NO_NODE)?,
        first_child: small(values[1])?,
        next_sibling: small(values[2])?,
        phi: small(values[3])?,
        delta: small(values[4])?,
        work: small(values[5])?,
        square: u8::try_from(values[6]).ok().filter(|&s| s < 81)?,
    })
}

#[cfg(test)]
mod tests;
