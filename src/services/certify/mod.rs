//! Writing proof certificates (see [`crate::certificate`]) from a finished solve: the
//! prover's strategy is read from the table, and children the table has lost are solved
//! again. Runs only when a certificate is asked for; the search itself never pays for it.
//! [`write_and_check`] writes one to a file and has the independent verifier check it.

use super::campaign::SettledCampaign;
use super::report::Verdict;
use crate::certificate::{leaf, Block, Claim, ClaimKind, Goal, Visited, MAX_BOUND};
use crate::db::campaign::{kept_children, walk_kept_tree, KeptNode, NO_NODE};
use crate::db::key::{canonical, KEY_BYTES};
use crate::game::{Move, Player, Position};
use crate::search::dfpn::{Dfpn, Limits};
use crate::search::pn_dfpn::seed_table;
use crate::search::threads::{join_gated, spawn_gated};
use crate::search::Question;
use crate::table::Table;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

mod file;

pub use file::{
    write_and_check, write_and_check_with, CertificateFigures, CertificateFileError,
    CertificateRequest,
};

/// Why no certificate could be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CertifyError {
    /// The verdict is not an answer (a limit stopped the solve).
    Unsettled,
    /// A stop request ended the re-searches before the proof was complete.
    Stopped,
    /// No move of the prover's was found to keep the claim at a position: the claim or the
    /// search that made it is wrong.
    NoProvingMove {
        /// The claim being written.
        claim: Claim,
        /// Where.
        position: Position,
    },
    /// A leaf on the strategy's path fails the claim: the claim or the search is wrong.
    LeafFails {
        /// The claim being written.
        claim: Claim,
        /// The leaf.
        position: Position,
    },
}

impl fmt::Display for CertifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CertifyError::Unsettled => write!(f, "the solve settled nothing to certify"),
            CertifyError::Stopped => write!(f, "stopped before the certificate was complete"),
            CertifyError::NoProvingMove { claim, position } => write!(
                f,
                "no move keeps the claim `{claim}` in {position}: the solver is wrong here"
            ),
            CertifyError::LeafFails { claim, position } => write!(
                f,
                "the strategy for `{claim}` reaches {position}, which fails it: the solver is wrong here"
            ),
        }
    }
}

impl std::error::Error for CertifyError {}

/// The claims that certify `verdict`: one block for a win or a single-question answer, two
/// (`X holds`, `O holds`) for a draw. With `max_plies`, the answer of a question with that
/// bound ("does the attacker win within so many plies?"), which is a win or a single-question
/// answer: its claim carries the bound.
pub fn claims_for(verdict: Verdict, max_plies: Option<u32>) -> Vec<Claim> {
    // A bound past the last cell bounds nothing more than the last cell does.
    let within = max_plies.map(|plies| plies.min(u32::from(MAX_BOUND)) as u8);
    let claim = |prover, kind| Claim {
        prover,
        kind,
        within,
    };
    match verdict {
        Verdict::Wins(player) => vec![claim(player, ClaimKind::Wins)],
        Verdict::Draw => vec![
            claim(Player::X, ClaimKind::Holds),
            claim(Player::O, ClaimKind::Holds),
        ],
        Verdict::DoesNotWin(player) => vec![claim(player.opponent(), ClaimKind::Holds)],
        Verdict::Unknown => Vec::new(),
    }
}

/// A written certificate and what it cost.
#[derive(Clone, Debug)]
pub struct Certificate {
    /// The blocks: for a single solve one per claim, in the order of [`claims_for`]; for a
    /// campaign (see [`certify_campaign`]) the blocks at the position asked, then the top
    /// blocks, then the pieces.
    pub blocks: Vec<Block>,
    /// MID calls spent solving again children the table had lost.
    pub research_nodes: u64,
}

/// The certificate blocks of `verdict` at `pos` (the answer of a question within `max_plies`
/// plies, if bounded), read from `table` (which should hold the solve's work) with re-searches
/// (with the 1+ε trick's `epsilon`) where it lost entries. Raising `stop` ends it with
/// [`CertifyError::Stopped`]; no time or node limit applies.
pub fn certify(
    pos: &Position,
    verdict: Verdict,
    max_plies: Option<u32>,
    table: &Table,
    epsilon: f64,
    stop: &AtomicBool,
) -> Result<Certificate, CertifyError> {
    let limits = Limits::stop_only(stop);
    let claims = claims_to_certify(verdict, max_plies)?;
    let mut research_nodes = 0;
    let blocks = claims
        .into_iter()
        .map(|claim| {
            let attacker = attacker_of(claim);
            let question = match claim.within {
                Some(plies) => Question::wins_within(attacker, pos, plies.into()),
                None => Question::wins(attacker),
            };
            Writer::new(
                Goal::at(claim, pos),
                Dfpn::new(table, question, epsilon, limits),
            )
            .write(1, *pos, &mut research_nodes)
            .map(|(block, _)| block)
        })
        .collect::<Result<Vec<Block>, CertifyError>>()?;
    Ok(Certificate {
        blocks,
        research_nodes,
    })
}

/// The claims that certify `verdict` (see [`claims_for`]); an error when it is no answer.
fn claims_to_certify(verdict: Verdict, max_plies: Option<u32>) -> Result<Vec<Claim>, CertifyError> {
    let claims = claims_for(verdict, max_plies);
    if claims.is_empty() {
        return Err(CertifyError::Unsettled);
    }
    Ok(claims)
}

/// The attacker of the question whose answer `claim` is: the prover's win, or for `holds`
/// the disproof of the opponent's win.
fn attacker_of(claim: Claim) -> Player {
    match claim.kind {
        ClaimKind::Wins => claim.prover,
        ClaimKind::Holds => claim.prover.opponent(),
    }
}

/// The version-2 certificate of a settled `campaign`'s verdict at `asked`, an image of the
/// campaign's position `pos` (its canonical image) under one of the 8 symmetries.
///
/// When `asked` is not `pos` itself, the file opens with a block per claim at `asked` with no
/// moves: its root is a leaf by rule 4 (it equals the top block's position under a symmetry),
/// so the file's unreferenced blocks are about the position asked (a claim the rules settle
/// at the root has its top block at `asked` instead). Then, from the campaign's
/// kept trees (each question's attacker and nodes), for each claim one block at `pos` that
/// follows the tree of its question, read from `table` seeded with the tree's numbers, whose
/// leaves at the tree's solved leaves are references (rule 4) to blocks of their own after
/// the top blocks; each such piece is solved again on `table` (it was settled by jobs whose
/// tables are gone) and written as a proof that refers in turn to the pieces after it where
/// it meets them, `threads` pieces at a time. Pieces that are images of one another share one
/// block. Raising `stop` ends it with [`CertifyError::Stopped`].
pub fn certify_campaign(
    asked: &Position,
    campaign: &SettledCampaign,
    table: &Table,
    epsilon: f64,
    threads: usize,
    stop: &AtomicBool,
) -> Result<Certificate, CertifyError> {
    let pos = &campaign.position;
    debug_assert_eq!(
        canonical(asked).0,
        canonical(pos).0,
        "{asked} is not an image of the campaign's position {pos}"
    );
    let limits = Limits::stop_only(stop);
    let claims = claims_to_certify(campaign.verdict, None)?;
    let mut research_nodes = 0;
    let mut tops = Vec::new();
    // The pieces the top blocks refer to, by canonical key, in the order first referred to.
    let mut pieces: Vec<(Claim, Position)> = Vec::new();
    let mut piece_keys = HashSet::new();
    for &claim in &claims {
        let attacker = attacker_of(claim);
        let kept = campaign
            .trees
            .iter()
            .find(|(a, _)| *a == attacker)
            .map_or(&[][..], |(_, nodes)| &nodes[..]);
        seed_table(kept, pos, Question::wins(attacker), table);
        let (solved_leaves, tree_moves) = kept_proof(kept, pos, claim);
        let mut writer = Writer::new(
            Goal::at(claim, pos),
            Dfpn::new(table, Question::wins(attacker), epsilon, limits),
        );
        let is_solved_leaf = |key: &[u8; KEY_BYTES]| solved_leaves.contains(key);
        writer.pieces = Some(&is_solved_leaf);
        writer.tree_moves = Some(&tree_moves);
        let (top, referenced) = writer.write(2, *pos, &mut research_nodes)?;
        for (key, piece) in referenced {
            if piece_keys.insert((key, claim)) {
                pieces.push((claim, piece));
            }
        }
        tops.push(top);
    }
    let (piece_blocks, piece_nodes) = write_pieces(&pieces, table, epsilon, limits, threads)?;
    research_nodes += piece_nodes;
    let mut blocks = Vec::new();
    if asked != pos {
        for top in &mut tops {
            if leaf(asked, Goal::at(top.claim, asked)) == Some(true) {
                // The rules settle the root, in every image: the top block has no moves, and
                // a block referring to it would leave it unreferenced, a top of its own.
                top.position = *asked;
            } else {
                blocks.push(Block {
                    version: 2,
                    claim: top.claim,
                    position: *asked,
                    moves: Vec::new(),
                });
            }
        }
    }
    blocks.extend(tops);
    blocks.extend(piece_blocks);
    Ok(Certificate {
        blocks,
        research_nodes,
    })
}

/// What a campaign's kept tree `kept` (at `pos`) shows of the proof of `claim`: its leaves
/// solved for the prover (by canonical key: the pieces, which have blocks of their own), and
/// at each inner node proved with the prover to move, the move to a child the tree shows
/// proved (of least recorded work). The writer takes those moves before the table: the table
/// seeded from the tree loses entries to the re-searches' stores, and a tree node whose
/// proving child was evicted would be solved again from scratch.
fn kept_proof(
    kept: &[KeptNode],
    pos: &Position,
    claim: Claim,
) -> (HashSet<[u8; KEY_BYTES]>, HashMap<Position, Move>) {
    let mut solved_leaves = HashSet::new();
    let mut tree_moves = HashMap::new();
    walk_kept_tree(kept, pos, |node, here| {
        let side_is_prover = here.side_to_move() == claim.prover;
        if !proved_for_prover(node, side_is_prover) {
            return;
        }
        if node.first_child == NO_NODE {
            solved_leaves.insert(canonical(here).0);
        } else if side_is_prover {
            let proving = kept_children(kept, node, here)
                .filter(|(child, _)| proved_for_prover(child, false))
                .min_by_key(|(child, _)| child.work);
            if let Some((_, mv)) = proving {
                tree_moves.insert(*here, mv);
            }
        }
    });
    (solved_leaves, tree_moves)
}

/// Whether a kept node's numbers show its position proved for the prover: its side to move
/// reaches its goal when that side is the prover (φ = 0), fails it when not (δ = 0).
fn proved_for_prover(node: &KeptNode, side_is_prover: bool) -> bool {
    if side_is_prover {
        node.phi == 0
    } else {
        node.delta == 0
    }
}

/// Each piece's own block, in the order of `pieces`, and the MID calls spent solving them
/// again; written by `threads` threads at once, sharing `table`.
///
/// The verifier treats a position of a later block of the same claim as a leaf (rule 4)
/// wherever it meets one, so the writer of a piece must stop there too, and only there (a
/// reference points later): the traversal of piece `i` stops at the pieces of its claim
/// placed after `i`. Nothing else ties the pieces together, so they are written in any order.
fn write_pieces(
    pieces: &[(Claim, Position)],
    table: &Table,
    epsilon: f64,
    limits: Limits,
    threads: usize,
) -> Result<(Vec<Block>, u64), CertifyError> {
    // Each piece's place in the file, by claim and canonical key.
    let places: HashMap<(Claim, [u8; KEY_BYTES]), usize> = pieces
        .iter()
        .enumerate()
        .map(|(i, &(claim, piece))| ((claim, canonical(&piece).0), i))
        .collect();
    let next = AtomicUsize::new(0);
    // Raised by the first piece that fails, so that the other threads stop taking pieces.
    let failed = AtomicBool::new(false);
    let write_some = || {
        let mut written = Vec::new();
        let mut research_nodes = 0;
        while !failed.load(Ordering::Relaxed) && !limits.reached() {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&(claim, piece)) = pieces.get(i) else {
                break;
            };
            let mut searcher =
                Dfpn::new(table, Question::wins(attacker_of(claim)), epsilon, limits);
            searcher.solve(&piece, u64::MAX);
            let block = if searcher.was_stopped() {
                Err(CertifyError::Stopped)
            } else {
                let later = |key: &[u8; KEY_BYTES]| {
                    places.get(&(claim, *key)).is_some_and(|&place| place > i)
                };
                let mut writer = Writer::new(Goal::at(claim, &piece), searcher);
                writer.pieces = Some(&later);
                writer
                    .write(2, piece, &mut research_nodes)
                    .map(|(block, _)| block)
            };
            if block.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            written.push((i, block));
        }
        (written, research_nodes)
    };
    let per_thread: Vec<_> = std::thread::scope(|scope| {
        let count = threads.clamp(1, pieces.len().max(1));
        match spawn_gated(scope, count, |_| write_some) {
            Ok(handles) => handles.into_iter().map(join_gated).collect(),
            // Threads the system will not start: the pieces are written on this one, the
            // same blocks, only later.
            Err(_) => vec![write_some()],
        }
    });
    let mut slots: Vec<Option<Block>> = vec![None; pieces.len()];
    let mut research_nodes = 0;
    // A failure of the proof itself outranks a stop request.
    let mut error: Option<CertifyError> = None;
    for (written, nodes) in per_thread {
        research_nodes += nodes;
        for (i, block) in written {
            match block {
                Ok(block) => slots[i] = Some(block),
                Err(e) if error.is_none() || error == Some(CertifyError::Stopped) => {
                    error = Some(e)
                }
                Err(_) => {}
            }
        }
    }
    if let Some(error) = error {
        return Err(error);
    }
    // Every piece was written unless a limit stopped the threads first.
    let blocks = slots
        .into_iter()
        .collect::<Option<Vec<Block>>>()
        .ok_or(CertifyError::Stopped)?;
    Ok((blocks, research_nodes))
}

struct Writer<'a, 'p> {
    goal: Goal,
    searcher: Dfpn<'a>,
    visited: Visited,
    moves: Vec<u8>,
    /// Where the traversal stops: positions proved by blocks of their own later in the file
    /// (rule 4 of version 2).
    pieces: Option<&'p IsPiece<'p>>,
    /// Proving moves a campaign's kept tree shows, by position (exactly: an image of a
    /// position needs the image of its move), tried before the table.
    tree_moves: Option<&'p HashMap<Position, Move>>,
    /// The pieces the traversal met, in order.
    referenced: Referenced,
}

/// Whether a position (by its canonical key) is proved by a block of its own later in the
/// file.
type IsPiece<'p> = dyn Fn(&[u8; KEY_BYTES]) -> bool + 'p;

/// The pieces a traversal referred to: their canonical keys and positions as met.
type Referenced = Vec<([u8; KEY_BYTES], Position)>;

impl<'a> Writer<'a, '_> {
    /// The block of format `version` for the writer's claim at `position`, and the pieces its
    /// traversal referred to; the MID calls it spent searching again are added to
    /// `research_nodes`.
    fn write(
        mut self,
        version: u8,
        position: Position,
        research_nodes: &mut u64,
    ) -> Result<(Block, Referenced), CertifyError> {
        self.visit(position)?;
        *research_nodes += self.searcher.nodes();
        let block = Block {
            version,
            claim: self.goal.claim,
            position,
            moves: self.moves,
        };
        Ok((block, self.referenced))
    }

    fn new(goal: Goal, searcher: Dfpn<'a>) -> Self {
        Writer {
            goal,
            searcher,
            visited: Visited::default(),
            moves: Vec::new(),
            pieces: None,
            tree_moves: None,
            referenced: Vec::new(),
        }
    }

    /// The traversal of the format, choosing the prover's moves.
    fn visit(&mut self, pos: Position) -> Result<(), CertifyError> {
        if !self.visited.insert(pos) {
            return Ok(());
        }
        match leaf(&pos, self.goal) {
            Some(true) => return Ok(()),
            Some(false) => {
                return Err(CertifyError::LeafFails {
                    claim: self.goal.claim,
                    position: pos,
                })
            }
            None => {}
        }
        if let Some(is_piece) = self.pieces {
            let key = canonical(&pos).0;
            if is_piece(&key) {
                self.referenced.push((key, pos));
                return Ok(());
            }
        }
        if pos.side_to_move() == self.goal.claim.prover {
            let from_tree = self.tree_moves.and_then(|moves| moves.get(&pos).copied());
            let mv = match from_tree {
                Some(mv) => mv,
                None => self.proving_move(&pos)?,
            };
            self.moves.push(mv.square() as u8);
            self.visit(pos.play(mv))
        } else {
            for mv in pos.legal_moves() {
                self.visit(pos.play(mv))?;
            }
            Ok(())
        }
    }

    /// A move after which the opponent (to move) fails the question: one the table or the
    /// rules already show, a leaf of the certificate first, else the one with the least
    /// recorded work among them, then the fewest replies (smaller proofs);
    /// else one a re-search of the position shows; else the first a re-search of the children
    /// shows, trying them in order of their disproof numbers.
    fn proving_move(&mut self, pos: &Position) -> Result<Move, CertifyError> {
        let mut children: Vec<(Move, Position, u32)> = pos
            .legal_moves()
            .map(|mv| {
                let child = pos.play(mv);
                (mv, child, self.searcher.peek(&child).delta)
            })
            .collect();
        // A child that is a leaf of the certificate costs it nothing; one the static rules
        // settle has no recorded work, yet the certificate spells its proof out.
        let known = children
            .iter()
            .filter(|c| c.2 == 0)
            .map(|c| {
                let is_leaf = leaf(&c.1, self.goal) == Some(true);
                let work = self.searcher.recorded_work(&c.1);
                (!is_leaf, work, c.1.legal_moves().len(), c.0)
            })
            .min()
            .map(|(_, _, _, mv)| mv);
        if let Some(mv) = known {
            return Ok(mv);
        }
        // The table lost this part of the proof: solve the position again, which leaves a
        // proving child in the table; a search of the position moves between its children as
        // their numbers say, where solving one child after another would finish the disproof
        // of every child tried before the proving one.
        self.searcher.solve(pos, u64::MAX);
        if self.searcher.was_stopped() {
            return Err(CertifyError::Stopped);
        }
        let proved = children
            .iter()
            .find(|c| self.searcher.peek(&c.1).delta == 0)
            .map(|c| c.0);
        if let Some(mv) = proved {
            return Ok(mv);
        }
        // Replacement may have pushed the child's entry out again: one child at a time.
        children.sort_by_key(|c| c.2);
        for (mv, child, _) in children {
            if self.searcher.solve(&child, u64::MAX).delta == 0 {
                return Ok(mv);
            }
            if self.searcher.was_stopped() {
                return Err(CertifyError::Stopped);
            }
        }
        Err(CertifyError::NoProvingMove {
            claim: self.goal.claim,
            position: *pos,
        })
    }
}
