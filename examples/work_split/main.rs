//! Where a solve's work goes (issue 75): an instrumented one-threaded DFPN run, outside the
//! solver (it reads the searcher's existing observer hook, which a normal search leaves
//! unset), that splits every MID call of a three-valued solve by what it was spent on:
//!
//! - **proof**: a call at a position of the final proof tree, the certificate's positions
//!   (read back from the certificate of the same solve, written from the same table): the
//!   first call there, or a call **again** (a re-expansion with wider thresholds, or one the
//!   table had lost);
//! - **off the proof**: a call at a position outside it, the search's choices: under a child
//!   of a proof position that was **solved** at some point (refuted, or proved and not taken
//!   by the certificate) or **abandoned** (never solved); each such subtree is counted by its
//!   size (its calls, log2 buckets);
//! - **other question**: the question that was not needed for the value (a win needs only the
//!   winner's question: the loser's one is the work a solver asking it first spends);
//! - **unsettled**: a question the node cap ended.
//!
//! Each class is split by stage: stones on the board (by tens) and closed boards. With
//! `--big-table-mem`, each question is solved again against a table that large, and the
//! difference in calls is the work the default table's replacements cost (memory).
//!
//! Two passes, so that nothing is kept per call and long solves fit in memory: the first
//! solves (counting calls by stage) and writes the certificate; the second solves again from a
//! fresh table of the same size, which one-threaded DFPN repeats call for call (checked), and
//! classifies each call as it returns, rebuilding which call made which from the returns'
//! work counts (post-order: a call's direct children are the returns just before it whose work
//! sums to its own less one).
//!
//! One JSON line per position on stdout, then a summary line; a table in words on stderr.
//!
//! ```text
//! cargo run --release --example work_split -- positions/midgame.txt --table-mem 64M \
//!     --big-table-mem 4G --max-nodes 20000000
//! ```

mod shallow;

use serde::Serialize;
use shallow::{report_shallow, Covered, Shallow};
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::AtomicBool;
use uttt::certificate::{leaf, Block, ClaimKind, Goal, Visited};
use uttt::game::{parse_position, Move, Player, Position};
use uttt::search::dfpn::{Dfpn, Limits};
use uttt::search::numbers::attacker_numbers;
use uttt::search::{table_key, Numbers, Question};
use uttt::services::certify::certify;
use uttt::services::units::parse_size;
use uttt::services::{verdict_label, Verdict};
use uttt::table::Table;

/// The 1+ε trick's ε, the solver's default.
const EPSILON: f64 = 0.25;

/// Calls by class and stage: class → (stones / 10, closed boards) → calls.
type Split = BTreeMap<&'static str, BTreeMap<(u8, u8), u64>>;

/// The stage of `pos`: stones by tens, closed boards.
fn stage(pos: &Position) -> (u8, u8) {
    (
        (pos.stone_count() / 10) as u8,
        pos.closed_boards().count_ones() as u8,
    )
}

/// What one pass tells of each MID call as it returns: its position, numbers and work.
trait Watch {
    fn returned(&mut self, pos: &Position, numbers: Numbers, work: u64);
}

/// The first pass's watch: calls by stage, and with `--shallow` how shallow a search settles
/// each called position.
#[derive(Default)]
struct Count(BTreeMap<(u8, u8), u64>, Option<Shallow>);

impl Watch for Count {
    fn returned(&mut self, pos: &Position, numbers: Numbers, work: u64) {
        *self.0.entry(stage(pos)).or_default() += 1;
        if let Some(shallow) = self.1.as_mut() {
            shallow.returned(pos, numbers, work);
        }
    }
}

/// The second pass's watch: each call against the proof tree's keys.
struct Classify<'p> {
    question: Question,
    proof: &'p HashSet<u64>,
    /// Proof positions called before.
    seen: HashSet<u64>,
    /// Returns not yet claimed by their parent: (key, work).
    pending: Vec<(u64, u64)>,
    split: Split,
    /// The subtrees hanging off proof positions: (root key, calls).
    off_proof: Vec<(u64, u64)>,
}

impl Watch for Classify<'_> {
    fn returned(&mut self, pos: &Position, _: Numbers, work: u64) {
        let key = table_key(pos, self.question);
        let in_proof = self.proof.contains(&key);
        let mut children_work = 0;
        while children_work + 1 < work {
            let (child, child_work) = self.pending.pop().expect("a child call returned before");
            children_work += child_work;
            if in_proof && !self.proof.contains(&child) {
                self.off_proof.push((child, child_work));
            }
        }
        let class = match (in_proof, in_proof && self.seen.insert(key)) {
            (true, true) => "proof: first call",
            (true, false) => "proof: again",
            (false, _) => "off the proof",
        };
        *self
            .split
            .entry(class)
            .or_default()
            .entry(stage(pos))
            .or_default() += 1;
        self.pending.push((key, work));
    }
}

/// Searches `question` at `pos` against `table` within `max_nodes`, telling `watch` of each
/// call; the calls made and the attacker's (proof, disproof) numbers at the root.
fn search(
    pos: &Position,
    question: Question,
    table: &Table,
    max_nodes: u64,
    watch: &mut dyn Watch,
) -> (u64, (u32, u32)) {
    let stop = AtomicBool::new(false);
    let mut observer =
        |at: &Position, numbers: Numbers, work: u64| watch.returned(at, numbers, work);
    let mut dfpn =
        Dfpn::new(table, question, EPSILON, Limits::stop_only(&stop)).observing(&mut observer);
    let numbers = dfpn.solve(pos, max_nodes);
    let attacker_to_move = pos.side_to_move() == question.attacker;
    (dfpn.nodes(), attacker_numbers(numbers, attacker_to_move))
}

/// The table keys (for the question the block proves or disproves) of every position of a
/// certificate block, in its traversal: the proof tree, leaves included.
fn proof_keys(block: &Block, question: Question) -> HashSet<u64> {
    let goal = Goal::at(block.claim, &block.position);
    let prover = block.claim.prover;
    let mut keys = HashSet::new();
    // Visited as the format says, by position (two positions may share a table key, the
    // table's equal-for-the-search positions, and the certificate visits both).
    let mut visited = Visited::default();
    let mut moves = block.moves.iter();
    let mut stack = vec![block.position];
    // The traversal of the format, with an explicit stack: children in ascending square
    // order are pushed in reverse so that they are visited in order.
    while let Some(pos) = stack.pop() {
        if !visited.insert(pos) {
            continue;
        }
        keys.insert(table_key(&pos, question));
        if leaf(&pos, goal).is_some() {
            continue;
        }
        if pos.side_to_move() == prover {
            let square = *moves
                .next()
                .expect("the block has a move for each prover position");
            stack.push(pos.play(Move::from_square(usize::from(square))));
        } else {
            let children: Vec<Position> =
                pos.legal_moves().into_iter().map(|m| pos.play(m)).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    keys
}

/// Adds `counts` (by stage) to `split` as `class`.
fn add_counts(split: &mut Split, class: &'static str, counts: &BTreeMap<(u8, u8), u64>) {
    for (stage, n) in counts {
        *split.entry(class).or_default().entry(*stage).or_default() += n;
    }
}

/// What one position's split found.
#[derive(Serialize)]
struct PositionSplit {
    position: String,
    value: String,
    /// MID calls of each question (X's, then O's).
    nodes: [u64; 2],
    /// Calls by class, over all stages.
    classes: BTreeMap<&'static str, u64>,
    /// Positions in the proof trees (the certificates' traversals).
    proof_positions: u64,
    /// Calls spent re-solving lost children while writing the certificate.
    certificate_research: u64,
    /// With a big table: each question's calls there (what replacements cost is the
    /// difference).
    big_table_nodes: Option<[u64; 2]>,
}

/// The block of `certificate` that answers `question`: its win, or its opponent's hold.
fn block_for(blocks: &[Block], question: Question) -> &Block {
    blocks
        .iter()
        .find(|b| match b.claim.kind {
            ClaimKind::Wins => b.claim.prover == question.attacker,
            ClaimKind::Holds => b.claim.prover != question.attacker,
        })
        .expect("a block for the question")
}

/// Splits the solve of `pos`: into `split` and `sizes` (off-proof subtrees by fate and log2
/// size), and its own line.
fn split_position(
    notation: &str,
    args: &Args,
    split: &mut Split,
    sizes: &mut BTreeMap<(&'static str, u32), u64>,
    shallow_total: &mut Covered,
    over_budget: &mut u64,
) -> PositionSplit {
    let pos = parse_position(notation).expect("a position in notation");
    let questions = [Question::wins(Player::X), Question::wins(Player::O)];
    // Pass 1: the solve, its calls by stage, and the certificate.
    let table = Table::new(args.table_bytes).expect("the table");
    let mut counts = questions.map(|q| {
        Count(
            BTreeMap::new(),
            (args.shallow > 0).then(|| Shallow::new(q, args.shallow)),
        )
    });
    let mut nodes = [0u64; 2];
    let mut roots = [(0u32, 0u32); 2];
    for i in 0..2 {
        (nodes[i], roots[i]) = search(&pos, questions[i], &table, args.max_nodes, &mut counts[i]);
    }
    let verdict = if roots[0].0 == 0 {
        Verdict::Wins(Player::X)
    } else if roots[1].0 == 0 {
        Verdict::Wins(Player::O)
    } else if roots[0].1 == 0 && roots[1].1 == 0 {
        Verdict::Draw
    } else {
        Verdict::Unknown
    };
    // The questions the value needs: the winner's, or both for a draw.
    let needed = |q: Question| match verdict {
        Verdict::Wins(winner) => q.attacker == winner,
        Verdict::Draw => true,
        _ => false,
    };
    for count in &counts {
        if let Some(shallow) = &count.1 {
            shallow_total.add(&shallow.total());
            *over_budget += shallow.over_budget;
        }
    }
    let mut position_split = Split::new();
    let stop = AtomicBool::new(false);
    let certificate = (verdict != Verdict::Unknown)
        .then(|| certify(&pos, verdict, None, &table, EPSILON, &stop).expect("a certificate"));
    drop(table);
    let proofs: Vec<Option<HashSet<u64>>> = questions
        .iter()
        .map(|&q| {
            let blocks = &certificate.as_ref()?.blocks;
            needed(q).then(|| proof_keys(block_for(blocks, q), q))
        })
        .collect();
    for i in 0..2 {
        if proofs[i].is_none() {
            let class = if verdict == Verdict::Unknown {
                "unsettled"
            } else {
                "other question"
            };
            add_counts(&mut position_split, class, &counts[i].0);
        }
    }
    // Pass 2: the same solve again, each needed question's calls classified.
    if proofs.iter().any(Option::is_some) {
        let table = Table::new(args.table_bytes).expect("the table");
        for i in 0..2 {
            let (again, _) = match &proofs[i] {
                Some(proof) => {
                    let mut classify = Classify {
                        question: questions[i],
                        proof,
                        seen: HashSet::new(),
                        pending: Vec::new(),
                        split: Split::new(),
                        off_proof: Vec::new(),
                    };
                    let searched =
                        search(&pos, questions[i], &table, args.max_nodes, &mut classify);
                    for (class, counts) in &classify.split {
                        add_counts(&mut position_split, class, counts);
                    }
                    // Each subtree's fate from the table at the end: solved there, or not.
                    let mut writer = table.writer();
                    for (key, work) in classify.off_proof {
                        let solved = writer.lookup(key).is_some_and(|f| f.numbers.is_solved());
                        let fate = if solved { "solved" } else { "abandoned" };
                        *sizes.entry((fate, 64 - work.leading_zeros())).or_default() += work;
                    }
                    searched
                }
                None => search(
                    &pos,
                    questions[i],
                    &table,
                    args.max_nodes,
                    &mut Count::default(),
                ),
            };
            assert_eq!(
                again, nodes[i],
                "the second pass repeats the first call for call"
            );
        }
    }
    let big_table_nodes = args.big_table_bytes.map(|bytes| {
        let big = Table::new(bytes).expect("the big table");
        questions.map(|q| search(&pos, q, &big, args.max_nodes, &mut Count::default()).0)
    });
    let mut classes = BTreeMap::new();
    for (class, stages) in &position_split {
        classes.insert(*class, stages.values().sum());
        add_counts(split, class, stages);
    }
    PositionSplit {
        position: notation.to_string(),
        value: verdict_label(verdict),
        nodes,
        classes,
        proof_positions: proofs.iter().flatten().map(|p| p.len() as u64).sum(),
        certificate_research: certificate.map_or(0, |c| c.research_nodes),
        big_table_nodes,
    }
}

/// Arguments: the positions file, `--table-mem`, `--big-table-mem`, `--max-nodes`.
struct Args {
    file: String,
    table_bytes: u64,
    big_table_bytes: Option<u64>,
    max_nodes: u64,
    /// The deepest shallow search (0: none).
    shallow: usize,
}

/// A size as the command line writes it (`64M`, `4G`).
fn size(text: &str) -> u64 {
    parse_size(text).unwrap_or_else(|problem| panic!("{text}: {problem}"))
}

fn args() -> Args {
    let mut out = Args {
        file: String::new(),
        table_bytes: 64 << 20,
        big_table_bytes: None,
        max_nodes: 20_000_000,
        shallow: 0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().expect("a value after the option");
        match arg.as_str() {
            "--table-mem" => out.table_bytes = size(&value()),
            "--big-table-mem" => out.big_table_bytes = Some(size(&value())),
            "--max-nodes" => out.max_nodes = value().parse().expect("a number of calls"),
            "--shallow" => out.shallow = value().parse().expect("a depth"),
            file => out.file = file.to_string(),
        }
    }
    out
}

fn main() {
    let args = args();
    let text = std::fs::read_to_string(&args.file).expect("a positions file");
    let mut split = Split::new();
    let mut sizes = BTreeMap::new();
    let mut shallow_total = Covered::default();
    let mut over_budget = 0;
    let mut totals: BTreeMap<&'static str, u64> = BTreeMap::new();
    let (mut nodes_all, mut big_all, mut proof_all) = (0u64, 0u64, 0u64);
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let notation = line.split_whitespace().next().expect("a position");
        let row = split_position(
            notation,
            &args,
            &mut split,
            &mut sizes,
            &mut shallow_total,
            &mut over_budget,
        );
        for (class, count) in &row.classes {
            *totals.entry(class).or_default() += count;
        }
        nodes_all += row.nodes[0] + row.nodes[1];
        proof_all += row.proof_positions;
        big_all += row.big_table_nodes.map_or(0, |big| big[0] + big[1]);
        println!("{}", serde_json::to_string(&row).expect("JSON"));
    }
    report(
        &split, &sizes, &totals, nodes_all, big_all, proof_all, &args,
    );
    if args.shallow > 0 {
        report_shallow(&shallow_total, over_budget, nodes_all, args.shallow);
    }
}

/// The summary: a JSON line on stdout, a table in words on stderr.
fn report(
    split: &Split,
    sizes: &BTreeMap<(&'static str, u32), u64>,
    totals: &BTreeMap<&'static str, u64>,
    nodes: u64,
    big: u64,
    proof_positions: u64,
    args: &Args,
) {
    let share = |n: u64| 100.0 * n as f64 / nodes.max(1) as f64;
    eprintln!("{nodes} MID calls; proof trees of {proof_positions} positions");
    for (class, count) in totals {
        eprintln!("{class:<20} {count:>12}  {:5.1} %", share(*count));
    }
    if args.big_table_bytes.is_some() {
        eprintln!(
            "with the big table: {big} calls ({:+.1} % of the default table's)",
            share(big) - 100.0
        );
    }
    eprintln!("off the proof, by subtree size (calls, log2 bucket: 2^(b-1) <= size < 2^b):");
    for ((kind, bucket), count) in sizes {
        eprintln!(
            "  {kind:<9} 2^{bucket:<3} {count:>12}  {:5.1} %",
            share(*count)
        );
    }
    eprintln!("by stage (stones by tens; calls of each class):");
    let mut stones: BTreeMap<u8, BTreeMap<&'static str, u64>> = BTreeMap::new();
    let mut closed: BTreeMap<u8, BTreeMap<&'static str, u64>> = BTreeMap::new();
    for (class, stages) in split {
        for ((tens, boards), n) in stages {
            *stones.entry(*tens).or_default().entry(class).or_default() += n;
            *closed.entry(*boards).or_default().entry(class).or_default() += n;
        }
    }
    for (tens, classes) in &stones {
        eprintln!("  stones {}-{}: {classes:?}", tens * 10, tens * 10 + 9);
    }
    eprintln!("by closed boards:");
    for (boards, classes) in &closed {
        eprintln!("  {boards} closed: {classes:?}");
    }
    #[derive(Serialize)]
    struct Summary<'a> {
        nodes: u64,
        proof_positions: u64,
        classes: &'a BTreeMap<&'static str, u64>,
        big_table_nodes: Option<u64>,
        off_proof_by_size: BTreeMap<String, u64>,
    }
    let summary = Summary {
        nodes,
        proof_positions,
        classes: totals,
        big_table_nodes: args.big_table_bytes.map(|_| big),
        off_proof_by_size: sizes
            .iter()
            .map(|((kind, bucket), n)| (format!("{kind} 2^{bucket}"), *n))
            .collect(),
    };
    println!("{}", serde_json::to_string(&summary).expect("JSON"));
}
