//! `uttt serve`: the JSON API answers as the command line does, refuses bad input with its
//! words, stays safe under load, and stops cleanly on a signal.
use crate::common;
use crate::common::serve::{escaped, moves_with, search_holding_the_slot, Served, LATE};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

#[test]
fn the_api_answers_what_the_command_line_answers() {
    let served = Served::start(&[]);
    let (code, cli, _) = common::run_uttt(&["analyze", LATE, "--json", "--threads", "1"]);
    assert_eq!(code, 0);
    let cli: Value = serde_json::from_str(&cli).unwrap();
    let api = served.json(&format!("/api/analyze?position={}", escaped(LATE)));
    assert_eq!(api["position"], cli["position"]);
    assert_eq!(api["value"], cli["value"]);
    assert_eq!(moves_with(&api, "value"), moves_with(&cli, "value"));
    // The keys in the same order as the command's `--json`, read from the raw texts (a parsed
    // object's keys come out sorted).
    let (_, raw_api) = served.get(&format!("/api/analyze?position={}", escaped(LATE)));
    let (_, raw_cli, _) = common::run_uttt(&["analyze", LATE, "--json", "--threads", "1"]);
    let order = |raw: &str| {
        let mut keys: Vec<(usize, String)> = cli
            .as_object()
            .unwrap()
            .keys()
            .map(|key| {
                let at = raw.find(&format!("\"{key}\":"));
                (at.unwrap_or_else(|| panic!("{key} in {raw}")), key.clone())
            })
            .collect();
        keys.sort();
        keys.into_iter().map(|(_, key)| key).collect::<Vec<_>>()
    };
    assert_eq!(order(&raw_api), order(&raw_cli));

    let (code, cli, _) = common::run_uttt(&["solve", LATE, "--json", "--threads", "1"]);
    assert_eq!(code, 0);
    let cli: Value = serde_json::from_str(&cli).unwrap();
    let api = served.json(&format!("/api/solve?position={}", escaped(LATE)));
    assert_eq!(api["result"], cli["result"]);
    assert_eq!(api["result"], "draw");

    // The position after a click, in any notation the command line reads.
    let shown = served.json("/api/show?position=ee+ea&play=ae");
    let (_, expected, _) = common::run_uttt(&["show", "ee ea ae", "--json"]);
    let expected: Value = serde_json::from_str(&expected).unwrap();
    assert_eq!(shown["position"], expected["position"]);
    assert_eq!(shown["to_move"], "O");
    assert_eq!(shown["playable_boards"], serde_json::json!([4]));
    let link = "https://uttt.ai/init?actions=x40o38";
    let from_link = served.json(&format!("/api/show?position={}", escaped(link)));
    let (_, expected, _) = common::run_uttt(&["show", link, "--json"]);
    let expected: Value = serde_json::from_str(&expected).unwrap();
    assert_eq!(from_link["position"], expected["position"]);
    // And back in uttt.ai's notation, to copy, as `uttt show` writes it.
    assert_eq!(
        from_link["notations"]["uttt_ai_state"],
        expected["notations"]["uttt_ai_state"]
    );
    assert_eq!(
        from_link["notations"]["uttt_ai_link"],
        expected["notations"]["uttt_ai_link"]
    );
}

#[test]
fn bad_requests_get_the_command_lines_error_and_the_server_goes_on() {
    let served = Served::start(&[]);
    let (code, _, stderr) = common::run_uttt(&["solve", "ee zz"]);
    assert_eq!(code, 2);
    let (status, body) = served.get("/api/solve?position=ee+zz");
    assert_eq!(status, 400, "{body}");
    let error: Value = serde_json::from_str(&body).unwrap();
    let text = error["error"].as_str().unwrap();
    let cli_text = stderr.trim().trim_start_matches("error: ");
    assert_eq!(text, cli_text);
    for (path, status) in [
        ("/api/solve", 400),
        ("/api/analyze?position=start&time_limit=soon", 400),
        ("/api/show?position=ee&play=aa", 400),
        ("/api/show?position=%ZZ", 400),
        ("/api/show?position=start&rules=chess", 400),
        ("/nothing/here", 404),
        (
            "/api/analyze?position=X%3B...XXX...%3BXXX......%2F........%2F",
            400,
        ),
    ] {
        let (got, body) = served.get(path);
        assert_eq!(got, status, "{path}: {body}");
        let error: Value = serde_json::from_str(&body).unwrap();
        assert!(!error["error"].as_str().unwrap().is_empty(), "{path}");
    }
    // Still serving.
    assert_eq!(served.json("/api/show?position=start")["to_move"], "X");
}

#[test]
fn the_page_is_one_self_contained_file() {
    let served = Served::start(&[]);
    let (status, page) = served.get("/");
    assert_eq!(status, 200);
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..40]);
    assert!(page.len() < 300 << 10, "{} bytes", page.len());
    // Nothing is loaded from anywhere else: no absolute URL in a src or href, no import.
    for outside in ["src=\"http", "href=\"http", "@import", "src=\"//"] {
        assert!(!page.contains(outside), "{outside}");
    }
    assert!(page.contains("/api/show") && page.contains("/api/analyze"));
}

#[test]
fn searches_beyond_the_limit_get_503_while_show_still_answers() {
    let served = Served::start(&["--max-searches", "1", "--time-limit", "3s"]);
    // A search of the empty board, which runs to its limit, holds the one slot.
    let long = search_holding_the_slot(&served);
    let started = Instant::now();
    let shown = served.json("/api/show?position=start");
    assert_eq!(shown["legal_moves"].as_array().unwrap().len(), 81);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let (status, body) = long.join().unwrap();
    assert_eq!(status, 200, "{body}");
    let json: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["result"], "unknown");
    // The slot is free again.
    let json = served.json("/api/solve?position=ee+ea+ae&time_limit=0.2");
    assert_eq!(json["result"], "unknown");
}

#[test]
fn a_signal_stops_the_server_and_its_searches() {
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let served = Served::start(&["--time-limit", "600s", "--max-searches", "1"]);
        // A search of the empty board that only the signal ends.
        let search = search_holding_the_slot(&served);
        // A client that connects and sends nothing does not hold the shutdown up.
        let _silent = TcpStream::connect(&served.address).unwrap();
        assert_eq!(served.stop_with(signal), Some(code), "SIG{signal}");
        // The running search was stopped and answered with what it knew.
        let (status, body) = search.join().unwrap();
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("\"result\":\"unknown\""), "{body}");
    }
}

#[test]
fn a_request_with_a_body_is_refused_unread_and_the_server_goes_on() {
    let served = Served::start(&[]);
    for head in [
        "POST /api/show?position=start HTTP/1.1\r\nContent-Length: 99999999999999999\r\n\r\n",
        "GET /api/show?position=start HTTP/1.1\r\nContent-Length: 99999999999999999\r\n\r\n",
        "GET /api/show?position=start HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "NONSENSE\r\n\r\n",
    ] {
        let mut stream = TcpStream::connect(&served.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream.write_all(head.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let status = response.split(' ').nth(1).unwrap_or_default().to_string();
        assert!(
            ["400", "405", "413"].contains(&status.as_str()),
            "{head:?}: {response}"
        );
    }
    assert_eq!(served.json("/api/show?position=start")["to_move"], "X");
    // A request addressed to another host (a page elsewhere whose name resolves here) is
    // refused by a server bound to this machine alone.
    let head = "GET /api/show?position=start HTTP/1.1\r\nHost: rebound.example:8080";
    let refused = common::serve::send(&served.address, head, b"");
    assert_eq!(refused.status, 403, "{}", refused.text());
    assert!(refused.text().contains("addressed to this machine"));
    // A request's node limit bounds its search.
    let bounded = served.json("/api/solve?position=start&node_limit=2000");
    assert_eq!(bounded["result"], "unknown");
    assert!(bounded["nodes"].as_u64().unwrap() <= 4000, "{bounded}");
    // The rule set comes back with every position, for the page to pass it on.
    let open = served.json("/api/show?position=open%3Aee+ea");
    assert_eq!(open["rules"], "open");
    assert_eq!(served.json("/api/show?position=ee")["rules"], "common");
}

#[test]
fn a_panic_in_a_request_answers_500_and_the_server_goes_on() {
    // The server panics on this path only when told to by the environment, for this test.
    let served = Served::start_with_env(&[], &[("UTTT_SERVE_INJECT_PANIC", "1")]);
    for _ in 0..3 {
        let (status, body) = served.get("/api/test-panic");
        assert_eq!(status, 500, "{body}");
        let error: Value = serde_json::from_str(&body).unwrap();
        assert!(error["error"].as_str().unwrap().contains("a bug"), "{body}");
        assert_eq!(served.json("/api/show?position=start")["to_move"], "X");
    }
    // Without the variable the path is no endpoint.
    let plain = Served::start(&[]);
    assert_eq!(plain.get("/api/test-panic").0, 404);
}

#[test]
fn requests_from_pages_of_other_sites_are_refused_and_the_page_s_own_answered() {
    let served = Served::start(&[]);
    let address = &served.address;
    let verify = |headers: &str| {
        let head =
            format!("POST /api/verify HTTP/1.1\r\nHost: {address}\r\n{headers}Content-Length: 7");
        common::serve::send(address, &head, b"garbage").status
    };
    // A page elsewhere (fetch with mode no-cors, a form) is refused before its body is read.
    assert_eq!(verify("Origin: https://elsewhere.example\r\n"), 403);
    assert_eq!(verify("Sec-Fetch-Site: cross-site\r\n"), 403);
    // The page's own request, and one from no page at all, are answered (this body is no
    // certificate: 400).
    assert_eq!(
        verify(&format!(
            "Origin: http://{address}\r\nSec-Fetch-Site: same-origin\r\n"
        )),
        400
    );
    assert_eq!(verify(""), 400);
}

#[test]
fn a_head_that_trickles_in_is_cut_off_at_its_deadline_however_it_goes() {
    let served = Served::start(&[]);
    let mut stream = TcpStream::connect(&served.address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let head = b"GET /api/show?position=start HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    let connected = Instant::now();
    let mut answer = Vec::new();
    // A byte every 300 ms: each read is quick, the whole head is not (it would take 18 s).
    for byte in head {
        if stream.write_all(&[*byte]).is_err() {
            break;
        }
        let mut chunk = [0u8; 1024];
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => {
                answer.extend_from_slice(&chunk[..read]);
                break;
            }
            Err(_) => std::thread::sleep(Duration::from_millis(200)),
        }
        assert!(
            connected.elapsed() < Duration::from_secs(10),
            "never cut off"
        );
    }
    let took = connected.elapsed();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        took >= Duration::from_millis(4900) && took <= Duration::from_millis(6500),
        "{took:?}"
    );
}
