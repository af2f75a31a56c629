//! A player that chooses its moves by short searches, for positions that look like played
//! games (benchmarks of reach): random playouts blunder at every ply, so their positions are
//! lopsided; a player that never makes a move a short search shows to lose, and prefers moves
//! whose proof numbers favour it, gives positions nearer to those of games between decent
//! players. Seeded noise makes games differ.

use super::report::{BinaryOutcome, Verdict};
use super::solve::Solver;
use crate::game::{Move, Position, Rng};
use crate::search::numbers::{Numbers, INFINITY};
use crate::search::options::{Engine, SolveOptions};
use crate::table::Table;

/// How the player searches.
#[derive(Clone, Copy, Debug)]
pub struct SearchPlayer {
    /// MID calls for each candidate move's solve (single-threaded DFPN, so a game depends on
    /// its seed alone).
    pub nodes_per_move: u64,
    /// Spread of the random amount added to each candidate's score before the best is taken
    /// (scores lie in 0..=4; see [`SearchPlayer::choose`]). 0 plays the best-scored move.
    pub noise: f64,
}

/// The score of a move for the player making it: 4 a win, 3 a move that does not lose but
/// whose value is open, 2 plus an estimate in 0..1 a move whose value is open, 2 a draw, 0
/// a loss. An open move's estimate is the share of the opponent's proof cost in the sum of
/// its proof and disproof numbers after the move (a hard-to-prove, easy-to-refute opponent
/// win scores near 1).
fn score(verdict: Verdict, mover_wins_search: Option<Numbers>, mover: crate::game::Player) -> f64 {
    match verdict {
        Verdict::Wins(winner) if winner == mover => 4.0,
        Verdict::Wins(_) => 0.0,
        Verdict::Draw => 2.0,
        Verdict::DoesNotWin(_) => 3.0,
        Verdict::Unknown => {
            let opponent_numbers = mover_wins_search.unwrap_or(Numbers::UNIT);
            let phi = f64::from(opponent_numbers.phi.min(INFINITY - 1));
            let delta = f64::from(opponent_numbers.delta.min(INFINITY - 1));
            2.0 + phi / (phi + delta)
        }
    }
}

impl SearchPlayer {
    /// The move this player makes at `pos` (`None` when the game is over), searching against
    /// `table` (which may hold earlier searches of the game: it only saves time). A winning
    /// move is taken at once; otherwise each move is scored (see `score`), `rng` adds noise in
    /// `0..noise`, and the highest total is played.
    pub fn choose(&self, pos: &Position, table: &Table, rng: &mut Rng) -> Option<Move> {
        let options = SolveOptions {
            engine: Engine::Dfpn,
            threads: 1,
            node_limit: Some(self.nodes_per_move),
            ..SolveOptions::default()
        };
        let mut solver = Solver::new(&options, table);
        let mover = pos.side_to_move();
        let mut best: Option<(f64, Move)> = None;
        for mv in pos.legal_moves() {
            let report = solver.solve(&pos.play(mv));
            // The first search after the move asks whether the opponent (now to move) wins.
            let first = report
                .searches
                .first()
                .filter(|s| s.outcome == BinaryOutcome::Unknown)
                .map(|s| s.root);
            let total = score(report.verdict, first, mover) + self.noise * unit_random(rng);
            if best.is_none_or(|(top, _)| total > top) {
                best = Some((total, mv));
            }
            if report.verdict == Verdict::Wins(mover) {
                return Some(mv);
            }
        }
        best.map(|(_, mv)| mv)
    }

    /// Plays `plies` moves from `pos` (fewer if the game ends) and returns them.
    pub fn play_game(
        &self,
        pos: &Position,
        plies: usize,
        table: &Table,
        rng: &mut Rng,
    ) -> Vec<Move> {
        let mut current = *pos;
        let mut moves = Vec::with_capacity(plies);
        while moves.len() < plies {
            let Some(mv) = self.choose(&current, table, rng) else {
                break;
            };
            current = current.play(mv);
            moves.push(mv);
        }
        moves
    }
}

/// A number in `0..1` from `rng`.
fn unit_random(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::parse_position;

    fn table() -> Table {
        Table::new(16 << 20).expect("a small table")
    }

    #[test]
    fn a_winning_move_is_played_whatever_the_noise() {
        // X has won boards a and b and plays anywhere: completing board c wins the game.
        let pos = parse_position(
            "X;XX.......;XXX....../XXX....../XX......./O..O...../.O..O..../..O..O.../O.......O/........./.........",
        )
        .unwrap();
        let player = SearchPlayer {
            nodes_per_move: 1_000,
            noise: 1.5,
        };
        for seed in 0..20 {
            let mv = player.choose(&pos, &table(), &mut Rng::new(seed)).unwrap();
            let after = pos.play(mv);
            assert!(after.is_over(), "seed {seed}: {mv:?} does not end the game");
        }
    }

    #[test]
    fn games_depend_on_the_seed_alone_and_noise_makes_them_differ() {
        let player = SearchPlayer {
            nodes_per_move: 500,
            noise: 0.5,
        };
        let game = |seed| player.play_game(&Position::start(), 6, &table(), &mut Rng::new(seed));
        assert_eq!(game(3), game(3));
        let games: std::collections::HashSet<_> = (0..6).map(game).collect();
        assert!(games.len() > 1, "noise gave every seed the same game");
    }

    #[test]
    fn scores_order_win_open_draw_loss() {
        let x = crate::game::Player::X;
        let open = |phi, delta| score(Verdict::Unknown, Some(Numbers { phi, delta }), x);
        assert!(
            score(Verdict::Wins(x), None, x) > score(Verdict::DoesNotWin(x.opponent()), None, x)
        );
        assert!(score(Verdict::DoesNotWin(x.opponent()), None, x) > open(100, 1));
        assert!(open(100, 1) > open(1, 100));
        assert!(open(1, 100) > score(Verdict::Draw, None, x) - 1e-9);
        assert!(score(Verdict::Draw, None, x) > score(Verdict::Wins(x.opponent()), None, x));
        assert!(open(INFINITY - 1, INFINITY - 1).is_finite());
    }
}
