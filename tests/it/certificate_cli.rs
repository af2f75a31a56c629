//! `uttt solve --certificate/--verify` and `uttt verify` through the built binary.
use crate::common;
use serde_json::Value;

/// X wins (about 190,000 nodes).
const MEDIUM: &str = "X;......@O.;O...XX.X./.....O.XX/XOOXX..../O.....O.O/OXO....OX/.OO....X./....O.XX./..XX..OOO/..X.XXO.O";
/// A draw (224 nodes).
const DRAW: &str = "X;.XO.....X;.XOXX.X.O/XXXXO.O../OOXX..OOO/OO..XOOXO/.OXOOXX.O/O..X..OXO/XOXOXX.XO/O.O.OO.X./..XXXXX..";

use crate::common::run_uttt as uttt;

#[test]
fn a_written_certificate_verifies_and_proves_the_answer() {
    let dir = common::temp_dir("cert-single");
    let file = dir.join("medium.cert");
    let path = file.to_str().unwrap();
    let (code, stdout, stderr) =
        uttt(&["solve", MEDIUM, "--certificate", path, "--table-mem", "64M"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("certificate "), "{stdout}");
    let (code, stdout, _) = uttt(&["verify", path]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("claim X wins  verified"), "{stdout}");
    assert!(
        stdout.contains(&format!("proves   X wins in {MEDIUM}")),
        "{stdout}"
    );

    // A flipped move byte: exit 3 (a failed certificate, its own code), the block and the
    // reason named.
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] = 200;
    std::fs::write(&file, &bytes).unwrap();
    let (code, stdout, _) = uttt(&["verify", path]);
    assert_eq!(code, 3, "{stdout}");
    assert!(
        stdout.contains("block 1  claim X wins  FAILED: move byte"),
        "{stdout}"
    );

    // Not a certificate, or no file at all: exit 2 with the place named.
    std::fs::write(&file, b"hello\n").unwrap();
    let (code, _, stderr) = uttt(&["verify", path]);
    assert_eq!(code, 2);
    assert!(stderr.contains("block 1, line 1"), "{stderr}");
    let (code, _, stderr) = uttt(&["verify", dir.join("missing").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot read certificate"), "{stderr}");
}

#[test]
fn verify_reports_certified_in_json_and_text() {
    let (code, stdout, stderr) = uttt(&["solve", DRAW, "--verify", "--json", "--table-mem", "16M"]);
    assert_eq!(code, 0, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["result"], "draw");
    assert_eq!(json["certified"], true);
    assert_eq!(json["certificate"]["blocks"], 2);
    assert!(json["certificate"]["path"].is_null(), "a temporary file");
    let (code, stdout, _) = uttt(&["solve", DRAW, "--verify", "--table-mem", "16M"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("certified  yes"), "{stdout}");
    // A single question's disproof is certified as the other side holding.
    let (code, stdout, _) = uttt(&["solve", DRAW, "--attacker", "X", "--verify", "--json"]);
    assert_eq!(code, 0);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["result"], "not X");
    assert_eq!(json["certified"], true);
    assert_eq!(json["certificate"]["blocks"], 1);
    // Unknown: nothing to certify, and no claim of certification.
    let (code, stdout, _) = uttt(&[
        "solve",
        "ee ea ae",
        "--node-limit",
        "100",
        "--verify",
        "--json",
    ]);
    assert_eq!(code, 1);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert!(json.get("certified").is_none(), "{json}");
}

/// A draw from `positions/bench.txt` (line 14; about 360,000 nodes): big enough that 16
/// threads split it into many jobs.
const BENCH_DRAW: &str = "X;@....O...;O.X..XX../.X.X...OO/XX....O../.......O./O.O..X.../.O..O..OO/OO..XX.X./O.O..XX.X/....X.OX.";

/// Certificates written after a 16-thread solve verify, with a normal and a tiny table (which
/// forces replacement while the certificate is searched again), and the certified value is
/// the one-threaded DFPN's.
#[test]
fn sixteen_thread_solves_write_certificates_that_verify() {
    let dir = common::temp_dir("cert-16");
    for position in [MEDIUM, BENCH_DRAW] {
        let (code, stdout, stderr) = uttt(&[
            "solve",
            position,
            "--engine",
            "dfpn",
            "--threads",
            "1",
            "--json",
        ]);
        assert_eq!(code, 0, "{stderr}");
        let reference: Value = serde_json::from_str(&stdout).unwrap();
        for table in ["64M", "64K"] {
            let file = dir.join(format!("{table}.cert"));
            let path = file.to_str().unwrap();
            let (code, stdout, stderr) = uttt(&[
                "solve",
                position,
                "--threads",
                "16",
                "--certificate",
                path,
                "--verify",
                "--json",
                "--table-mem",
                table,
            ]);
            assert_eq!(code, 0, "{stderr}");
            let json: Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(json["result"], reference["result"], "table {table}: {json}");
            assert_eq!(json["certified"], true, "table {table}: {json}");
            let (code, stdout, _) = uttt(&["verify", path]);
            assert_eq!(code, 0, "table {table}: {stdout}");
        }
    }
}

#[test]
fn a_batch_writes_one_certificate_per_line() {
    let dir = common::temp_dir("cert-batch");
    let data = format!("{}/tests/data/demo.txt", env!("CARGO_MANIFEST_DIR"));
    let certs = dir.join("certs");
    let (code, stdout, stderr) = uttt(&[
        "solve",
        "--file",
        &data,
        "--certificate",
        certs.to_str().unwrap(),
        "--verify",
        "--json",
        "--table-mem",
        "64M",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let results: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &Value| v["type"] == "result")
        .collect();
    assert!(!results.is_empty());
    for result in &results {
        assert_eq!(result["certified"], true, "{result}");
        let file = certs.join(format!("line-{}.cert", result["line"]));
        let (code, stdout, _) = uttt(&["verify", file.to_str().unwrap()]);
        assert_eq!(code, 0, "{stdout}");
        let value = result["result"].as_str().unwrap();
        let proves = if value == "draw" {
            "draw".to_string()
        } else {
            format!("{value} wins")
        };
        assert!(
            stdout.contains(&format!("proves   {proves} in")),
            "{stdout}"
        );
    }
}

#[test]
fn a_huge_move_count_is_a_parse_error_not_a_crash() {
    let dir = common::temp_dir("cert-huge");
    let file = dir.join("huge.cert");
    let text = format!(
        "uttt-certificate 1\nclaim X wins\nposition {MEDIUM}\nmoves 18446744073709551615\nab"
    );
    std::fs::write(&file, text).unwrap();
    let (code, _, stderr) = uttt(&["verify", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("block 1, line 4") && stderr.contains("ends inside"),
        "{stderr}"
    );
}

#[test]
fn the_temporary_certificate_never_writes_through_a_planted_link() {
    let dir = common::temp_dir("cert-link");
    let victim = dir.join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    // Plant links at the names a --verify run of this shell's pid could use, then run it.
    let script = format!(
        "ln -s {victim} {dir}/uttt-$$-solve.cert; for n in 0 1 2 3; do ln -s {victim} {dir}/uttt-$$-$n-solve.cert; done; exec {uttt} solve '{DRAW}' --verify --json --table-mem 16M",
        victim = victim.display(),
        dir = dir.display(),
        uttt = env!("CARGO_BIN_EXE_uttt"),
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .env("TMPDIR", dir.as_os_str())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("\"certified\":true"), "{stdout}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    // The temporary file is gone; only the planted links remain.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| !e.file_type().unwrap().is_symlink() && e.path() != victim)
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_check_past_its_time_limit_stops_with_an_error_and_exit_1() {
    let dir = common::temp_dir("cert-time-limit");
    let file = dir.join("draw.cert");
    let path = file.to_str().unwrap();
    let (code, _, stderr) = uttt(&["solve", DRAW, "--certificate", path, "--table-mem", "16M"]);
    assert_eq!(code, 0, "{stderr}");
    // No time at all: stopped before the first block, nothing stated.
    let (code, stdout, stderr) = uttt(&["verify", path, "--time-limit", "0ms"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("stopped before it finished") && stderr.contains("--time-limit"),
        "{stderr}"
    );
    // Time enough: the usual report.
    let (code, stdout, _) = uttt(&["verify", path, "--time-limit", "1h"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("proves   draw in"), "{stdout}");
}
