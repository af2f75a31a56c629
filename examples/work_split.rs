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
//! One JSON line per position on stdout, then a summary line; a table in words on stderr.
//!
//! ```text
//! cargo run --release --example work_split -- positions/midgame.txt --table-mem 64M \
//!     --big-table-mem 4G --max-nodes 20000000
//! ```

use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::AtomicBool;
use uttt::certificate::{leaf, Block, ClaimKind, Goal, Visited};
use uttt::game::{parse_position, Move, Player, Position};
use uttt::search::dfpn::{Dfpn, Limits};
use uttt::search::numbers::attacker_numbers;
use uttt::search::{table_key, Numbers, Question};
use uttt::services::certify::certify;
use uttt::services::Verdict;
use uttt::table::Table;

/// The 1+ε trick's ε, the solver's default.
const EPSILON: f64 = 0.25;

/// One MID call as it returned.
#[derive(Clone, Copy)]
struct Call {
    key: u64,
    /// The calls it made, itself included.
    work: u64,
    /// Stones (0..=81) and closed boards (0..=9) of its position.
    stones: u8,
    closed: u8,
    /// Whether its position was solved when it returned.
    solved: bool,
}

/// What one binary question's search did.
struct Searched {
    question: Question,
    calls: Vec<Call>,
    nodes: u64,
    /// The attacker's (proof, disproof) numbers at the root.
    root: (u32, u32),
}

/// Runs the search of `question` at `pos` against `table` within `max_nodes`, recording each
/// call when `record`.
fn search(
    pos: &Position,
    question: Question,
    table: &Table,
    max_nodes: u64,
    record: bool,
) -> Searched {
    let stop = AtomicBool::new(false);
    let mut calls = Vec::new();
    let mut observer = |at: &Position, numbers: Numbers, work: u64| {
        if record {
            calls.push(Call {
                key: table_key(at, question),
                work,
                stones: at.stone_count() as u8,
                closed: at.closed_boards().count_ones() as u8,
                solved: numbers.is_solved(),
            });
        }
    };
    let (nodes, numbers) = {
        let mut dfpn =
            Dfpn::new(table, question, EPSILON, Limits::stop_only(&stop)).observing(&mut observer);
        let numbers = dfpn.solve(pos, max_nodes);
        (dfpn.nodes(), numbers)
    };
    let attacker_to_move = pos.side_to_move() == question.attacker;
    Searched {
        question,
        calls,
        nodes,
        root: attacker_numbers(numbers, attacker_to_move),
    }
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

/// Calls by class and stage: class → (stones / 10, closed boards) → calls.
type Split = BTreeMap<&'static str, BTreeMap<(u8, u8), u64>>;

fn add(split: &mut Split, class: &'static str, call: &Call, count: u64) {
    *split
        .entry(class)
        .or_default()
        .entry((call.stones / 10, call.closed))
        .or_default() += count;
}

/// Splits the calls of `searched` against `proof` (the keys of its proof tree): each call by
/// its own position, and each subtree off the proof by its size (log2 of its calls, into
/// `sizes`).
fn classify(
    searched: &Searched,
    proof: &HashSet<u64>,
    split: &mut Split,
    sizes: &mut BTreeMap<(&'static str, u32), u64>,
) {
    // A call's direct child calls are the returns just before it whose work sums to its own
    // less one (post-order): a stack of returns not yet claimed by a parent rebuilds them.
    let mut pending: Vec<Call> = Vec::new();
    let mut seen: HashSet<u64> = HashSet::new();
    // Each position's fate: solved by its last call, or never.
    let solved: HashSet<u64> = searched
        .calls
        .iter()
        .filter(|c| c.solved)
        .map(|c| c.key)
        .collect();
    for call in &searched.calls {
        let mut children_work = 0;
        while children_work + 1 < call.work {
            let child = pending.pop().expect("a child call returned before");
            children_work += child.work;
            if proof.contains(&call.key) && !proof.contains(&child.key) {
                let kind = if solved.contains(&child.key) {
                    "solved"
                } else {
                    "abandoned"
                };
                *sizes
                    .entry((kind, 64 - child.work.leading_zeros()))
                    .or_default() += child.work;
            }
        }
        let class = if proof.contains(&call.key) {
            if seen.insert(call.key) {
                "proof: first call"
            } else {
                "proof: again"
            }
        } else {
            "off the proof"
        };
        add(split, class, call, 1);
        pending.push(*call);
    }
}

/// What one position's split found.
#[derive(Serialize)]
struct PositionSplit {
    position: String,
    value: &'static str,
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

fn value_of(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Wins(Player::X) => "X",
        Verdict::Wins(Player::O) => "O",
        Verdict::Draw => "draw",
        _ => "unknown",
    }
}

/// Arguments: the positions file, `--table-mem`, `--big-table-mem`, `--max-nodes`.
struct Args {
    file: String,
    table_bytes: u64,
    big_table_bytes: Option<u64>,
    max_nodes: u64,
}

fn bytes(text: &str) -> u64 {
    let (number, unit) = text.split_at(text.trim_end_matches(['K', 'M', 'G']).len());
    let shift = match unit {
        "K" => 10,
        "M" => 20,
        "G" => 30,
        _ => 0,
    };
    number.parse::<u64>().expect("a size such as 64M") << shift
}

fn args() -> Args {
    let mut out = Args {
        file: String::new(),
        table_bytes: 64 << 20,
        big_table_bytes: None,
        max_nodes: 20_000_000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().expect("a value after the option");
        match arg.as_str() {
            "--table-mem" => out.table_bytes = bytes(&value()),
            "--big-table-mem" => out.big_table_bytes = Some(bytes(&value())),
            "--max-nodes" => out.max_nodes = value().parse().expect("a number of calls"),
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
    let mut totals: BTreeMap<&'static str, u64> = BTreeMap::new();
    let (mut nodes_all, mut big_all, mut proof_all) = (0u64, [0u64; 2], 0u64);
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let notation = line.split_whitespace().next().expect("a position");
        let pos = parse_position(notation).expect("a position in notation");
        let table = Table::new(args.table_bytes).expect("the table");
        let searched: Vec<Searched> = [Player::X, Player::O]
            .into_iter()
            .map(|attacker| search(&pos, Question::wins(attacker), &table, args.max_nodes, true))
            .collect();
        let proved = |s: &Searched| s.root.0 == 0;
        let disproved = |s: &Searched| s.root.1 == 0;
        let verdict = if proved(&searched[0]) {
            Verdict::Wins(Player::X)
        } else if proved(&searched[1]) {
            Verdict::Wins(Player::O)
        } else if disproved(&searched[0]) && disproved(&searched[1]) {
            Verdict::Draw
        } else {
            Verdict::Unknown
        };
        let mut position_split = Split::new();
        let mut proof_positions = 0;
        let mut certificate_research = 0;
        let stop = AtomicBool::new(false);
        let certificate = (verdict != Verdict::Unknown)
            .then(|| certify(&pos, verdict, None, &table, EPSILON, &stop).expect("a certificate"));
        for s in &searched {
            // The question the value needs: the winner's, or both for a draw.
            let needed = match verdict {
                Verdict::Wins(winner) => s.question.attacker == winner,
                Verdict::Draw => true,
                _ => false,
            };
            if verdict == Verdict::Unknown {
                for call in &s.calls {
                    add(&mut position_split, "unsettled", call, 1);
                }
                continue;
            }
            if !needed {
                for call in &s.calls {
                    add(&mut position_split, "other question", call, 1);
                }
                continue;
            }
            let certificate = certificate.as_ref().expect("a settled value's certificate");
            let block = certificate
                .blocks
                .iter()
                .find(|b| match b.claim.kind {
                    ClaimKind::Wins => b.claim.prover == s.question.attacker,
                    ClaimKind::Holds => b.claim.prover != s.question.attacker,
                })
                .expect("a block for the question");
            let proof = proof_keys(block, s.question);
            proof_positions += proof.len() as u64;
            classify(s, &proof, &mut position_split, &mut sizes);
        }
        if let Some(c) = &certificate {
            certificate_research = c.research_nodes;
        }
        let big_table_nodes = args.big_table_bytes.map(|bytes| {
            let big = Table::new(bytes).expect("the big table");
            let mut nodes = [0u64; 2];
            for (i, s) in searched.iter().enumerate() {
                nodes[i] = search(&pos, s.question, &big, args.max_nodes, false).nodes;
            }
            nodes
        });
        let mut classes = BTreeMap::new();
        for (class, stages) in &position_split {
            let count: u64 = stages.values().sum();
            classes.insert(*class, count);
            *totals.entry(class).or_default() += count;
            for (stage, n) in stages {
                *split.entry(class).or_default().entry(*stage).or_default() += n;
            }
        }
        let nodes = [searched[0].nodes, searched[1].nodes];
        nodes_all += nodes[0] + nodes[1];
        proof_all += proof_positions;
        if let Some(big) = big_table_nodes {
            big_all[0] += big[0];
            big_all[1] += big[1];
        }
        let row = PositionSplit {
            position: notation.to_string(),
            value: value_of(verdict),
            nodes,
            classes,
            proof_positions,
            certificate_research,
            big_table_nodes,
        };
        println!("{}", serde_json::to_string(&row).expect("JSON"));
    }
    report(
        &split, &sizes, &totals, nodes_all, big_all, proof_all, &args,
    );
}

/// The summary: a JSON line on stdout, a table in words on stderr.
fn report(
    split: &Split,
    sizes: &BTreeMap<(&'static str, u32), u64>,
    totals: &BTreeMap<&'static str, u64>,
    nodes: u64,
    big: [u64; 2],
    proof_positions: u64,
    args: &Args,
) {
    let share = |n: u64| 100.0 * n as f64 / nodes.max(1) as f64;
    eprintln!("{nodes} MID calls; proof trees of {proof_positions} positions");
    for (class, count) in totals {
        eprintln!("{class:<20} {count:>12}  {:5.1} %", share(*count));
    }
    if args.big_table_bytes.is_some() {
        let big_total = big[0] + big[1];
        eprintln!(
            "with the big table: {big_total} calls ({:+.1} % of the default table's)",
            share(big_total) - 100.0
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
        big_table_nodes: args.big_table_bytes.map(|_| big[0] + big[1]),
        off_proof_by_size: sizes
            .iter()
            .map(|((kind, bucket), n)| (format!("{kind} 2^{bucket}"), *n))
            .collect(),
    };
    println!("{}", serde_json::to_string(&summary).expect("JSON"));
}
