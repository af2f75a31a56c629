//! Proof certificates: written from solves, checked by the independent verifier, and refused
//! when tampered with.
use crate::common;
use crate::common::oracle::{oracle_value_under, OracleRules};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use uttt::certificate::{
    check_bytes, check_bytes_until, leaf, read_blocks, verify_block, verify_blocks, write_block,
    Block, CheckError, Claim, ClaimKind, Failure, Goal, Visited,
};
use uttt::db::key::canonical;
use uttt::game::{
    format_position, parse_position, parse_position_under, Move, Outcome, Player, Position, Rules,
};
use uttt::search::{Engine, SolveOptions};
use uttt::services::{certify, Solver, Verdict};
use uttt::table::Table;

fn dfpn() -> SolveOptions {
    SolveOptions {
        engine: Engine::Dfpn,
        ..SolveOptions::default()
    }
}

/// Solves `pos` and writes its certificate with a table of `table_bytes`: the verdict, the
/// blocks and the nodes spent solving lost children again.
fn certify_with(
    pos: &Position,
    options: &SolveOptions,
    table_bytes: u64,
) -> (Verdict, Vec<Block>, u64) {
    let table = Table::new(table_bytes).unwrap();
    let stop = AtomicBool::new(false);
    let report = Solver::new(options, &table).solve(pos);
    let certificate = certify(pos, report.verdict, None, &table, options.epsilon, &stop)
        .unwrap_or_else(|e| panic!("{pos}: {e}"));
    (
        report.verdict,
        certificate.blocks,
        certificate.research_nodes,
    )
}

/// The file bytes of `blocks`.
fn file_bytes(blocks: &[Block]) -> Vec<u8> {
    let mut out = Vec::new();
    for block in blocks {
        write_block(&mut out, block).unwrap();
    }
    out
}

/// The value (`X`, `O`, `draw`) the verified blocks prove together, or a reason they don't.
fn proven_value(bytes: &[u8]) -> Result<String, String> {
    let blocks = read_blocks(&mut &bytes[..]).map_err(|e| e.to_string())?;
    let mut holds = Vec::new();
    for block in &blocks {
        verify_block(block).map_err(|e| e.to_string())?;
        match block.claim.kind {
            ClaimKind::Wins => return Ok(block.claim.prover.letter().to_string()),
            ClaimKind::Holds => holds.push(block.claim.prover),
        }
    }
    if holds.contains(&Player::X) && holds.contains(&Player::O) {
        Ok("draw".into())
    } else {
        Err(format!("only {holds:?} hold"))
    }
}

#[test]
fn certificates_of_reference_positions_verify_and_prove_the_reference_value() {
    let rows = common::data_rows("late-positions.tsv");
    common::parallel_rows(&rows, |row| {
        let pos = parse_position(&row[0]).unwrap();
        let (_, blocks, _) = certify_with(&pos, &dfpn(), 16 << 20);
        let value =
            proven_value(&file_bytes(&blocks)).unwrap_or_else(|e| panic!("{}: {e}", row[0]));
        assert_eq!(value, row[1], "{}", row[0]);
    });
}

#[test]
fn certificates_of_random_positions_prove_the_oracle_value_with_every_engine_and_a_tiny_table() {
    // From 49 plies: the kills settle later positions with too little search to fill even the
    // smallest table.
    let positions = common::playout_positions_under(Rules::Common, 49, 60, 2024);
    let kinds = std::sync::Mutex::new(std::collections::BTreeSet::new());
    let researched = std::sync::Mutex::new(0);
    common::parallel_rows(&positions, |p| {
        let pos = parse_position(p).unwrap();
        let expected = common::oracle::oracle_value(p);
        let pn_dfpn = SolveOptions {
            engine: Engine::PnDfpn,
            threads: 2,
            job_work: 300,
            split_threshold: 200,
            ..SolveOptions::default()
        };
        // 16 KiB: entries are evicted, so extraction must solve children again.
        for (options, table_bytes) in [(dfpn(), 16 << 20), (pn_dfpn, 16 << 20), (dfpn(), 16 << 10)]
        {
            let (_, blocks, research_nodes) = certify_with(&pos, &options, table_bytes);
            if table_bytes == 16 << 10 && research_nodes > 0 {
                *researched.lock().unwrap() += 1;
            }
            let value = proven_value(&file_bytes(&blocks)).unwrap_or_else(|e| panic!("{p}: {e}"));
            assert_eq!(value, expected, "{p} {options:?} {table_bytes}");
        }
        kinds
            .lock()
            .unwrap()
            .insert(format!("{expected}{}", pos.side_to_move()));
    });
    // The tiny table made the writer solve lost children again for some positions.
    let researched = researched.into_inner().unwrap();
    assert!(researched >= 1, "{researched} positions needed re-searches");
    // Wins for both sides, draws, and both sides to move were all covered.
    let kinds = kinds.into_inner().unwrap();
    for kind in ["XX", "XO", "OX", "OO", "drawX", "drawO"] {
        assert!(kinds.contains(kind), "{kind} missing from {kinds:?}");
    }
}

#[test]
fn certificates_under_the_other_rule_sets_name_them_and_prove_the_oracle_value() {
    for (rules, first_ply) in [
        (OracleRules::WonBoardsOpen, 58),
        (OracleRules::CodinGame, 50),
    ] {
        let crate_rules = Rules::from_name(rules.name()).unwrap();
        let positions = common::playout_positions_under(crate_rules, first_ply, 40, 2028);
        let values = std::sync::Mutex::new(std::collections::BTreeSet::new());
        common::parallel_rows(&positions, |p| {
            let pos = parse_position_under(p, crate_rules).unwrap();
            let expected = oracle_value_under(p, rules);
            for table_bytes in [16 << 20, 64 << 10] {
                let (_, blocks, _) = certify_with(&pos, &dfpn(), table_bytes);
                let bytes = file_bytes(&blocks);
                let header = format!("uttt-certificate 3\nrules {}\nclaim ", rules.name());
                assert!(bytes.starts_with(header.as_bytes()), "{p}");
                let value = proven_value(&bytes).unwrap_or_else(|e| panic!("{p}: {e}"));
                assert_eq!(value, expected, "{rules:?}: {p} {table_bytes}");
                // Read back, each block is under the rule set its file names.
                let read = read_blocks(&mut &bytes[..]).unwrap();
                assert!(read.iter().all(|b| b.position.rules() == crate_rules));
            }
            values.lock().unwrap().insert(expected);
        });
        assert_eq!(
            values.into_inner().unwrap().len(),
            3,
            "{rules:?}: X, O and draw"
        );
    }
}

/// The prover's choices in `block`, replayed in the format's order: for each prover position
/// met (not a leaf, not seen before), whether one of its moves leads to a leaf that meets the
/// claim, and whether the move written does.
fn leaf_choices(block: &Block) -> Vec<(bool, bool)> {
    let goal = Goal::at(block.claim, &block.position);
    let meets = |pos: &Position| leaf(pos, goal) == Some(true);
    let mut visited = Visited::default();
    let mut moves = block.moves.iter();
    let mut choices = Vec::new();
    let mut stack = vec![block.position];
    while let Some(pos) = stack.pop() {
        if !visited.insert(pos) || leaf(&pos, goal).is_some() {
            continue;
        }
        if pos.side_to_move() == block.claim.prover {
            let chosen = pos.play(Move::from_square(usize::from(*moves.next().unwrap())));
            let any = pos.legal_moves().into_iter().any(|mv| meets(&pos.play(mv)));
            choices.push((any, meets(&chosen)));
            stack.push(chosen);
        } else {
            // Last in, first out: pushed in descending order, visited in ascending order.
            let children: Vec<Position> = pos.legal_moves().map(|mv| pos.play(mv)).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    choices
}

#[test]
fn the_writer_takes_a_move_to_a_leaf_where_the_prover_has_one() {
    // A leaf costs the certificate nothing, while a child the static rules settle has no
    // recorded work yet is spelled out move by move: the writer must not take it for free.
    let positions = common::playout_positions_under(Rules::Common, 45, 60, 2026);
    let counts = std::sync::Mutex::new((0, 0));
    common::parallel_rows(&positions, |p| {
        let pos = parse_position(p).unwrap();
        let (_, blocks, _) = certify_with(&pos, &dfpn(), 16 << 20);
        for block in &blocks {
            let choices = leaf_choices(block);
            let with_a_leaf = choices.iter().filter(|choice| choice.0).count();
            let mut counts = counts.lock().unwrap();
            counts.0 += choices.len();
            counts.1 += with_a_leaf;
            drop(counts);
            for (leaf_to_take, took_leaf) in choices {
                assert!(
                    took_leaf || !leaf_to_take,
                    "{p}: a prover move past a leaf in {}",
                    block.claim
                );
            }
        }
    });
    let (choices, with_a_leaf) = counts.into_inner().unwrap();
    assert!(
        with_a_leaf > 100,
        "{with_a_leaf} of {choices} choices had a leaf to take"
    );
}

/// A position of 190,000 nodes whose proof cannot stay in a 64 KiB table: the writer must
/// solve lost children again, and the certificate still verifies.
#[test]
fn a_certificate_written_from_a_tiny_table_verifies() {
    let p = "X;......@O.;O...XX.X./.....O.XX/XOOXX..../O.....O.O/OXO....OX/.OO....X./....O.XX./..XX..OOO/..X.XXO.O";
    let pos = parse_position(p).unwrap();
    let (verdict, blocks, research_nodes) = certify_with(&pos, &dfpn(), 64 << 10);
    assert_eq!(verdict, Verdict::Wins(Player::X));
    assert!(research_nodes > 0, "no re-search was needed");
    assert_eq!(proven_value(&file_bytes(&blocks)).unwrap(), "X");
}

/// A certificate with some substance (a win in a few dozen prover moves) to tamper with.
fn sample() -> (Position, Vec<Block>) {
    let p = "X;......@O.;O...XX.X./.....O.XX/XOOXX..../O.....O.O/OXO....OX/.OO....X./....O.XX./..XX..OOO/..X.XXO.O";
    let pos = parse_position(p).unwrap();
    let (verdict, blocks, _) = certify_with(&pos, &dfpn(), 64 << 20);
    assert_eq!(verdict, Verdict::Wins(Player::X));
    assert!(blocks[0].moves.len() > 20, "{}", blocks[0].moves.len());
    (pos, blocks)
}

#[test]
fn tampered_certificates_are_refused_with_the_place_named() {
    let (pos, blocks) = sample();
    let good = file_bytes(&blocks);
    assert_eq!(proven_value(&good).unwrap(), "X");
    let header = good.len() - blocks[0].moves.len();

    // Every single flipped move byte is caught, with a reason.
    let mut caught = 0;
    for offset in header..good.len() {
        let mut bad = good.clone();
        bad[offset] = (bad[offset] + 1) % 81;
        if proven_value(&bad).is_err() {
            caught += 1;
        }
    }
    // A flip may pick another winning move that leaves the rest consistent only by chance;
    // almost all must fail.
    assert!(
        caught * 10 >= (good.len() - header) * 9,
        "{caught} of {}",
        good.len() - header
    );

    // An out-of-range byte names the position and the offset.
    let mut block = blocks[0].clone();
    block.moves[0] = 200;
    match verify_block(&block) {
        Err(Failure::IllegalMove {
            position, offset, ..
        }) => {
            assert_eq!(position, pos);
            assert_eq!(offset, 0);
        }
        other => panic!("{other:?}"),
    }
    // The last byte dropped: bytes missing (the count line is fixed too, or reading fails).
    let mut short = blocks[0].clone();
    short.moves.pop();
    assert!(matches!(
        verify_block(&short),
        Err(Failure::MissingBytes { .. })
    ));
    let truncated = &good[..good.len() - 1];
    assert!(proven_value(truncated).unwrap_err().contains("ends inside"));
    // One byte appended: left over.
    let mut long = blocks[0].clone();
    long.moves.push(0);
    assert_eq!(verify_block(&long), Err(Failure::LeftOver { count: 1 }));
    let mut appended = good.clone();
    appended.push(0);
    assert!(proven_value(&appended).is_err());
    // The wrong side claimed.
    let mut wrong = blocks[0].clone();
    wrong.claim.prover = Player::O;
    assert!(verify_block(&wrong).is_err());
    // The position line changed: another position, another game.
    let text = String::from_utf8_lossy(&good).into_owned();
    let other = text.replacen("......@O.", "......@OX", 1);
    assert_ne!(other, text);
    let error = proven_value(other.as_bytes()).unwrap_err();
    assert!(error.contains("block 1, line 3"), "{error}");
}

/// A block is judged under the rule set its header names (versions 1 and 2 the common rules,
/// version 3 its `rules` line, `open` or `codingame`), and a position line naming another is
/// refused, not read under its own: one way to write each block.
#[test]
fn a_position_under_another_rule_set_than_its_blocks_is_refused() {
    let good =
        String::from_utf8_lossy(&std::fs::read(common::open_game_proof()).unwrap()).into_owned();
    assert!(good.starts_with("uttt-certificate 3\nrules open\nclaim X wins within 43 plies\n"));
    assert!(proven_value(good.as_bytes()).is_ok());
    for (header, line, reason) in [
        (
            "uttt-certificate 2\n",
            3,
            "the position is under the rule set `open`, but the block is of `common`",
        ),
        (
            "uttt-certificate 1\n",
            3,
            "the position is under the rule set `open`, but the block is of `common`",
        ),
        (
            "uttt-certificate 3\nrules codingame\n",
            4,
            "the position names the open rule set, but the codingame rule set was asked for",
        ),
        (
            "uttt-certificate 3\nrules common\n",
            2,
            "expected `rules open` or `rules codingame`, found `rules common`",
        ),
        (
            "uttt-certificate 3\nrules OPEN\n",
            2,
            "expected `rules open` or `rules codingame`, found `rules OPEN`",
        ),
    ] {
        let bad = good.replacen("uttt-certificate 3\nrules open\n", header, 1);
        let error = proven_value(bad.as_bytes()).unwrap_err();
        assert!(
            error.contains(&format!("block 1, line {line}")) && error.contains(reason),
            "{header:?}: {error}"
        );
    }
}

/// Whether the oracle's value (`X`, `O`, `draw`) makes `claim` true.
fn claim_true(claim: Claim, value: &str) -> bool {
    let prover = claim.prover.letter().to_string();
    match claim.kind {
        ClaimKind::Wins => value == prover,
        ClaimKind::Holds => value == prover || value == "draw",
    }
}

/// The leaf rules' own claim, against the oracle on thousands of late positions (finished
/// games included): a leaf that meets a claim is a position where the claim is true, and one
/// that fails it is a finished game where it is false. Every rule must fire many times.
#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored, and again with debug assertions"]
fn leaves_meet_claims_exactly_when_the_oracle_says_so() {
    for (rules, first_ply) in [
        (OracleRules::Common, 45),
        (OracleRules::WonBoardsOpen, 54),
        (OracleRules::CodinGame, 45),
    ] {
        leaves_under(rules, first_ply);
    }
}

/// [`leaves_meet_claims_exactly_when_the_oracle_says_so`] under `rules`, on 6,000 positions of
/// `first_ply` to `first_ply + 29` plies.
fn leaves_under(rules: OracleRules, first_ply: usize) {
    let crate_rules = Rules::from_name(rules.name()).unwrap();
    let mut rng = uttt::game::Rng::new(77);
    let mut positions = Vec::new();
    let start = Position::start_under(crate_rules);
    while positions.len() < 6_000 {
        let plies = first_ply + rng.below(30);
        let moves = rng.playout(&start, plies);
        positions.push(moves.iter().fold(start, |p, &m| p.play(m)));
    }
    let claims: Vec<Claim> = [Player::X, Player::O]
        .into_iter()
        .flat_map(|prover| {
            [ClaimKind::Wins, ClaimKind::Holds].map(|kind| Claim::unbounded(prover, kind))
        })
        .collect();
    let fired = std::sync::Mutex::new([0usize; 4]); // game over, win now, dead opponent, fails
    common::parallel_rows(&positions, |pos| {
        let mut value = None;
        for &claim in &claims {
            let Some(meets) = leaf(pos, Goal::at(claim, pos)) else {
                continue;
            };
            let value =
                *value.get_or_insert_with(|| oracle_value_under(&format_position(pos), rules));
            assert_eq!(meets, claim_true(claim, value), "{rules:?}: {pos} {claim}");
            let rule = if !meets {
                3
            } else if pos.is_over() {
                0
            } else if pos.side_to_move() == claim.prover
                && pos
                    .legal_moves()
                    .any(|m| pos.play(m).outcome() == Outcome::Won(claim.prover))
            {
                1
            } else {
                2
            };
            fired.lock().unwrap()[rule] += 1;
        }
    });
    let fired = fired.into_inner().unwrap();
    if rules == OracleRules::CodinGame {
        // The dead-opponent leaf is off: a game without a line goes by the board count.
        assert_eq!(fired[2], 0, "{fired:?}");
        assert!(
            [0, 1, 3].iter().all(|&i| fired[i] > 50),
            "{rules:?}: {fired:?}"
        );
    } else {
        assert!(fired.iter().all(|&n| n > 50), "{rules:?}: {fired:?}");
    }
}

// ---- Version 2: a campaign's certificate, whose top block refers to later blocks ----

/// Runs a campaign on `pos` (a fresh database in `dir`, small jobs so that the kept tree has
/// solved leaves to refer to) until settled, and writes its version-2 certificate.
fn campaign_certificate(
    pos: &Position,
    dir: &std::path::Path,
    name: &str,
) -> (Verdict, Vec<Block>) {
    use uttt::db::{Database, Source};
    use uttt::services::campaign::settled_campaign;
    use uttt::services::certify::certify_campaign;
    use uttt::services::StorePolicy;
    let database = Database::open(&dir.join(format!("{name}.db"))).unwrap();
    let options = SolveOptions {
        engine: Engine::PnDfpn,
        threads: 2,
        job_work: 300,
        split_threshold: 200,
        ..SolveOptions::default()
    };
    let policy = StorePolicy {
        min_work: 0,
        source: Source::Campaign,
    };
    let table = Table::new(16 << 20).unwrap();
    let report = Solver::new(&options, &table)
        .with_database(&database, policy)
        .as_campaign()
        .solve(pos);
    assert!(report.verdict.is_answered(), "{pos}");
    if report.searches.is_empty() {
        // Settled by the rules alone: no campaign is kept, and a plain certificate serves
        // (its blocks are version-2 blocks that refer to nothing).
        let stop = AtomicBool::new(false);
        let mut blocks = certify(pos, report.verdict, None, &table, 0.25, &stop)
            .unwrap()
            .blocks;
        for block in &mut blocks {
            block.version = 2;
        }
        return (report.verdict, blocks);
    }
    let settled = settled_campaign(&database, pos).unwrap().expect("settled");
    let stop = AtomicBool::new(false);
    // A fresh table: the pieces must be solved again.
    let table = Table::new(16 << 20).unwrap();
    let certificate = certify_campaign(pos, &settled, &table, 0.25, 2, &stop)
        .unwrap_or_else(|e| panic!("{pos}: {e}"));
    (settled.verdict, certificate.blocks)
}

/// The value (`X`, `O`, `draw`) a file's verified top blocks prove, or the first failure.
fn proven_value_v2(bytes: &[u8]) -> Result<String, String> {
    let blocks = read_blocks(&mut &bytes[..]).map_err(|e| e.to_string())?;
    let (results, referenced) = verify_blocks(&blocks);
    if let Some((i, Err(failure))) = results.iter().enumerate().find(|(_, r)| r.is_err()) {
        return Err(format!("block {}: {failure}", i + 1));
    }
    let tops: Vec<&Block> = blocks
        .iter()
        .zip(&referenced)
        .filter(|(_, r)| !**r)
        .map(|(b, _)| b)
        .collect();
    match tops.as_slice() {
        [one] if one.claim.kind == ClaimKind::Wins => Ok(one.claim.prover.letter().to_string()),
        [a, b] if a.claim.kind == ClaimKind::Holds && b.claim.kind == ClaimKind::Holds => {
            Ok("draw".into())
        }
        _ => Err(format!("{} top blocks", tops.len())),
    }
}

/// Line 67 of `positions/midgame.txt`: an O win that takes some 100,000 MID calls.
const O_WIN: &str = "X;O.O...O..;X..OOO..O/X.XX...X./O...O.X.O/XO..X..O./..XXO.X../.O...X.../OOO...XO./X.O...X../.OX.....X";

#[test]
fn campaign_certificates_verify_and_prove_the_oracle_value() {
    let dir = common::temp_dir("cert-v2");
    let positions = common::playout_positions(30, 515);
    // Files that open with a block at the position asked referring to the campaign's other
    // image, and claims the rules settle at the root, whose top block stands there instead.
    let stubs_seen = AtomicUsize::new(0);
    let settled_at_root = AtomicUsize::new(0);
    common::parallel_rows(&positions, |p| {
        let pos = parse_position(p).unwrap();
        let name = format!("{:x}", pos.hash());
        let (_, blocks) = campaign_certificate(&pos, &dir, &name);
        assert!(blocks.iter().all(|b| b.version == 2));
        let expected = common::oracle::oracle_value(p);
        assert_eq!(
            proven_value_v2(&file_bytes(&blocks)),
            Ok(expected.to_string()),
            "{p}"
        );
        // The proof is about the position asked, whichever image the campaign keeps.
        let (_, referenced) = verify_blocks(&blocks);
        let tops = blocks.iter().zip(&referenced).filter(|(_, r)| !**r);
        assert!(tops.clone().count() > 0);
        assert!(tops.clone().all(|(b, _)| b.position == pos), "{p}");
        let image = canonical(&pos).1;
        for (top, _) in tops {
            let refers_to_image = blocks
                .iter()
                .zip(&referenced)
                .any(|(b, r)| *r && b.position == image && b.claim == top.claim);
            if top.moves.is_empty() && image != pos && refers_to_image {
                stubs_seen.fetch_add(1, Ordering::Relaxed);
            }
            let kept_image = blocks.iter().any(|b| b.position == image);
            if kept_image && image != pos && leaf(&pos, Goal::at(top.claim, &pos)) == Some(true) {
                settled_at_root.fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    assert!(
        stubs_seen.into_inner() > 0,
        "no block referred to another image"
    );
    assert!(
        settled_at_root.into_inner() > 0,
        "no claim settled by the rules at the root of another image's campaign"
    );
}

#[test]
fn tampered_references_are_refused_with_the_reason() {
    let dir = common::temp_dir("cert-v2-tamper");
    // The canonical image, so that the file opens with the top block itself.
    let pos = canonical(&parse_position(O_WIN).unwrap()).1;
    let (verdict, blocks) = campaign_certificate(&pos, &dir, "o-win");
    assert_eq!(verdict, Verdict::Wins(Player::O));
    assert!(
        blocks.len() > 2,
        "the top block refers to pieces: {}",
        blocks.len()
    );
    assert_eq!(proven_value_v2(&file_bytes(&blocks)), Ok("O".into()));
    let (results, referenced) = verify_blocks(&blocks);
    assert!(results.iter().all(Result::is_ok));
    assert!(!referenced[0] && referenced[1..].iter().any(|&r| r));
    // The top block alone (as a file of one block) refers to nothing and fails.
    assert!(verify_block(&blocks[0]).is_err());

    // A referenced block tampered with: it fails, and so does the block referring to it.
    let target = (1..blocks.len()).find(|&i| referenced[i]).unwrap();
    let mut bad = blocks.clone();
    let last = bad[target].moves.len() - 1;
    let repeated = bad[target].moves[last];
    bad[target].moves.push(repeated);
    let (results, _) = verify_blocks(&bad);
    assert!(results[target].is_err());
    match &results[0] {
        Err(Failure::ReferenceFails { block, .. }) => assert_eq!(*block, target + 1),
        other => panic!("{other:?}"),
    }
    assert!(proven_value_v2(&file_bytes(&bad))
        .unwrap_err()
        .contains("does not verify"));

    // The pieces moved before the top block: references would point earlier.
    let mut reordered = blocks[1..].to_vec();
    reordered.push(blocks[0].clone());
    let (results, _) = verify_blocks(&reordered);
    let top = results.last().unwrap();
    assert!(
        top.as_ref()
            .unwrap_err()
            .to_string()
            .contains("comes earlier"),
        "{top:?}"
    );

    // A piece left out: its position is a leaf of nothing, and the moves run out there.
    let mut missing = blocks.clone();
    missing.remove(target);
    let (results, _) = verify_blocks(&missing);
    assert!(
        results[0].is_err(),
        "a reference to a position not in the file"
    );

    // A `holds` block standing in for a `wins` leaf.
    let mut weaker = blocks.clone();
    for block in &mut weaker[1..] {
        block.claim.kind = ClaimKind::Holds;
    }
    let (results, _) = verify_blocks(&weaker);
    let error = results[0].as_ref().unwrap_err().to_string();
    assert!(error.contains("weaker"), "{error}");

    // Another prover's block does not count either.
    let mut other = blocks.clone();
    for block in &mut other[1..] {
        block.claim.prover = Player::X;
    }
    assert!(verify_blocks(&other).0[0].is_err());
}

#[test]
fn a_version_2_reference_holds_under_every_symmetry() {
    // O wins at O_WIN with X to move: a top block without moves, each of X's moves leading to
    // the position of a later block, given as an image under the symmetry.
    let pos = parse_position(O_WIN).unwrap();
    let claim = Claim::unbounded(Player::O, ClaimKind::Wins);
    let children: Vec<Position> = pos.legal_moves().into_iter().map(|m| pos.play(m)).collect();
    for sym in 0..8 {
        let mut blocks = vec![Block {
            version: 2,
            claim,
            position: pos,
            moves: Vec::new(),
        }];
        for child in &children {
            let image = child.transform(sym);
            let (verdict, mut piece, _) = certify_with(&image, &dfpn(), 16 << 20);
            assert_eq!(verdict, Verdict::Wins(Player::O));
            piece[0].version = 2;
            blocks.push(piece.remove(0));
        }
        let (results, referenced) = verify_blocks(&blocks);
        assert!(
            results.iter().all(Result::is_ok),
            "symmetry {sym}: {:?}",
            results.iter().find(|r| r.is_err())
        );
        assert!(referenced[1..].iter().all(|&r| r), "symmetry {sym}");
        // As version 1, the top block may not refer: the moves run out at the first child.
        blocks[0].version = 1;
        assert!(matches!(
            verify_blocks(&blocks).0[0],
            Err(Failure::MissingBytes { .. })
        ));
    }
}

#[test]
fn thousands_of_blocks_of_one_position_each_refer_to_the_next() {
    // A hostile file's shape: every block at one position. Each block without moves is a leaf
    // by rule 4 (its position is the next block's, which verifies), the last holds the proof;
    // a check that scanned every block of a position for each would take the square.
    let (pos, mut proof) = sample();
    proof[0].version = 2;
    let count = 5_000;
    let mut blocks = vec![
        Block {
            version: 2,
            claim: proof[0].claim,
            position: pos,
            moves: Vec::new(),
        };
        count
    ];
    blocks.push(proof.remove(0));
    let (results, referenced) = verify_blocks(&blocks);
    assert!(results.iter().all(Result::is_ok));
    assert_eq!(referenced.iter().filter(|&&r| r).count(), count);
    assert!(!referenced[0]);
    let check = check_bytes(&file_bytes(&blocks)).unwrap();
    assert_eq!(check.proves().len(), 1, "{:?}", check.proves());
}

#[test]
fn a_raised_stop_flag_or_a_passed_deadline_stops_the_check() {
    let (_, blocks) = sample();
    let bytes = file_bytes(&blocks);
    let lowered = AtomicBool::new(false);
    let raised = AtomicBool::new(true);
    let past = Some(Instant::now());
    let far = Some(Instant::now() + Duration::from_secs(3600));
    assert!(matches!(
        check_bytes_until(&bytes, &raised, None),
        Err(CheckError::Stopped)
    ));
    assert!(matches!(
        check_bytes_until(&bytes, &lowered, past),
        Err(CheckError::Stopped)
    ));
    let check = check_bytes_until(&bytes, &lowered, far).unwrap();
    assert!(check.all_verified());
    // A file not in the format is still a format error, with its place.
    let Err(error) = check_bytes_until(b"hello\n", &lowered, far) else {
        panic!("`hello` is no certificate");
    };
    assert!(matches!(error, CheckError::Format(_)));
    assert!(error.to_string().contains("block 1, line 1"), "{error}");
    assert!(CheckError::Stopped.to_string().contains("stopped"));
}
