//! Sound static rules: facts about a position that settle a binary question without search.
//!
//! Each rule is a plain consequence of the game's rules, and tests check the solver against
//! the oracle on thousands of positions with the rules in use:
//!
//! * **Finished game**: the outcome decides.
//! * **Immediate win**: if the side to move can complete a line of won boards with one legal
//!   move, it wins, which meets either player's goal (winning, or keeping the attacker from
//!   winning).
//! * **Dead attacker**: if no line of the big board can still become all the attacker's (every
//!   line holds a board won by the opponent, drawn, or with every local line blocked by an
//!   opponent stone), the attacker can never win.

use super::numbers::Numbers;
use crate::game::tables::{has_line, FULL_MASK, LINES};
use crate::game::{Move, Outcome, Player, Position};

/// Whether the side to move reaches its goal in the question "does `attacker` win?": the
/// attacker's goal is to win, the defender's is to keep the attacker from winning.
fn goal_numbers(pos: &Position, attacker: Player, attacker_wins: bool) -> Numbers {
    if (pos.side_to_move() == attacker) == attacker_wins {
        Numbers::PROVED
    } else {
        Numbers::DISPROVED
    }
}

/// The numbers of a position whose answer to "does `attacker` win?" is known without search,
/// for the side to move; `None` when search is needed.
pub fn static_numbers(pos: &Position, attacker: Player) -> Option<Numbers> {
    match pos.outcome() {
        Outcome::Won(winner) => return Some(goal_numbers(pos, attacker, winner == attacker)),
        Outcome::Draw => return Some(goal_numbers(pos, attacker, false)),
        Outcome::InPlay => {}
    }
    if immediate_win(pos).is_some() {
        return Some(Numbers::PROVED);
    }
    if !can_still_win(pos, attacker) {
        return Some(goal_numbers(pos, attacker, false));
    }
    None
}

/// A move that wins the game at once for the side to move, if there is one.
pub fn immediate_win(pos: &Position) -> Option<Move> {
    let me = pos.side_to_move();
    let won = pos.won_boards(me);
    let allowed = match pos.target_board() {
        Some(board) => 1u16 << board,
        None => FULL_MASK & !pos.closed_boards(),
    };
    let mut deciding = allowed & !pos.closed_boards();
    while deciding != 0 {
        let board = deciding.trailing_zeros() as usize;
        deciding &= deciding - 1;
        if !has_line(won | 1 << board) {
            continue;
        }
        let mine = pos.local_cells(me, board);
        let mut empty = FULL_MASK & !pos.local_occupied(board);
        while empty != 0 {
            let cell = empty.trailing_zeros() as usize;
            empty &= empty - 1;
            if has_line(mine | 1 << cell) {
                return Some(Move::new(board, cell));
            }
        }
    }
    None
}

/// Whether `player` could still complete a line of won boards, ignoring whose turn it is.
pub fn can_still_win(pos: &Position, player: Player) -> bool {
    let opponent = player.opponent();
    let mut possible = pos.won_boards(player);
    let mut open = FULL_MASK & !pos.closed_boards();
    while open != 0 {
        let board = open.trailing_zeros() as usize;
        open &= open - 1;
        let theirs = pos.local_cells(opponent, board);
        if LINES.iter().any(|&line| line & theirs == 0) {
            possible |= 1 << board;
        }
    }
    has_line(possible)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rng;

    #[test]
    fn immediate_win_is_legal_and_wins() {
        let mut rng = Rng::new(11);
        let mut found = 0;
        for _ in 0..3000 {
            let mut pos = Position::start();
            while let Some(mv) = rng.legal_move(&pos) {
                if let Some(win) = immediate_win(&pos) {
                    found += 1;
                    assert!(pos.is_legal(win));
                    assert_eq!(pos.play(win).outcome(), Outcome::Won(pos.side_to_move()));
                } else {
                    for m in pos.legal_moves() {
                        let after = pos.play(m).outcome();
                        assert_ne!(after, Outcome::Won(pos.side_to_move()), "{pos} {m}");
                    }
                }
                pos = pos.play(mv);
            }
        }
        assert!(found > 100);
    }

    #[test]
    fn a_player_who_wins_could_still_win_before() {
        let mut rng = Rng::new(12);
        for _ in 0..3000 {
            let moves = rng.playout(&Position::start(), 81);
            let mut pos = Position::start();
            let mut history = vec![pos];
            for m in moves {
                pos = pos.play(m);
                history.push(pos);
            }
            if let Outcome::Won(winner) = pos.outcome() {
                assert!(history.iter().all(|p| can_still_win(p, winner)));
            }
        }
    }
}
