use super::*;
use crate::game::tables::LINES;
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

/// A player's won boards and the open boards with a local line free of opponent stones,
/// computed line by line (independently of the tables `Position` uses).
fn winnable_by_definition(pos: &Position, player: Player) -> u16 {
    (0..9).fold(pos.won_boards(player), |winnable, board| {
        let open = pos.closed_boards() & 1 << board == 0;
        let blockers = pos.local_cells(player.opponent(), board);
        let free = LINES.iter().any(|&line| blockers & line == 0);
        winnable | u16::from(open && free) << board
    })
}

/// Lines only ever die: along random games each player's live-line count starts at 8 and
/// never grows, it is positive exactly when the player can still win, and a finished
/// game's winner still counts every line it completed.
#[test]
fn live_lines_start_at_eight_never_grow_and_include_the_winning_lines() {
    // Also: both players' winnable boards at once match each one's, and the line count
    // by table matches counting the lines one by one.
    let mut rng = Rng::new(13);
    for _ in 0..3000 {
        let mut pos = Position::start();
        let mut before = [8, 8];
        for player in [Player::X, Player::O] {
            assert_eq!(live_lines(&pos, player), 8);
        }
        while let Some(mv) = rng.legal_move(&pos) {
            pos = pos.play(mv);
            let both = pos.winnable_boards_of_both();
            for player in [Player::X, Player::O] {
                let winnable = pos.winnable_boards(player);
                assert_eq!(both[player.index()], winnable_by_definition(&pos, player));
                let counted = LINES.iter().filter(|&&l| winnable & l == l).count();
                let now = live_lines(&pos, player);
                assert_eq!(now as usize, counted, "{pos}");
                assert!(now <= before[player.index()], "{pos}");
                assert_eq!(now > 0, can_still_win(&pos, player), "{pos}");
                before[player.index()] = now;
            }
        }
        if let Outcome::Won(winner) = pos.outcome() {
            let won = pos.won_boards(winner);
            let completed = LINES.iter().filter(|&&l| won & l == l).count() as u32;
            assert!(
                completed >= 1 && live_lines(&pos, winner) >= completed,
                "{pos}"
            );
        }
    }
}
