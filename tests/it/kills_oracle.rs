//! The kills' own claims (`uttt::search::rules::{kill_in_one, unkillable_moves}`), checked
//! against the independent oracle board under every rule set. A kill in one must leave the
//! attacker no way to win, and none may be missed. The attacker's moves that
//! `unkillable_moves` passes over must be exactly those that let the defender kill, and each
//! must lose the attacker's point by the oracle's exhaustive value. A kill in two (every reply
//! of the attacker's hands the defender a win or a kill) must be found exactly where the oracle
//! board has one, and must keep the attacker from winning by the oracle's value.
use crate::common::oracle::{oracle_value_under, Mark, OracleBoard, OracleRules, LINES};
use crate::common::playout_positions_under;
use uttt::game::{format_position, parse_position_under, Player, Rules};
use uttt::search::rules::{immediate_win, kill_in_one, kill_in_two, safe_moves, unkillable_moves};

/// The rule sets, as the crate and the oracle name them.
const RULE_SETS: [(Rules, OracleRules); 3] = [
    (Rules::Common, OracleRules::Common),
    (Rules::WonBoardsOpen, OracleRules::WonBoardsOpen),
    (Rules::CodinGame, OracleRules::CodinGame),
];

/// The mark of `player` on the oracle board.
fn mark(player: Player) -> Mark {
    match player {
        Player::X => Mark::X,
        Player::O => Mark::O,
    }
}

/// Whether `player` could still make board `b` its own, read from the oracle board alone: it
/// has won it, or nobody has, the board is open, and some local line holds no opponent stone.
fn could_own(board: &OracleBoard, b: usize, player: Player) -> bool {
    let theirs = mark(player.opponent());
    board.boards[b] == mark(player)
        || (board.boards[b] == Mark::Empty
            && !board.closed(b)
            && LINES
                .iter()
                .any(|line| line.iter().all(|&c| board.cells[b][c] != theirs)))
}

/// Whether `attacker` can never win the game on `board`: no line of boards it could still own,
/// and under CodinGame's rules no more boards it could own than its opponent owns already.
fn oracle_dead(board: &OracleBoard, attacker: Player) -> bool {
    let no_line = !LINES
        .iter()
        .any(|line| line.iter().all(|&b| could_own(board, b, attacker)));
    let count_cannot_win = board.rules != OracleRules::CodinGame || {
        let could = (0..9).filter(|&b| could_own(board, b, attacker)).count();
        let theirs = mark(attacker.opponent());
        could <= board.boards.iter().filter(|&&m| m == theirs).count()
    };
    no_line && count_cannot_win
}

/// Whether the attacker can never win from `board`: the game is over without its win, or it is
/// dead.
fn oracle_done_for(board: &OracleBoard, attacker: Player) -> bool {
    let attacker_result = if attacker == Player::X { 1 } else { -1 };
    match board.result() {
        Some(result) => result != attacker_result,
        None => oracle_dead(board, attacker),
    }
}

/// The defender's moves on `board` after which the attacker can never win.
fn oracle_kills(board: &OracleBoard, attacker: Player) -> Vec<(usize, usize)> {
    board
        .moves()
        .into_iter()
        .filter(|&(b, c)| oracle_done_for(&board.play(b, c), attacker))
        .collect()
}

/// The defender's moves on `board` after which every reply of the attacker's leaves it unable
/// ever to win, or lets the defender make it so with its next move.
fn oracle_kills_in_two(board: &OracleBoard, attacker: Player) -> Vec<(usize, usize)> {
    let killable = |after_reply: &OracleBoard| {
        oracle_done_for(after_reply, attacker)
            || (after_reply.result().is_none() && !oracle_kills(after_reply, attacker).is_empty())
    };
    board
        .moves()
        .into_iter()
        .filter(|&(b, c)| {
            let after = board.play(b, c);
            oracle_done_for(&after, attacker)
                || (after.result().is_none()
                    && after
                        .moves()
                        .into_iter()
                        .all(|(rb, rc)| killable(&after.play(rb, rc))))
        })
        .collect()
}

/// Positions of random games under `rules`, at every stage from 20 to 70 plies.
fn positions(rules: Rules, seed: u64) -> Vec<String> {
    (20..70)
        .step_by(10)
        .flat_map(|first| playout_positions_under(rules, first, 800, seed + first as u64))
        .collect()
}

#[test]
fn kill_in_one_finds_a_kill_exactly_where_the_oracle_board_has_one() {
    for (rules, oracle_rules) in RULE_SETS {
        let mut found = 0;
        for notation in positions(rules, 0x6b69_6c6c) {
            let pos = parse_position_under(&notation, rules).unwrap();
            let board = OracleBoard::parse_under(&notation, oracle_rules);
            let attacker = pos.side_to_move().opponent();
            // An immediate win of the defender is settled before, and a dead attacker has no
            // kill left to find.
            if immediate_win(&pos).is_some() || oracle_dead(&board, attacker) {
                continue;
            }
            let kills = oracle_kills(&board, attacker);
            match kill_in_one(&pos, attacker) {
                Some(mv) => {
                    found += 1;
                    assert!(
                        kills.contains(&(mv.board(), mv.cell())),
                        "{rules}: {notation}: {mv} is no kill"
                    );
                }
                None => assert!(kills.is_empty(), "{rules}: {notation}: missed {kills:?}"),
            }
        }
        assert!(found > 40, "{rules}: only {found} kills found");
    }
}

#[test]
fn unkillable_moves_pass_over_exactly_the_safe_moves_that_let_the_defender_kill() {
    for (rules, oracle_rules) in RULE_SETS {
        let (mut passed_over, mut kept) = (0, 0);
        for notation in positions(rules, 0x756e_6b69) {
            let pos = parse_position_under(&notation, rules).unwrap();
            let board = OracleBoard::parse_under(&notation, oracle_rules);
            let attacker = pos.side_to_move();
            if immediate_win(&pos).is_some() || oracle_dead(&board, attacker) {
                continue;
            }
            let safe = safe_moves(&pos);
            let unkillable = unkillable_moves(&pos, attacker, safe);
            for mv in safe {
                let after = board.play(mv.board(), mv.cell());
                let killable =
                    oracle_done_for(&after, attacker) || !oracle_kills(&after, attacker).is_empty();
                assert_eq!(
                    unkillable.contains(mv),
                    !killable,
                    "{rules}: {notation}: {mv}"
                );
                if killable {
                    passed_over += 1;
                } else {
                    kept += 1;
                }
            }
            assert_eq!(
                unkillable.0 & !safe.0,
                0,
                "{rules}: {notation}: a move beyond those given"
            );
        }
        assert!(
            passed_over > 100 && kept > 1000,
            "{rules}: {passed_over} passed over, {kept} kept"
        );
    }
}

#[test]
fn kill_in_two_finds_a_kill_in_two_exactly_where_the_oracle_board_has_one() {
    for (rules, oracle_rules) in RULE_SETS {
        let (mut found, mut none) = (0, 0);
        for notation in positions(rules, 0x6b69_6c32) {
            let pos = parse_position_under(&notation, rules).unwrap();
            let board = OracleBoard::parse_under(&notation, oracle_rules);
            let attacker = pos.side_to_move().opponent();
            // What `evaluate` settles first: the defender's immediate win, a dead attacker,
            // a kill in one.
            if immediate_win(&pos).is_some()
                || oracle_dead(&board, attacker)
                || !oracle_kills(&board, attacker).is_empty()
            {
                continue;
            }
            let kills = oracle_kills_in_two(&board, attacker);
            match kill_in_two(&pos, attacker, safe_moves(&pos)) {
                Some(mv) => {
                    found += 1;
                    assert!(
                        kills.contains(&(mv.board(), mv.cell())),
                        "{rules}: {notation}: {mv} is no kill in two"
                    );
                }
                None => {
                    none += 1;
                    assert!(kills.is_empty(), "{rules}: {notation}: missed {kills:?}");
                }
            }
        }
        assert!(
            found > 50 && none > 1000,
            "{rules}: {found} kills in two found, {none} positions without"
        );
    }
}

#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored"]
fn every_kill_and_every_move_passed_over_loses_the_attackers_point_by_the_oracles_value() {
    for (rules, oracle_rules) in RULE_SETS {
        let attacker_wins = |notation: &str, attacker: Player| {
            oracle_value_under(notation, oracle_rules)
                == if attacker == Player::X { "X" } else { "O" }
        };
        let (mut kills, mut kills_in_two, mut passed_over) = (0, 0, 0);
        for notation in playout_positions_under(rules, 52, 2000, 0x6c6f_7373) {
            let pos = parse_position_under(&notation, rules).unwrap();
            let defender_kills = kill_in_one(&pos, pos.side_to_move().opponent());
            if let Some(mv) = defender_kills.filter(|_| immediate_win(&pos).is_none()) {
                kills += 1;
                let after = format_position(&pos.play(mv));
                assert!(
                    !attacker_wins(&after, pos.side_to_move().opponent()),
                    "{rules}: {notation}: the kill {mv} leaves the attacker a win"
                );
            }
            // The side to move's safe moves, as defender and then as attacker.
            let safe = safe_moves(&pos);
            let defender_kills_in_two = kill_in_two(&pos, pos.side_to_move().opponent(), safe);
            if let Some(mv) = defender_kills_in_two
                .filter(|_| immediate_win(&pos).is_none() && defender_kills.is_none())
            {
                kills_in_two += 1;
                let after = format_position(&pos.play(mv));
                assert!(
                    !attacker_wins(&after, pos.side_to_move().opponent()),
                    "{rules}: {notation}: the kill in two {mv} leaves the attacker a win"
                );
            }
            let attacker = pos.side_to_move();
            let unkillable = unkillable_moves(&pos, attacker, safe);
            for mv in safe.into_iter().filter(|&mv| !unkillable.contains(mv)) {
                passed_over += 1;
                let after = format_position(&pos.play(mv));
                assert!(
                    !attacker_wins(&after, attacker),
                    "{rules}: {notation}: {mv} was passed over, yet the attacker wins after it"
                );
            }
        }
        assert!(
            kills > 15 && kills_in_two > 15 && passed_over > 50,
            "{rules}: {kills} kills, {kills_in_two} kills in two, {passed_over} moves passed over"
        );
    }
}
