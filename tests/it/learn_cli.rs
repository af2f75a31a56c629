//! `uttt learn` and `--guide` through the built binary: samples and weights that depend on
//! their seed alone, predictions, damaged weights refused by name, and answers that do not
//! depend on the guide.
use crate::common::{run_uttt, temp_dir};
use serde_json::Value;

/// Samples of a few short searches (quick enough for the suite), with `threads` threads.
fn samples(threads: &str, output: &std::path::Path) -> String {
    let output = output.to_str().unwrap();
    let (code, _, err) = run_uttt(&[
        "learn",
        "data",
        "--games",
        "8",
        "--seed",
        "5",
        "--node-limit",
        "3000",
        "--min-stones",
        "30",
        "--max-stones",
        "50",
        "--threads",
        threads,
        "--table-mem",
        "1M",
        "--keep-work",
        "16",
        "--exclude",
        "positions/demo.txt",
        "--output",
        output,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("8 games"), "{err}");
    std::fs::read_to_string(output).unwrap()
}

#[test]
fn samples_and_weights_depend_on_their_seed_alone_and_the_model_predicts() {
    let dir = temp_dir("learn");
    let (one, two) = (dir.join("one.jsonl"), dir.join("two.jsonl"));
    let text = samples("1", &one);
    assert_eq!(text, samples("2", &two), "the threads change no sample");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() > 50, "{}", lines.len());
    for line in &lines {
        for key in [
            "position", "rules", "attacker", "result", "work", "root", "game",
        ] {
            assert!(line.get(key).is_some(), "{key} in {line}");
        }
        let result = line["result"].as_str().unwrap();
        assert!(
            ["proved", "disproved", "unsettled"].contains(&result),
            "{line}"
        );
        if result == "unsettled" {
            assert!(
                line["root"].as_bool().unwrap(),
                "only a root is left open: {line}"
            );
            assert!(line["work"].as_u64().unwrap() >= 3000, "{line}");
        }
    }

    let train = |out: &std::path::Path| {
        let (code, stdout, err) = run_uttt(&[
            "learn",
            "train",
            one.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--epochs",
            "2",
            "--hold-out",
            "4",
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        assert!(
            report["held_out"]["samples"].as_u64().unwrap() > 0,
            "{report}"
        );
        std::fs::read(out).unwrap()
    };
    let (first, second) = (dir.join("a.bin"), dir.join("b.bin"));
    assert_eq!(
        train(&first),
        train(&second),
        "same samples and seed, same weights"
    );

    let (code, stdout, err) = run_uttt(&[
        "learn",
        "quality",
        two.to_str().unwrap(),
        "--weights",
        first.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let quality: Value = serde_json::from_str(&stdout).unwrap();
    assert!(quality["proofs"]["learned"].is_number(), "{quality}");

    // Predictions: one line per position, a bad line named with its number, exit 1.
    let positions = dir.join("positions.txt");
    std::fs::write(
        &positions,
        "# two positions and a bad one\nee ea ae\nnot a position\nstart\n",
    )
    .unwrap();
    let (code, stdout, err) = run_uttt(&[
        "learn",
        "predict",
        positions.to_str().unwrap(),
        "--weights",
        first.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("positions.txt:3"), "{err}");
    let predictions: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(predictions.len(), 2);
    for prediction in &predictions {
        let estimate = &prediction["estimate"];
        let total: f64 = ["x", "o", "draw"]
            .iter()
            .map(|k| estimate[k].as_f64().unwrap())
            .sum();
        assert!((total - 1.0).abs() < 0.01, "{prediction}");
        assert!(
            prediction["x_wins"]["prove_log2"].is_number(),
            "{prediction}"
        );
    }
    assert_eq!(predictions[0]["line"], 2);

    // A damaged weights file is refused, naming the problem.
    let mut damaged = std::fs::read(&first).unwrap();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    let bad = dir.join("damaged.bin");
    std::fs::write(&bad, damaged).unwrap();
    let (code, _, err) = run_uttt(&[
        "learn",
        "predict",
        positions.to_str().unwrap(),
        "--weights",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("damaged"), "{err}");
}

#[test]
fn the_guide_changes_the_work_never_the_answer() {
    for position in [
        "X;.......X@;XX....XOO/.OX..X..O/..O...XOO/....X.OO./OO..O..XX/...XXO.../O.X.O...X/XXXX.O.O./O..OX..X.",
        "X;.O.....O.;.O.....OX/..O.X.OOO/..XOX.O../.O..O.XX./XXO.OO.X./XX.X...../OX.....XX/.OXXO..O./.X..XOO..",
    ] {
        let answer = |guide: &str, engine: &str| {
            let (code, stdout, err) = run_uttt(&[
                "solve", position, "--guide", guide, "--engine", engine, "--threads", "2",
                "--table-mem", "16M", "--json",
            ]);
            assert_eq!(code, 0, "{err}");
            let json: Value = serde_json::from_str(&stdout).unwrap();
            json["result"].clone()
        };
        for engine in ["dfpn", "pn-dfpn"] {
            let rules = answer("rules", engine);
            for guide in ["learned", "calibrated"] {
                assert_eq!(answer(guide, engine), rules, "{position} {engine} {guide}");
            }
        }
    }
}

#[test]
fn the_calibration_depends_on_its_samples_alone_and_steers_a_solve() {
    let dir = temp_dir("learn-calibrate");
    let data = dir.join("samples.jsonl");
    samples("2", &data);
    let calibrate = |out: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "learn",
            "calibrate",
            data.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, stdout, err) = run_uttt(&args);
        assert_eq!(code, 0, "{err}");
        assert!(stdout.contains("checksum"), "{stdout}");
        std::fs::read(out).unwrap()
    };
    let (one, two, flat) = (
        dir.join("one.bin"),
        dir.join("two.bin"),
        dir.join("flat.bin"),
    );
    let first = calibrate(&one, &[]);
    assert_eq!(
        first,
        calibrate(&two, &[]),
        "the same samples give the same bytes"
    );
    assert_ne!(first, calibrate(&flat, &["--proof-shift", "0"]));
    // A bad line is named by file and line.
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"position\": 3}\n").unwrap();
    let (code, _, err) = run_uttt(&["learn", "calibrate", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.jsonl:1:"), "{err}");
}
