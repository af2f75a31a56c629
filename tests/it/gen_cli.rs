//! `uttt gen` through the built binary: seeded positions, random or played by short searches.
use std::process::Command;
use uttt::game::{parse_position, Outcome};

fn gen(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_uttt"))
        .arg("gen")
        .args(args)
        .output()
        .unwrap()
}

/// The positions printed by a successful `uttt gen`.
fn positions(args: &[&str]) -> Vec<String> {
    let out = gen(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn both_players_give_seeded_positions_in_play_at_the_asked_ply() {
    for player in ["random", "search"] {
        let args = |seed: &'static str| {
            [
                "--player",
                player,
                "--plies",
                "14",
                "--count",
                "3",
                "--seed",
                seed,
                "--search-nodes",
                "2000",
            ]
        };
        let first = positions(&args("4"));
        assert_eq!(first.len(), 3, "{player}");
        assert_eq!(first, positions(&args("4")), "{player}: the same seed");
        assert_ne!(first, positions(&args("5")), "{player}: another seed");
        for line in &first {
            let pos = parse_position(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(pos.stone_count(), 14, "{player}: {line}");
            assert_eq!(pos.outcome(), Outcome::InPlay, "{player}: {line}");
        }
    }
}

#[test]
fn a_negative_or_missing_noise_is_refused() {
    for noise in ["-1", "NaN"] {
        let noise_arg = format!("--noise={noise}");
        let out = gen(&["--player", "search", "--plies", "4", &noise_arg]);
        assert_eq!(out.status.code(), Some(2), "{noise}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--noise must be a number at least 0"),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn games_are_the_moves_that_reach_the_positions_of_the_same_seed() {
    for player in ["random", "search"] {
        let args = [
            "--player",
            player,
            "--plies",
            "81",
            "--allow-finished",
            "--count",
            "3",
            "--search-nodes",
            "2000",
        ];
        let finals = positions(&args);
        let games = positions(&[&args[..], &["--games"]].concat());
        assert_eq!(games.len(), 3);
        for (game, expected) in games.iter().zip(&finals) {
            let reached = uttt::game::parse_game_arg(game).unwrap();
            assert_eq!(
                reached.position,
                parse_position(expected).unwrap(),
                "{player}"
            );
            assert!(reached.position.is_over(), "{player}: played to the end");
            assert_eq!(
                reached.moves.unwrap().len(),
                reached.position.stone_count() as usize
            );
        }
    }
}
