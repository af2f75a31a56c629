//! The second, independent certificate checker (`scripts/check_certificate.py`: the rules
//! written again in plain Python, sharing nothing with `uttt`) against the verifier: it
//! accepts the bundled proof of the whole game under won boards open and refuses it two plies
//! tighter, and on certificates the solver writes under every rule set, bounded and not, it
//! visits exactly the positions and reads exactly the bytes the verifier does.
use crate::common;
use crate::common::playout_positions_under;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use uttt::certificate::{verify_block, write_block};
use uttt::game::{parse_position_under, Player, Rules};
use uttt::search::{Engine, SolveOptions};
use uttt::services::{certify, Solver};
use uttt::table::Table;

/// Runs the Python checker on `files`: its exit code and its output.
fn python_check(files: &[PathBuf]) -> (i32, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check_certificate.py");
    let output = Command::new("python3")
        .arg(script)
        .args(files)
        .output()
        .expect("python3 runs (CI machines have it)");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code().unwrap_or(-1), text)
}

/// The `(positions, bytes)` of each block the Python checker reports verified, in order.
fn python_counts(output: &str) -> Vec<(u64, usize)> {
    output
        .lines()
        .filter_map(|line| {
            let counts = line.split(": verified (").nth(1)?;
            let mut numbers = counts
                .split(|c: char| !c.is_ascii_digit())
                .filter(|word| !word.is_empty());
            Some((numbers.next()?.parse().ok()?, numbers.next()?.parse().ok()?))
        })
        .collect()
}

#[test]
fn the_independent_checker_accepts_the_whole_game_proof_and_refuses_it_tighter() {
    let (code, output) = python_check(&[common::open_game_proof()]);
    assert_eq!(code, 0, "{output}");
    assert_eq!(python_counts(&output), [(81_240, 51_734)], "{output}");

    let tighter = common::open_game_proof_claiming(41);
    let dir = common::temp_dir("independent-checker");
    let path = dir.join("tighter.cert");
    std::fs::write(&path, tighter).unwrap();
    let (code, output) = python_check(&[path]);
    assert_eq!(code, 1, "{output}");
    assert!(
        output.contains("FAILED: the claim's plies run out with the game in play"),
        "{output}"
    );
}

#[test]
fn the_independent_checker_counts_what_the_verifier_counts_under_every_rule_set() {
    let dir = common::temp_dir("independent-checker-agreement");
    let options = SolveOptions {
        engine: Engine::Dfpn,
        ..SolveOptions::default()
    };
    let stop = AtomicBool::new(false);
    let mut files = Vec::new();
    let mut expected = Vec::new();
    for rules in [Rules::Common, Rules::WonBoardsOpen, Rules::CodinGame] {
        for (index, notation) in
            playout_positions_under(rules, 44, 10, 0x7079 + rules.index() as u64)
                .iter()
                .enumerate()
        {
            let pos = parse_position_under(notation, rules).unwrap();
            // Unbounded on even rows, a bound on odd ones; both attackers over the rows.
            let max_plies = (index % 2 == 1).then_some(7 + index as u32);
            let attacker = [Player::X, Player::O][index / 2 % 2];
            let asked = SolveOptions {
                attacker: max_plies.map(|_| attacker),
                max_plies,
                ..options.clone()
            };
            let table = Table::new(16 << 20).unwrap();
            let report = Solver::new(&asked, &table).solve(&pos);
            let certificate = certify(&pos, report.verdict, max_plies, &table, 0.25, &stop)
                .unwrap_or_else(|e| panic!("{notation}: {e}"));
            let mut bytes = Vec::new();
            for block in &certificate.blocks {
                let verified = verify_block(block).unwrap_or_else(|e| panic!("{notation}: {e}"));
                expected.push((verified.positions, verified.bytes));
                write_block(&mut bytes, block).unwrap();
            }
            let path = dir.join(format!("{}-{index}.cert", rules.name()));
            std::fs::write(&path, bytes).unwrap();
            files.push(path);
        }
    }
    let (code, output) = python_check(&files);
    assert_eq!(code, 0, "{output}");
    assert_eq!(python_counts(&output), expected, "{output}");
}
