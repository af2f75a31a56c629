//! The trap's own claim (`uttt::search::rules::trapped`), checked against the independent
//! oracle board under every rule set: the side to move is trapped exactly when each of its
//! moves on the oracle board leaves the game in play and either lets the opponent complete a
//! line of won boards at once or leaves it a win in two (a move after which the game is in
//! play and every reply lets it complete such a line at once). That the opponent then wins by
//! the oracle's exhaustive value, and that the rule settles positions in the search, is
//! `rules_oracle`'s settled-evaluation sweep.
use crate::common::oracle::{OracleBoard, OracleRules};
use crate::common::playout_positions_under;
use uttt::game::{parse_position_under, Rules};
use uttt::search::rules::{safe_moves, trapped};

/// The rule sets, as the crate and the oracle name them.
const RULE_SETS: [(Rules, OracleRules); 3] = [
    (Rules::Common, OracleRules::Common),
    (Rules::WonBoardsOpen, OracleRules::WonBoardsOpen),
    (Rules::CodinGame, OracleRules::CodinGame),
];

/// Whether the side to move on `board` can complete a line of won boards with one move.
fn wins_at_once(board: &OracleBoard) -> bool {
    let mover_is_x = board.x_to_move;
    board
        .moves()
        .into_iter()
        .any(|(b, c)| board.play(b, c).has_board_line(mover_is_x))
}

/// Whether the side to move on `board` has a move after which the game is in play and every
/// reply leaves it in play with a line of won boards for the mover to complete at once.
fn wins_in_two(board: &OracleBoard) -> bool {
    board.moves().into_iter().any(|(b, c)| {
        let after = board.play(b, c);
        after.result().is_none()
            && after.moves().into_iter().all(|(rb, rc)| {
                let reply = after.play(rb, rc);
                reply.result().is_none() && wins_at_once(&reply)
            })
    })
}

/// Whether every move of the side to move on `board` leaves the game in play with a win at
/// once or a win in two for the opponent.
fn oracle_trapped(board: &OracleBoard) -> bool {
    board.moves().into_iter().all(|(b, c)| {
        let after = board.play(b, c);
        after.result().is_none() && (wins_at_once(&after) || wins_in_two(&after))
    })
}

#[test]
fn trapped_holds_exactly_where_the_oracle_board_leaves_no_escape() {
    for (rules, oracle_rules) in RULE_SETS {
        let (mut trapped_count, mut free) = (0, 0);
        for first in (30..70).step_by(10) {
            for notation in playout_positions_under(rules, first, 1500, 0x7472_6170 + first as u64)
            {
                let pos = parse_position_under(&notation, rules).unwrap();
                if pos.is_over() {
                    continue;
                }
                let board = OracleBoard::parse_under(&notation, oracle_rules);
                let expected = oracle_trapped(&board);
                assert_eq!(
                    trapped(&pos, safe_moves(&pos)),
                    expected,
                    "{rules}: {notation}"
                );
                if expected {
                    trapped_count += 1;
                } else {
                    free += 1;
                }
            }
        }
        assert!(
            trapped_count > 50 && free > 3000,
            "{rules}: {trapped_count} trapped, {free} not"
        );
    }
}
