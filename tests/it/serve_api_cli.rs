//! `uttt serve`'s reviews, certificates, progress and database: each answers what the command
//! line answers, a certificate the server writes passes `uttt verify`, progress comes as
//! server-sent events, and a search stops when its client goes away.
use crate::common;
use crate::common::serve::{escaped, moves_with, send, Served, LATE};
use serde_json::Value;
use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// A random game of 47 plies (`uttt gen --plies 81 --count 1 --seed 3 --games
/// --allow-finished`) whose last dozen positions solve in well under a second each, with
/// mistakes among them.
const GAME: &str = "ba ag gf fa ab bg gb bi ie eh hg gg gd dd dg gh hc ca ac cf fh hi ig ga af \
                    fi ib bb bf fg gi ih hb bh he eb dh ei ic cd da ae ef ff fc cg ge";

/// X wins; solved in about a second (the first of positions/demo.txt).
const X_WINS: &str = "X;.....@O..;......X../.X.OXX.../.OOX.XX../..O.X..XO/..O.OXXX./.O.XOOX.X/.O.OOO..O/O.X..OX../..X..O.OX";

/// The JSON lines a command prints.
fn json_lines(args: &[&str]) -> Vec<Value> {
    let (code, out, err) = common::run_uttt(args);
    assert!(code == 0 || code == 1, "{args:?}: exit {code}: {err}");
    out.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

#[test]
fn a_review_answers_the_lines_of_uttt_review() {
    let served = Served::start(&["--threads", "2"]);
    let api = served.json(&format!("/api/review?game={}&time_limit=4", escaped(GAME)));
    let api = api.as_array().expect("an array of the review's lines");
    let cli = json_lines(&[
        "review",
        GAME,
        "--json",
        "--quiet",
        "--time-limit",
        "2s",
        "--threads",
        "2",
    ]);
    assert_eq!(api.len(), cli.len());
    assert_eq!(api.len(), 49, "48 positions and the summary");
    let (api_summary, cli_summary) = (&api[48], &cli[48]);
    assert_eq!(api_summary["type"], "summary");
    assert_eq!(api_summary["result"], cli_summary["result"]);
    assert_eq!(api_summary["result"], "X");
    // The same keys in the same order as the command's lines.
    let keys = |line: &Value| {
        line.as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(api_summary), keys(cli_summary));
    // Proved values are the game's whoever proves them: where both reviews know the values
    // around a move, they and its mark agree.
    let mut compared = 0;
    for (a, c) in api[..48].iter().zip(&cli[..48]) {
        // The same keys, but for the estimate: each review gives one exactly where its own
        // value is unknown, and the two may know different positions within their limits.
        let without_estimate = |line: &Value| {
            if line.get("estimate").is_some() {
                assert_eq!(line["value"], "unknown", "{line}");
            }
            let mut found = keys(line);
            found.retain(|key| key != "estimate");
            found
        };
        assert_eq!(without_estimate(a), without_estimate(c));
        assert_eq!(
            (&a["ply"], &a["position"], &a["move"]),
            (&c["ply"], &c["position"], &c["move"])
        );
        if a["value"] != "unknown" && c["value"] != "unknown" {
            assert_eq!(a["value"], c["value"], "ply {}", a["ply"]);
            if a["mark"] != "unknown" && c["mark"] != "unknown" {
                assert_eq!(a["mark"], c["mark"], "ply {}", a["ply"]);
                compared += 1;
            }
        }
    }
    assert!(compared >= 8, "only {compared} plies known to both");
    assert!(api.iter().any(|line| line["mark"] == "mistake"));

    // A position without its moves cannot be reviewed: the command line's words.
    let (code, _, stderr) = common::run_uttt(&["review", LATE]);
    assert_eq!(code, 2);
    let (status, body) = served.get(&format!("/api/review?game={}", escaped(LATE)));
    assert_eq!(status, 400);
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["error"], stderr.trim().trim_start_matches("error: "));
}

#[test]
fn a_certificate_from_the_server_passes_uttt_verify_and_the_server_checks_certificates() {
    let served = Served::start(&["--threads", "2"]);
    let head = |method: &str, path: &str, extra: &str| {
        format!(
            "{method} {path} HTTP/1.1\r\nHost: {}{extra}",
            served.address
        )
    };
    let path = format!("/api/certificate?position={}", escaped(X_WINS));
    let file = send(&served.address, &head("GET", &path, ""), b"");
    assert_eq!(file.status, 200, "{}", file.text());
    assert_eq!(
        file.header("Content-Disposition"),
        Some("attachment; filename=\"uttt-x.cert\"")
    );
    let dir = common::temp_dir("serve-certificate");
    let saved = dir.join("uttt-x.cert");
    std::fs::write(&saved, &file.body).unwrap();
    let saved = saved.to_str().unwrap();
    let (code, out, err) = common::run_uttt(&["verify", saved, "--json"]);
    assert_eq!(code, 0, "{err}");
    let cli: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        cli["proves"],
        serde_json::json!([format!("X wins in {X_WINS}")])
    );

    // The server's check of it is `uttt verify --json`'s, the file named as asked.
    let post = |body: &[u8]| {
        let extra = format!("\r\nContent-Length: {}", body.len());
        send(
            &served.address,
            &head("POST", "/api/verify?name=uttt-x.cert", &extra),
            body,
        )
    };
    let checked = post(&file.body);
    assert_eq!(checked.status, 200, "{}", checked.text());
    let mut api: Value = serde_json::from_slice(&checked.body).unwrap();
    let mut cli = cli;
    for json in [&mut api, &mut cli] {
        json["file"] = Value::Null;
        json["time_ms"] = Value::Null;
    }
    assert_eq!(api, cli);
    // A certificate with a byte of its proof changed fails, there as here.
    let mut broken = file.body.clone();
    let last = broken.len() - 2;
    broken[last] ^= 0x55;
    std::fs::write(dir.join("broken.cert"), &broken).unwrap();
    let broken_path = dir.join("broken.cert");
    let (code, out, _) = common::run_uttt(&["verify", broken_path.to_str().unwrap(), "--json"]);
    let checked = post(&broken);
    match code {
        // The change broke the file's format: a 400 with the format's words.
        2 => {
            assert_eq!(checked.status, 400, "{}", checked.text());
            assert!(checked.text().contains("certificate uttt-x.cert: block 1"));
        }
        _ => {
            assert_eq!(code, 3, "{out}");
            let api: Value = serde_json::from_slice(&checked.body).unwrap();
            assert_eq!(api["verified"], false);
            let cli: Value = serde_json::from_str(&out).unwrap();
            assert_eq!(api["blocks"][0]["error"], cli["blocks"][0]["error"]);
        }
    }
    // What is not a certificate, or not sent as one, is refused with words for it.
    for (request, body, status) in [
        (
            head("POST", "/api/verify", "\r\nContent-Length: 7"),
            &b"garbage"[..],
            400,
        ),
        (head("POST", "/api/verify", ""), b"", 400),
        (
            head("POST", "/api/verify", "\r\nTransfer-Encoding: chunked"),
            b"0\r\n\r\n",
            411,
        ),
        (
            head("POST", "/api/verify", "\r\nContent-Length: 99999999999"),
            b"",
            413,
        ),
        (head("GET", "/api/verify", ""), b"", 405),
        (head("POST", "/api/solve?position=start", ""), b"", 405),
    ] {
        let answer = send(&served.address, &request, body);
        assert_eq!(answer.status, status, "{request}: {}", answer.text());
        let error: Value = serde_json::from_slice(&answer.body).unwrap();
        assert!(error["error"].is_string(), "{request}");
    }
    // No certificate for what a time limit leaves unsolved.
    let (status, body) = served.get("/api/certificate?position=start&time_limit=0.2");
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("was not solved within 0.2 s"), "{body}");
}

#[test]
fn progress_comes_as_server_sent_events_then_the_answer() {
    let served = Served::start(&[]);
    let events = |path: &str| {
        let head = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream",
            served.address
        );
        let answer = send(&served.address, &head, b"");
        assert_eq!(answer.status, 200, "{}", answer.text());
        assert_eq!(
            answer.header("Content-Type"),
            Some("text/event-stream; charset=utf-8")
        );
        answer
            .text()
            .split("\n\n")
            .filter(|event| !event.is_empty())
            .map(|event| {
                let (name, data) = event.split_once('\n').unwrap();
                let name = name.strip_prefix("event: ").unwrap().to_string();
                let data: Value = serde_json::from_str(data.strip_prefix("data: ").unwrap())
                    .unwrap_or_else(|e| panic!("{e}: {event}"));
                (name, data)
            })
            .collect::<Vec<_>>()
    };
    let long = events("/api/solve?position=start&time_limit=1.6");
    let (last, progress) = long.split_last().unwrap();
    assert_eq!(last.0, "result");
    assert_eq!(last.1["result"], "unknown");
    assert!(progress.len() >= 2, "{progress:?}");
    assert!(progress.iter().all(|(name, _)| name == "progress"));
    let nodes: Vec<u64> = progress
        .iter()
        .map(|(_, d)| d["nodes"].as_u64().unwrap())
        .collect();
    assert!(
        nodes.windows(2).all(|w| w[0] <= w[1]) && nodes[0] > 0,
        "{nodes:?}"
    );
    // A quick search's answer is the same JSON as without events.
    let quick = events(&format!("/api/solve?position={}", escaped(LATE)));
    assert_eq!(quick.last().unwrap().0, "result");
    assert_eq!(quick.last().unwrap().1["result"], "draw");
    // A review's progress says how far its walk has got.
    let review = events(&format!(
        "/api/review?game={}&time_limit=1.2",
        escaped("ee ea ae")
    ));
    assert!(review[0].1["positions_done"].is_u64(), "{review:?}");
    assert!(review.last().unwrap().1.is_array());
}

#[test]
fn a_search_whose_client_goes_away_is_stopped() {
    let served = Served::start(&["--max-searches", "1", "--time-limit", "600s"]);
    let mut client = TcpStream::connect(&served.address).unwrap();
    write!(
        client,
        "GET /api/solve?position=start HTTP/1.1\r\nHost: {}\r\n\r\n",
        served.address
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // The slot is taken while the client waits.
    let (status, _) = served.get("/api/solve?position=ee&time_limit=0.1");
    assert_eq!(status, 503);
    drop(client);
    // It is free again soon after the client went away (else the search ran 600 s).
    let gone = Instant::now();
    loop {
        let (status, body) = served.get("/api/solve?position=ee+ea+ae&time_limit=0.1");
        if status == 200 {
            break;
        }
        assert_eq!(status, 503, "{body}");
        assert!(
            gone.elapsed() < Duration::from_secs(10),
            "the search goes on"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_database_keeps_what_the_server_solved() {
    let dir = common::temp_dir("serve-db");
    let db = dir.join("solved.db");
    let db_arg = db.to_str().unwrap();
    {
        let served = Served::start(&["--db", db_arg, "--threads", "2"]);
        let solved = served.json(&format!("/api/solve?position={}", escaped(X_WINS)));
        assert_eq!(solved["result"], "X");
        assert!(
            solved["database"]["stored"].as_u64().unwrap() > 0,
            "{solved}"
        );
    }
    // The command line, with the same database, answers from it without a search.
    let (code, out, err) = common::run_uttt(&["solve", X_WINS, "--db", db_arg, "--json"]);
    assert_eq!(code, 0, "{err}");
    let solved: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(solved["result"], "X");
    assert_eq!(solved["database"]["answered"], true, "{solved}");
    let (_, stats, _) = common::run_uttt(&["db", "export", db_arg]);
    assert!(stats.contains("\"serve\""), "{stats}");
}

#[test]
fn how_soon_a_win_comes_is_the_command_lines() {
    let served = Served::start(&["--threads", "2"]);
    let (code, out, err) = common::run_uttt(&["solve", X_WINS, "--win-in", "exact", "--json"]);
    assert_eq!(code, 0, "{err}");
    let cli: Value = serde_json::from_str(&out).unwrap();
    let api = served.json(&format!(
        "/api/solve?position={}&win_in=exact",
        escaped(X_WINS)
    ));
    assert!(cli["win_in"].is_u64(), "{cli}");
    assert_eq!(api["win_in"], cli["win_in"]);
    // Each decisive move of an analysis, counted from before it.
    let (_, out, _) = common::run_uttt(&["analyze", LATE, "--win-in", "exact", "--json"]);
    let cli: Value = serde_json::from_str(&out).unwrap();
    let api = served.json(&format!(
        "/api/analyze?position={}&win_in=exact",
        escaped(LATE)
    ));
    let distances = moves_with(&api, "win_in");
    assert_eq!(distances, moves_with(&cli, "win_in"));
    assert!(distances.iter().any(|(_, d)| d != "null"));
    // Without the parameter, no win_in.
    let plain = served.json(&format!("/api/solve?position={}", escaped(X_WINS)));
    assert!(plain.get("win_in").is_none());
    // A review's won positions: where both know the exact distance, it is the same.
    let api = served.json(&format!(
        "/api/review?game={}&time_limit=6&win_in=exact",
        escaped(GAME)
    ));
    let cli = json_lines(&[
        "review",
        GAME,
        "--win-in",
        "exact",
        "--json",
        "--quiet",
        "--time-limit",
        "2s",
    ]);
    let mut compared = 0;
    for (a, c) in api.as_array().unwrap().iter().zip(&cli) {
        if a["reviewed"] == true && c["reviewed"] == true {
            assert!(a.get("slower_win").is_some() && c.get("slower_win").is_some());
        }
        if a["win_in"].is_u64() && c["win_in"].is_u64() {
            assert_eq!(a["win_in"], c["win_in"], "ply {}", a["ply"]);
            assert_eq!(a["slower_win"], c["slower_win"], "ply {}", a["ply"]);
            compared += 1;
        }
    }
    assert!(compared >= 3, "only {compared} distances known to both");
}

#[test]
fn play_answers_the_json_of_uttt_play_and_keeps_its_tree_within_a_game() {
    let served = Served::start(&["--threads", "2"]);
    let opening = "ee ea";
    let first = served.json(&format!(
        "/api/play?position={}&time_limit=0.4",
        escaped(opening)
    ));
    let (_, cli, _) = common::run_uttt(&["play", opening, "--time-limit", "200ms", "--json"]);
    let cli: Value = serde_json::from_str(&cli).unwrap();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&first), keys(&cli));
    assert_eq!(first["proved"], false);
    assert_eq!(first["reused_playouts"], 0);
    assert!(
        first["estimate"]["playouts"].as_u64().unwrap() > 1000,
        "{first}"
    );
    // The game goes on by the move played and the reply the tree expects: its tree is kept.
    let pv = first["pv"].as_array().unwrap();
    let next = format!(
        "{opening} {} {}",
        pv[0].as_str().unwrap(),
        pv[1].as_str().unwrap()
    );
    let second = served.json(&format!(
        "/api/play?position={}&time_limit=0.4",
        escaped(&next)
    ));
    assert!(second["reused_playouts"].as_u64().unwrap() > 0, "{second}");
    // A late drawn position is proved, and its move keeps the draw.
    let late = served.json(&format!(
        "/api/play?position={}&time_limit=5",
        escaped(LATE)
    ));
    assert_eq!(late["result"], "draw", "{late}");
    assert_eq!(late["proved"], true);
    assert!(late["estimate"].is_null());
}
