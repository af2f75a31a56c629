//! The `--shallow` bound: how much of a solve's work lies under positions that a plain AND/OR
//! search of a few plies over the static rules settles, the most a static rule of that depth
//! could save.

use crate::Watch;
use uttt::game::{MoveSet, Position};
use uttt::search::rules::{evaluate, Evaluation};
use uttt::search::{table_key, Numbers, Question};

/// The deepest `--shallow` search.
pub const MAX_SHALLOW: usize = 6;

/// Calls under the outermost called positions that a shallow search settles, for each depth
/// bound (index: the bound, 1 to [`MAX_SHALLOW`]) and who the settlement favours (index 0:
/// the attacker wins, 1: the defender holds).
#[derive(Clone, Copy, Default)]
pub struct Covered {
    calls: [[u64; 2]; MAX_SHALLOW + 1],
    visits: [[u64; 2]; MAX_SHALLOW + 1],
}

impl Covered {
    pub fn add(&mut self, other: &Covered) {
        for depth in 0..=MAX_SHALLOW {
            for kind in 0..2 {
                self.calls[depth][kind] += other.calls[depth][kind];
                self.visits[depth][kind] += other.visits[depth][kind];
            }
        }
    }
}

/// How much of a solve's work lies under positions that a plain AND/OR search of a few plies
/// over the static rules ([`evaluate`]) settles: the most any static rule of that depth (a
/// kill, a trap chain) could save there, since such a rule would settle them without search.
pub struct Shallow {
    question: Question,
    max_depth: usize,
    /// Evaluations a shallow search may spend at each depth before it gives up.
    budget: u64,
    /// Each position's settlement: the depth and whether the attacker wins; `None` when not
    /// within `max_depth` (or the budget).
    memo: std::collections::HashMap<u64, Option<(usize, usize)>>,
    /// Returns not yet claimed by their parent: (work, covered).
    pending: Vec<(u64, Covered)>,
    /// Positions whose shallow search ran out of budget.
    pub over_budget: u64,
}

impl Shallow {
    pub fn new(question: Question, max_depth: usize) -> Shallow {
        Shallow {
            question,
            max_depth: max_depth.min(MAX_SHALLOW),
            budget: 4_000,
            memo: Default::default(),
            pending: Vec::new(),
            over_budget: 0,
        }
    }

    /// The settlement of `pos` (see `memo`).
    fn settlement(&mut self, pos: &Position) -> Option<(usize, usize)> {
        let key = table_key(pos, self.question);
        if let Some(known) = self.memo.get(&key) {
            return *known;
        }
        let mut found = None;
        for depth in 1..=self.max_depth {
            let mut budget = self.budget;
            if let Some(reaches) = settle(pos, self.question, depth, &mut budget) {
                let attacker_wins = (pos.side_to_move() == self.question.attacker) == reaches;
                found = Some((depth, usize::from(!attacker_wins)));
                break;
            }
            if budget == 0 {
                self.over_budget += 1;
                break;
            }
        }
        self.memo.insert(key, found);
        found
    }

    /// Every call's covered calls, summed over the calls no parent claimed (the roots).
    pub fn total(&self) -> Covered {
        let mut total = Covered::default();
        for (_, covered) in &self.pending {
            total.add(covered);
        }
        total
    }
}

impl Watch for Shallow {
    fn returned(&mut self, pos: &Position, _: Numbers, work: u64) {
        let mut children = Covered::default();
        let mut children_work = 0;
        while children_work + 1 < work {
            let (child_work, covered) = self.pending.pop().expect("a child call returned before");
            children_work += child_work;
            children.add(&covered);
        }
        let mut covered = children;
        if let Some((depth, kind)) = self.settlement(pos) {
            for bound in depth..=MAX_SHALLOW {
                covered.calls[bound] = [0, 0];
                covered.visits[bound] = [0, 0];
                covered.calls[bound][kind] = work;
                covered.visits[bound][kind] = 1;
            }
        }
        self.pending.push((work, covered));
    }
}

/// Whether the side to move at `pos` reaches its goal in `question` by a plain AND/OR search
/// of `depth` plies over the static rules, the moves they leave and nothing else: `None` when
/// that search does not settle it (or `budget` evaluations run out).
fn settle(pos: &Position, question: Question, depth: usize, budget: &mut u64) -> Option<bool> {
    if reaches(pos, question, depth, budget) {
        Some(true)
    } else if fails(pos, question, depth, budget) {
        Some(false)
    } else {
        None
    }
}

/// The static rules' word on `pos` (whether its side to move reaches its goal), or its moves
/// worth searching; `Err(None)` once `budget` is spent.
fn judge(pos: &Position, question: Question, budget: &mut u64) -> Result<bool, Option<MoveSet>> {
    if *budget == 0 {
        return Err(None);
    }
    *budget -= 1;
    match evaluate(pos, question) {
        Evaluation::Solved(numbers) => Ok(numbers.phi == 0),
        Evaluation::Open(node) => Err(Some(node.moves)),
    }
}

/// Whether a search of `depth` plies shows that the side to move reaches its goal.
fn reaches(pos: &Position, question: Question, depth: usize, budget: &mut u64) -> bool {
    match judge(pos, question, budget) {
        Ok(reached) => reached,
        Err(Some(moves)) if depth > 0 => moves
            .into_iter()
            .any(|mv| fails(&pos.play(mv), question, depth - 1, budget)),
        Err(_) => false,
    }
}

/// Whether a search of `depth` plies shows that the side to move fails its goal.
fn fails(pos: &Position, question: Question, depth: usize, budget: &mut u64) -> bool {
    match judge(pos, question, budget) {
        Ok(reached) => !reached,
        Err(Some(moves)) if depth > 0 => moves
            .into_iter()
            .all(|mv| reaches(&pos.play(mv), question, depth - 1, budget)),
        Err(_) => false,
    }
}

/// The shallow searches' figures, on stderr: for each depth bound, the calls under the
/// outermost called positions it settles, by who wins, and how many such visits.
pub fn report_shallow(covered: &Covered, over_budget: u64, nodes: u64, max_depth: usize) {
    let share = |n: u64| 100.0 * n as f64 / nodes.max(1) as f64;
    eprintln!("under positions a plain search of d plies over the static rules settles:");
    for depth in 1..=max_depth.min(MAX_SHALLOW) {
        let [win, hold] = covered.calls[depth];
        let [win_visits, hold_visits] = covered.visits[depth];
        eprintln!(
            "  d <= {depth}: attacker wins {win:>11} calls ({:5.1} %, {win_visits} visits), \
             defender holds {hold:>11} calls ({:5.1} %, {hold_visits} visits)",
            share(win),
            share(hold)
        );
    }
    eprintln!("  positions whose shallow search ran out of budget: {over_budget}");
}
