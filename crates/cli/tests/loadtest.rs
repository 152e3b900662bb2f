//! `monte loadtest` at a tiny size, as a correctness check of the load
//! generator and the server under it (no speed is asserted: the figures
//! are for people, docs/server-load.md).

use std::process::Command;

use monte_store::testing::{admin_url, skip_postgres};

/// Runs a tiny load test and returns its output; fails on a non-zero exit.
fn loadtest(extra: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_monte"))
        .args(["loadtest", "--games", "5", "--rate", "40", "--seconds", "1", "--warmup", "0.5", "--clients", "2"])
        .args(extra)
        .output()
        .expect("run monte loadtest");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "monte loadtest failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    stdout
}

/// The measured window's line: moves were played and answered, none refused.
fn check_window(out: &str) {
    let line = out.lines().find(|l| l.trim_start().starts_with("window 1:")).unwrap_or_else(|| panic!("{out}"));
    let moves: f64 = line
        .split("window 1:")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no moves/s in {line:?}"));
    assert!(moves > 0.0, "no move was answered: {line}");
    assert!(line.contains("errors 0;"), "the server refused moves or closed sockets: {out}");
    assert!(line.contains("KiB"), "the memory of the started server is measured: {line}");
}

#[test]
fn a_tiny_load_test_on_sqlite_plays_moves_without_errors() {
    let out = loadtest(&[]);
    assert!(out.contains("server started here on sqlite"), "{out}");
    check_window(&out);
}

#[test]
fn a_tiny_load_test_on_postgres_plays_moves_without_errors() {
    if skip_postgres("a_tiny_load_test_on_postgres_plays_moves_without_errors") {
        return;
    }
    let out = loadtest(&["--database", &admin_url()]);
    assert!(out.contains("server started here on postgresql"), "{out}");
    check_window(&out);
}

/// Rated games between signed-in players: they end (games of 2 moves a
/// side, so several end within the second) and their ends are counted in
/// both players' ratings.
fn check_rated(out: &str) {
    assert!(out.contains("5 of them rated"), "{out}");
    assert!(out.contains("10 accounts created"), "{out}");
    let line = out.lines().find(|l| l.trim_start().starts_with("rated:")).unwrap_or_else(|| panic!("{out}"));
    let numbers: Vec<u64> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    let [ended, counted] = numbers[..] else { panic!("two counts in {line:?}") };
    // Not `counted <= ended`: a resignation sent just before the stop is
    // counted in the ratings while its final state may never be read.
    assert!(ended >= 1 && counted >= 1, "rated games ended and counted: {line}");
}

#[test]
fn a_tiny_load_test_with_rated_games_on_sqlite() {
    let out = loadtest(&["--rated-share", "1", "--rules", "seed,move-limit=2"]);
    check_window(&out);
    check_rated(&out);
}

#[test]
fn a_tiny_load_test_with_rated_games_on_postgres_without_synchronous_commit() {
    if skip_postgres("a_tiny_load_test_with_rated_games_on_postgres_without_synchronous_commit") {
        return;
    }
    let out = loadtest(&[
        "--rated-share",
        "1",
        "--rules",
        "seed,move-limit=2",
        "--database",
        &admin_url(),
        "--synchronous-commit",
        "off",
    ]);
    check_window(&out);
    check_rated(&out);
}

#[test]
fn bad_arguments_are_refused_with_a_reason() {
    for (args, named) in [
        (&["--games", "0"][..], "--games"),
        (&["--rated-share", "1.5"], "--rated-share"),
        (&["--synchronous-commit", "maybe"], "expected on or off"),
    ] {
        let output =
            Command::new(env!("CARGO_BIN_EXE_monte")).arg("loadtest").args(args).output().expect("run monte loadtest");
        assert!(!output.status.success());
        assert!(String::from_utf8_lossy(&output.stderr).contains(named), "{args:?}: {output:?}");
    }
}

#[test]
fn synchronous_commit_off_is_refused_on_sqlite() {
    let dir = std::env::temp_dir().join(format!("monte-sync-off-{}", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_monte"))
        .args(["serve", "--listen", "127.0.0.1:0", "--synchronous-commit", "off", "--database"])
        .arg(dir.join("x.db"))
        .output()
        .expect("run monte serve");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("synchronous commit off is a PostgreSQL setting"), "{stderr}");
    assert!(!dir.join("x.db").exists(), "nothing was created");
}

/// A server that answers every request with HTTP 503 and hands the first
/// request it read (head and body) to the returned channel.
fn refusing_server() -> (String, std::sync::mpsc::Receiver<String>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut request = String::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                if let Some((name, value)) = line.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse().unwrap_or(0);
                }
                request.push_str(&line);
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            request.push_str(&String::from_utf8_lossy(&body));
            let _ = tx.send(request);
            let _ = stream
                .write_all(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbusy");
        }
    });
    (url, rx)
}

#[test]
fn a_server_that_refuses_games_is_reported_with_its_status() {
    let (url, requests) = refusing_server();
    let output = Command::new(env!("CARGO_BIN_EXE_monte"))
        .args(["loadtest", "--games", "1", "--url", &url])
        .output()
        .expect("run monte loadtest");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("creating a game: HTTP 503: busy"), "{stderr}");
    let request = requests.recv_timeout(std::time::Duration::from_secs(10)).expect("a request");
    let head = request.to_ascii_lowercase();
    assert!(head.starts_with("post /api/games http/1.1\r\n"), "{request}");
    assert!(head.contains("content-type: application/json\r\n"), "{request}");
    assert!(head.contains("connection: close\r\n"), "{request}");
    let body: serde_json::Value =
        serde_json::from_str(request.rsplit("\r\n").next().unwrap_or_default()).expect("a JSON body");
    assert_eq!(body["game"], "salta", "{request}");
    assert_eq!(body["white"], "me", "{request}");
}

#[test]
fn a_server_that_cannot_be_reached_is_reported() {
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("address").port();
    let output = Command::new(env!("CARGO_BIN_EXE_monte"))
        .args(["loadtest", "--games", "1", "--url", &format!("http://127.0.0.1:{port}")])
        .output()
        .expect("run monte loadtest");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("cannot set up a game: creating a game"), "{stderr}");
}
