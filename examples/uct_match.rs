//! The strength match of issue 74: `uttt play`'s player against a plain UCT, written here as
//! the opponent the issue describes (not a user command).
//!
//! The opponent: UCB1 with c = 1.4 (a win 1, a draw ½), uniformly random playouts to the end,
//! one node expanded per playout, the most visited move played, a fixed number of playouts a
//! move. The games start from seeded random 2-ply openings, each played twice with colours
//! swapped. Each game is one JSON line on stdout, the summary the last line.
//!
//! ```text
//! cargo run --release --example uct_match -- --pairs 50 --time-ms 500 --threads 2
//! ```

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use uttt::game::{format_moves, Move, MoveSet, Outcome, Player, Position, Rng};
use uttt::search::dfpn::Limits;
use uttt::search::mcts::{playout::random_member, MctsOptions};
use uttt::services::{PlayOptions, TreePlayer, Verdict};
use uttt::table::Table;

/// One node of the plain UCT's tree.
struct UctNode {
    /// Moves not yet expanded.
    untried: MoveSet,
    children: Vec<usize>,
    mv: Option<Move>,
    visits: u32,
    /// Reward for the player who made `mv` (a win 1, a draw ½).
    reward: f64,
}

/// The plain UCT: a fresh tree every move.
fn uct_move(root: &Position, playouts: u32, rng: &mut Rng) -> Move {
    let mut nodes = vec![UctNode {
        untried: root.legal_moves(),
        children: Vec::new(),
        mv: None,
        visits: 0,
        reward: 0.0,
    }];
    for _ in 0..playouts {
        let mut path = vec![0usize];
        let mut pos = *root;
        // Selection: while fully expanded and not terminal.
        while nodes[*path.last().unwrap()].untried.is_empty()
            && !nodes[*path.last().unwrap()].children.is_empty()
        {
            let parent = *path.last().unwrap();
            let log_n = f64::from(nodes[parent].visits).ln();
            let &best = nodes[parent]
                .children
                .iter()
                .max_by(|&&a, &&b| {
                    let ucb = |i: usize| {
                        let n = f64::from(nodes[i].visits);
                        nodes[i].reward / n + 1.4 * (log_n / n).sqrt()
                    };
                    ucb(a).total_cmp(&ucb(b))
                })
                .unwrap();
            pos = pos.play(nodes[best].mv.unwrap());
            path.push(best);
        }
        // Expansion: one node.
        let leaf = *path.last().unwrap();
        if !nodes[leaf].untried.is_empty() {
            let mv = random_member(nodes[leaf].untried, rng);
            nodes[leaf].untried.0 &= !(1u128 << mv.square());
            pos = pos.play(mv);
            nodes.push(UctNode {
                untried: pos.legal_moves(),
                children: Vec::new(),
                mv: Some(mv),
                visits: 0,
                reward: 0.0,
            });
            let child = nodes.len() - 1;
            nodes[leaf].children.push(child);
            path.push(child);
        }
        // Playout: uniformly random to the end.
        let mut end = pos;
        while !end.is_over() {
            end = end.play(random_member(end.legal_moves(), rng));
        }
        let outcome = end.outcome();
        // Backpropagation: each node's reward is for the player who moved into it.
        let mut mover_into = root.side_to_move();
        for (depth, &i) in path.iter().enumerate() {
            if depth > 0 {
                nodes[i].reward += reward(outcome, mover_into);
                mover_into = mover_into.opponent();
            }
            nodes[i].visits += 1;
        }
    }
    let &best = nodes[0]
        .children
        .iter()
        .max_by_key(|&&i| nodes[i].visits)
        .expect("a position in play has a move");
    nodes[best].mv.unwrap()
}

fn reward(outcome: Outcome, player: Player) -> f64 {
    match outcome {
        Outcome::Won(winner) if winner == player => 1.0,
        Outcome::Won(_) => 0.0,
        _ => 0.5,
    }
}

struct Args {
    pairs: usize,
    seed: u64,
    time: Duration,
    threads: usize,
    uct_playouts: u32,
}

fn parse_args() -> Args {
    let mut args = Args {
        pairs: 50,
        seed: 1,
        time: Duration::from_millis(500),
        threads: 2,
        uct_playouts: 60_000,
    };
    let list: Vec<String> = std::env::args().skip(1).collect();
    for pair in list.chunks(2) {
        let value = pair.get(1).map(String::as_str).unwrap_or("");
        let number = || {
            value
                .parse::<u64>()
                .unwrap_or_else(|_| panic!("{}: a number", pair[0]))
        };
        match pair[0].as_str() {
            "--pairs" => args.pairs = number() as usize,
            "--seed" => args.seed = number(),
            "--time-ms" => args.time = Duration::from_millis(number()),
            "--threads" => args.threads = number() as usize,
            "--uct-playouts" => args.uct_playouts = number() as u32,
            other => panic!("unknown option {other}"),
        }
    }
    args
}

fn main() {
    let args = parse_args();
    // The opponent's speed, measured once from the opening.
    let mut rng = Rng::new(args.seed);
    let start = Instant::now();
    uct_move(&Position::start(), args.uct_playouts, &mut rng);
    let uct_rate = f64::from(args.uct_playouts) / start.elapsed().as_secs_f64();
    println!("{{\"uct_playouts_per_second_from_the_opening\": {uct_rate:.0}}}");
    let stop = AtomicBool::new(false);
    let (mut score, mut games, mut broken_promises) = (0.0, 0, 0);
    let mut tally = [0u32; 3]; // player wins, draws, losses
    for pair in 0..args.pairs {
        let mut opening_rng = Rng::new(args.seed.wrapping_mul(1000).wrapping_add(pair as u64));
        let opening = opening_rng.playout(&Position::start(), 2);
        for player_side in [Player::X, Player::O] {
            let table = Table::new(256 << 20).expect("a table");
            let mut player = TreePlayer::new();
            let options = PlayOptions {
                search: MctsOptions {
                    threads: args.threads,
                    seed: args.seed ^ pair as u64,
                    time_limit: Some(args.time),
                    ..MctsOptions::default()
                },
                temperature: None,
            };
            let mut pos = opening.iter().fold(Position::start(), |p, &m| p.play(m));
            let mut moves = opening.clone();
            let mut promised: Option<usize> = None;
            let mut uct_rng = Rng::new(args.seed ^ 0x5555 ^ pair as u64);
            while !pos.is_over() {
                let mv = if pos.side_to_move() == player_side {
                    let report = player
                        .choose(&pos, &table, None, &options, Limits::stop_only(&stop))
                        .expect("no database");
                    if report.verdict == Verdict::Wins(player_side) && promised.is_none() {
                        promised = Some(moves.len());
                    }
                    report.chosen.expect("a move")
                } else {
                    uct_move(&pos, args.uct_playouts, &mut uct_rng)
                };
                pos = pos.play(mv);
                moves.push(mv);
            }
            let result = reward(pos.outcome(), player_side);
            let kept = promised.is_none() || result == 1.0;
            broken_promises += usize::from(!kept);
            score += result;
            games += 1;
            tally[if result == 1.0 {
                0
            } else if result == 0.5 {
                1
            } else {
                2
            }] += 1;
            println!(
                "{{\"pair\": {pair}, \"player\": \"{player_side}\", \"result\": {result}, \"plies\": {}, \"proved_win_at_ply\": {}, \"moves\": \"{}\"}}",
                moves.len(),
                promised.map_or("null".to_string(), |p| p.to_string()),
                format_moves(&moves)
            );
        }
    }
    println!(
        "{{\"games\": {games}, \"wins\": {}, \"draws\": {}, \"losses\": {}, \"score\": {:.4}, \"broken_proved_wins\": {broken_promises}}}",
        tally[0],
        tally[1],
        tally[2],
        score / games as f64
    );
}
