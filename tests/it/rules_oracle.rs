//! The static rules' own claims, checked against the independent oracle board: which moves
//! hand the opponent an immediate game win, which positions the rules settle and how, and
//! the hand-made positions where the earlier public solver's unsound rule goes wrong. Each
//! claim is checked under every rule set, on 12,000 positions (10,000 for the settled
//! evaluations) of each.
use crate::common::oracle::{oracle_value, oracle_value_under, Mark, OracleBoard, OracleRules};
use uttt::game::{format_position, parse_position, Player, Position, Rng, Rules};
use uttt::search::rules::{
    attacker_is_dead, evaluate, immediate_win, kill_in_one, kill_in_two, may_win_in_two,
    safe_moves, trapped, unkillable_moves, win_in_two, win_in_two_returns, winning_boards,
    Evaluation,
};
use uttt::search::{Numbers, Question};

/// Each rule set, as the crate and the oracle name it.
fn rule_sets() -> [(Rules, OracleRules); 3] {
    OracleRules::ALL.map(|oracle| (Rules::from_name(oracle.name()).unwrap(), oracle))
}

/// Positions of seeded random playouts under `rules` at every ply (finished games left out),
/// `count` in all.
fn positions_across_plies(count: usize, seed: u64, rules: Rules) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::start_under(rules);
        while let Some(mv) = rng.legal_move(&pos) {
            out.push(pos);
            pos = pos.play(mv);
        }
    }
    out.truncate(count);
    out
}

/// +1 / -1 as the oracle board reports a win for `player`.
fn result_of(player: Player) -> i32 {
    match player {
        Player::X => 1,
        Player::O => -1,
    }
}

/// Whether `player` has won the game on `board` by a line of won boards (the wins the static
/// rules reason about; under CodinGame's rules a game may also end with a win on board count).
fn wins_by_a_line(board: &OracleBoard, player: Player) -> bool {
    board.has_board_line(player == Player::X)
}

/// By the oracle board alone: after `(board, cell)`, can the player who replies complete a
/// line of won boards with its next move?
fn oracle_hands_over_a_win(before: &OracleBoard, board: usize, cell: usize, mover: Player) -> bool {
    let after = before.play(board, cell);
    if after.result().is_some() {
        return false;
    }
    after
        .moves()
        .into_iter()
        .any(|(b, c)| wins_by_a_line(&after.play(b, c), mover.opponent()))
}

#[test]
fn safe_moves_are_exactly_the_moves_that_do_not_hand_over_a_win() {
    for (rules, oracle_rules) in rule_sets() {
        safe_moves_under(rules, oracle_rules);
    }
}

fn safe_moves_under(rules: Rules, oracle_rules: OracleRules) {
    let mut unsafe_seen = 0;
    let mut all_unsafe_seen = 0;
    for pos in positions_across_plies(12_000, 91, rules) {
        let text = format_position(&pos);
        let board = OracleBoard::parse_under(&text, oracle_rules);
        let safe = safe_moves(&pos);
        let mover = pos.side_to_move();
        for mv in pos.legal_moves() {
            let hands_over = oracle_hands_over_a_win(&board, mv.board(), mv.cell(), mover);
            assert_eq!(!safe.contains(mv), hands_over, "{text} move {mv}");
            unsafe_seen += usize::from(hands_over);
        }
        assert!(
            safe.0 & !pos.legal_moves().0 == 0,
            "{text}: a safe move is illegal"
        );
        all_unsafe_seen += usize::from(safe.is_empty());
    }
    // The check must have met both kinds of move and whole positions without a safe move.
    // Won boards that stay open make lines rarer at each ply: lower bars there.
    let bar = if rules == Rules::WonBoardsOpen { 2 } else { 1 };
    assert!(
        unsafe_seen > 1000 / bar,
        "{rules}: only {unsafe_seen} unsafe moves met"
    );
    assert!(
        all_unsafe_seen > 50,
        "{rules}: only {all_unsafe_seen} positions with no safe move"
    );
}

/// By the oracle board alone: after `(board, cell)` the game goes on, and every reply lets
/// the mover complete a line of won boards with its next move.
fn oracle_wins_in_two(before: &OracleBoard, board: usize, cell: usize, mover: Player) -> bool {
    let after = before.play(board, cell);
    if after.result().is_some() {
        return false;
    }
    after.moves().into_iter().all(|(b, c)| {
        let reply = after.play(b, c);
        reply.result().is_none()
            && reply
                .moves()
                .into_iter()
                .any(|(b2, c2)| wins_by_a_line(&reply.play(b2, c2), mover))
    })
}

#[test]
fn win_in_two_finds_exactly_the_forcing_safe_moves() {
    for (rules, oracle_rules) in rule_sets() {
        win_in_two_under(rules, oracle_rules);
    }
}

fn win_in_two_under(rules: Rules, oracle_rules: OracleRules) {
    // Also those found where the mover has no winning board yet: its own move makes one.
    let (mut found, mut found_fresh) = (0, 0);
    for pos in positions_across_plies(12_000, 94, rules) {
        let text = format_position(&pos);
        let board = OracleBoard::parse_under(&text, oracle_rules);
        let mover = pos.side_to_move();
        let safe = safe_moves(&pos);
        let forcing: Vec<_> = safe
            .filter(|mv| oracle_wins_in_two(&board, mv.board(), mv.cell(), mover))
            .collect();
        match win_in_two(&pos, safe) {
            Some(mv) => {
                found += 1;
                found_fresh += usize::from(winning_boards(&pos, mover) == 0);
                assert!(forcing.contains(&mv), "{text}: {mv} does not force a win");
            }
            None => assert!(forcing.is_empty(), "{text}: missed {:?}", forcing),
        }
    }
    let bar = if rules == Rules::WonBoardsOpen { 2 } else { 1 };
    assert!(found > 200 / bar, "{rules}: only {found} wins in two met");
    assert!(
        found_fresh > 20 / bar,
        "{rules}: only {found_fresh} wins in two met without a winning board before"
    );
}

/// The mask test that spares `win_in_two` most of its moves: every move it turns away is not
/// a win in two by the oracle, and it turns away many of the moves where one is looked for.
#[test]
fn moves_turned_away_by_masks_never_win_in_two() {
    for (rules, oracle_rules) in rule_sets() {
        masks_under(rules, oracle_rules);
    }
}

fn masks_under(rules: Rules, oracle_rules: OracleRules) {
    let (mut looked_at, mut turned_away, mut forcing_seen) = (0, 0, 0);
    for pos in positions_across_plies(12_000, 95, rules) {
        let text = format_position(&pos);
        let board = OracleBoard::parse_under(&text, oracle_rules);
        let mover = pos.side_to_move();
        let returns = win_in_two_returns(&pos);
        for mv in safe_moves(&pos) {
            let forcing = oracle_wins_in_two(&board, mv.board(), mv.cell(), mover);
            looked_at += 1;
            forcing_seen += usize::from(forcing);
            if !may_win_in_two(&pos, mv, returns) {
                turned_away += 1;
                assert!(!forcing, "{text}: {mv} wins in two but was turned away");
            }
        }
    }
    let bar = if rules == Rules::WonBoardsOpen { 2 } else { 1 };
    assert!(
        forcing_seen > 200 / bar,
        "{rules}: only {forcing_seen} forcing moves met"
    );
    assert!(
        turned_away * 2 > looked_at,
        "{rules}: only {turned_away} of {looked_at} moves turned away"
    );
}

#[test]
fn winning_boards_are_where_one_move_wins_the_game() {
    for (rules, oracle_rules) in rule_sets() {
        winning_boards_under(rules, oracle_rules);
    }
}

fn winning_boards_under(rules: Rules, oracle_rules: OracleRules) {
    let mut with_winning_boards = 0;
    for pos in positions_across_plies(12_000, 92, rules) {
        let text = format_position(&pos);
        let board = OracleBoard::parse_under(&text, oracle_rules);
        for player in [Player::X, Player::O] {
            let mut expected = 0u16;
            for b in (0..9).filter(|&b| !board.closed(b)) {
                for c in (0..9).filter(|&c| board.cells[b][c] == Mark::Empty) {
                    let mut placed = board.clone();
                    placed.x_to_move = player == Player::X;
                    if wins_by_a_line(&placed.play(b, c), player) {
                        expected |= 1 << b;
                    }
                }
            }
            assert_eq!(
                winning_boards(&pos, player),
                expected,
                "{rules}: {text} {player}"
            );
            with_winning_boards += usize::from(expected != 0);
        }
        if let Some(win) = immediate_win(&pos) {
            let after = board.play(win.board(), win.cell());
            assert_eq!(
                after.result(),
                Some(result_of(pos.side_to_move())),
                "{text}"
            );
        }
    }
    assert!(
        with_winning_boards > 1000,
        "{rules}: only {with_winning_boards} met"
    );
}

/// What a settled evaluation claims about the game value, as the oracle writes values.
fn claimed_value(pos: &Position, attacker: Player, numbers: Numbers) -> (bool, &'static str) {
    let side_reaches_goal = numbers == Numbers::PROVED;
    assert!(side_reaches_goal || numbers == Numbers::DISPROVED);
    let attacker_wins = side_reaches_goal == (pos.side_to_move() == attacker);
    (attacker_wins, if attacker == Player::X { "X" } else { "O" })
}

/// Which rule settles a position for `attacker`, restating `evaluate`'s order.
fn settling_rule(pos: &Position, attacker: Player) -> &'static str {
    if immediate_win(pos).is_some() {
        "immediate win"
    } else if attacker_is_dead(pos, attacker) {
        "dead attacker"
    } else if pos.side_to_move() != attacker && kill_in_one(pos, attacker).is_some() {
        "kill in one"
    } else if safe_moves(pos).is_empty() {
        "no safe move"
    } else if pos.side_to_move() == attacker
        && unkillable_moves(pos, attacker, safe_moves(pos)).is_empty()
    {
        "every move lets the defender kill"
    } else if pos.side_to_move() != attacker
        && kill_in_two(pos, attacker, safe_moves(pos)).is_some()
    {
        "kill in two"
    } else if pos.side_to_move() != attacker && trapped(pos, safe_moves(pos)) {
        "trapped"
    } else {
        "win in two"
    }
}

#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored, and again with debug assertions"]
fn settled_evaluations_agree_with_the_oracle() {
    for (rules, oracle_rules) in rule_sets() {
        settled_evaluations_under(rules, oracle_rules);
    }
}

fn settled_evaluations_under(rules: Rules, oracle_rules: OracleRules) {
    // Late positions, where the oracle is quick; both questions for each.
    let mut rng = Rng::new(93);
    let mut fired = std::collections::BTreeMap::<&str, usize>::new();
    let mut checked = 0;
    while checked < 10_000 {
        // Won boards that stay open leave more moves, and the oracle more work, at each ply.
        let plies = if rules == Rules::WonBoardsOpen {
            54 + rng.below(24)
        } else {
            45 + rng.below(25)
        };
        let start = Position::start_under(rules);
        let moves = rng.playout(&start, plies);
        let pos = moves.iter().fold(start, |p, &m| p.play(m));
        if pos.is_over() {
            continue;
        }
        checked += 1;
        let text = format_position(&pos);
        let mut value = None;
        for attacker in [Player::X, Player::O] {
            if let Evaluation::Solved(numbers) = evaluate(&pos, Question::wins(attacker)) {
                *fired.entry(settling_rule(&pos, attacker)).or_default() += 1;
                let (attacker_wins, name) = claimed_value(&pos, attacker, numbers);
                let value = *value.get_or_insert_with(|| oracle_value_under(&text, oracle_rules));
                assert_eq!(
                    value == name,
                    attacker_wins,
                    "{rules}: {text} attacker {attacker}"
                );
            }
        }
    }
    // Every rule must have settled positions of its own here, under every rule set.
    for rule in [
        "immediate win",
        "dead attacker",
        "no safe move",
        "kill in one",
        "every move lets the defender kill",
        "kill in two",
        "trapped",
        "win in two",
    ] {
        let count = fired.get(rule).copied().unwrap_or(0);
        assert!(
            count > 50,
            "{rules}: {rule} settled only {count}: {fired:?}"
        );
    }
}

#[test]
fn moves_that_close_win_or_block_are_not_taken_for_losing() {
    // The earlier public solver calls this an X win: it takes every move that sends O to a
    // closed board or to one of O's critical boards for a loss. It is a draw.
    let text =
        "X;X.X.X@OXO;OXXOXOXOO/XOXOXO..O/X..X.OXO./O.OXOO.OX/X...XX.OX/OXOXOX..X/O...O...O/X.XX..X../X.OXOOO.X";
    let pos = parse_position(text).unwrap();
    assert_eq!(oracle_value(text), "draw");
    let board = OracleBoard::parse(text);
    for mv in pos.legal_moves() {
        let hands_over = oracle_hands_over_a_win(&board, mv.board(), mv.cell(), Player::X);
        assert_eq!(!safe_moves(&pos).contains(mv), hands_over, "{mv}");
    }
    // Hand-made: O has won boards a and b, so c completes its top row, and O's cell cf would
    // win c. X is sent to c. "cc" wins c for X and sends O to the now closed c (a free move),
    // but c was O's only winning board: safe, though a rule that calls every move to a closed
    // board losing rejects it. "cf" blocks O's winning cell: safe.
    let text = "X;OO@......;OOO....../...OOO.../XX.OO..../X.......X/X.......X/X.......X/........./........./.........";
    let pos = parse_position(text).unwrap();
    assert_eq!(winning_boards(&pos, Player::O), 1 << 2);
    assert_eq!(winning_boards(&pos, Player::X), 0);
    let board = OracleBoard::parse(text);
    for name in ["cc", "cf"] {
        let mv = uttt::game::parse_move(name).unwrap();
        assert!(safe_moves(&pos).contains(mv), "{name}");
        assert!(!oracle_hands_over_a_win(
            &board,
            mv.board(),
            mv.cell(),
            Player::X
        ));
    }
    // The same stones with X sent to f: "fc" sends O to c and "fb" to the closed b (a free
    // move, so O can go to c): both lose at once; every other move is safe.
    let text = "X;OO...@...;OOO....../...OOO.../XX.OO..../X.......X/X.......X/X.......X/........./........./.........";
    let pos = parse_position(text).unwrap();
    let unsafe_moves: Vec<String> = pos
        .legal_moves()
        .filter(|&mv| !safe_moves(&pos).contains(mv))
        .map(|mv| mv.to_string())
        .collect();
    assert_eq!(unsafe_moves, ["fb", "fc"]);
}
