//! Connection timeouts and caps, through the server's own accept loop on a
//! loopback port (docs/api.md, Limits), with the timeouts set short: a
//! crowd of idle and slow clients is cut off while `/api/health` answers
//! quickly; connections over a cap are answered 429 or 503 with
//! `Retry-After`; a WebSocket peer that stops answering pings is closed.
//!
//! Clients take loopback addresses of their own (127.0.0.2, ...) to be
//! told apart from the health checks (127.0.0.1).

use std::future::Future;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use monte_server::{Config, Limits};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// A server on a loopback port, stopped when dropped.
struct Served {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
    dir: std::path::PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn serve(tag: &str, limits: Limits) -> Served {
    serve_until(tag, Config { limits, ..Config::default() }, std::future::pending()).await
}

/// Serves with `config` (its database aside) until `stop` resolves.
async fn serve_until(tag: &str, config: Config, stop: impl Future<Output = ()> + Send + 'static) -> Served {
    let dir = std::env::temp_dir().join(format!("monte-limits-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let database = dir.join("monte.db").to_string_lossy().into_owned();
    let config = Config { database, rate_limit: 0.0, ..config };
    let instance = monte_server::start(config).await.expect("start on sqlite");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move { monte_server::run(&instance, listener, stop).await });
    Served { addr, task, dir }
}

/// A connection from loopback address 127.0.0.`host`.
async fn connect_from(host: u8, addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from(([127, 0, 0, host], 0))).expect("bind a loopback address");
    socket.connect(addr).await.expect("connect")
}

/// Reads until the server closes (or 5 s pass): the answer, split into its
/// status, head and body.
async fn answer(stream: &mut TcpStream) -> (u16, String, Value) {
    let mut bytes = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut bytes)).await;
    let text = String::from_utf8_lossy(&bytes);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head.to_string(), serde_json::from_str(body).unwrap_or(Value::Null))
}

/// `GET /api/health` from 127.0.0.`host`: status, body, time taken.
async fn health(host: u8, addr: SocketAddr) -> (u16, Value, Duration) {
    let t = Instant::now();
    let mut stream = connect_from(host, addr).await;
    let request = format!("GET /api/health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let (status, _, body) = answer(&mut stream).await;
    (status, body, t.elapsed())
}

/// How a client of the crowd behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    /// Connects and sends nothing.
    Idle,
    /// Sends a request's headers a byte every 300 ms.
    SlowHeaders,
    /// Sends complete headers, then the body a byte every 300 ms.
    SlowBody,
    /// Makes one request, reads the answer, and keeps the connection.
    KeptAlive,
}

/// What became of a client: when the server closed its connection (None:
/// still open after 8 s), and the status it was answered, if any.
#[derive(Debug)]
struct Fate {
    kind: Kind,
    closed_after: Option<Duration>,
    statuses: Vec<u16>,
}

async fn crowd_client(kind: Kind, addr: SocketAddr) -> Fate {
    let mut stream = connect_from(2, addr).await;
    let start = Instant::now();
    let head = format!("GET /api/health HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    let body_head = format!(
        "POST /api/games HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    );
    let trickle: &[u8] = match kind {
        Kind::Idle => b"",
        Kind::SlowHeaders => {
            b"GET /api/health HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        }
        Kind::SlowBody => {
            stream.write_all(body_head.as_bytes()).await.unwrap();
            b"{\"game\": \"salta\", \"name\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        }
        Kind::KeptAlive => {
            stream.write_all(head.as_bytes()).await.unwrap();
            b""
        }
    };
    let mut received = Vec::new();
    let mut next = 0;
    let mut buf = [0u8; 4096];
    let deadline = start + Duration::from_secs(8);
    let closed_after = loop {
        let wake = tokio::time::sleep(Duration::from_millis(300));
        tokio::select! {
            read = stream.read(&mut buf) => match read {
                Ok(0) | Err(_) => break Some(start.elapsed()),
                Ok(n) => received.extend_from_slice(&buf[..n]),
            },
            () = wake => {
                if Instant::now() > deadline {
                    break None;
                }
                if next < trickle.len() {
                    if stream.write_all(&trickle[next..next + 1]).await.is_err() {
                        break Some(start.elapsed());
                    }
                    next += 1;
                }
            }
        }
    };
    let text = String::from_utf8_lossy(&received);
    let statuses =
        text.split("HTTP/1.1 ").skip(1).filter_map(|answer| answer.split_whitespace().next()?.parse().ok()).collect();
    Fate { kind, closed_after, statuses }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crowd_of_idle_and_slow_clients_is_cut_off_and_health_stays_quick() {
    let limits = Limits {
        header_timeout: Duration::from_secs(1),
        body_timeout: Duration::from_secs(1),
        max_connections_per_address: 200,
        ..Limits::default()
    };
    let served = serve("crowd", limits).await;
    let addr = served.addr;
    const EACH: usize = 20;
    let kinds = [Kind::Idle, Kind::SlowHeaders, Kind::SlowBody, Kind::KeptAlive];
    let clients: Vec<_> = (0..EACH).flat_map(|_| kinds).map(|kind| tokio::spawn(crowd_client(kind, addr))).collect();

    // While the crowd holds its connections: health answers at once.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut during = Vec::new();
    for _ in 0..5 {
        let (status, body, took) = health(1, addr).await;
        assert_eq!(status, 200, "{body}");
        during.push((took, body["connections"].as_u64().unwrap()));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let slowest = during.iter().map(|d| d.0).max().unwrap();
    let held = during.iter().map(|d| d.1).max().unwrap();
    eprintln!(
        "crowd: {} clients ({EACH} idle, {EACH} slow headers, {EACH} slow bodies, {EACH} kept alive); \
         while they were connected: {held} connections open, /api/health slowest of 5: {:.1} ms",
        clients.len(),
        slowest.as_secs_f64() * 1000.0
    );
    assert!(held as usize > clients.len(), "the crowd is connected while health is asked ({held} open)");
    assert!(slowest < Duration::from_millis(100), "health took {slowest:?} with the crowd connected");

    let mut fates = Vec::new();
    for c in clients {
        fates.push(c.await.unwrap());
    }
    for kind in kinds {
        let of_kind: Vec<&Fate> = fates.iter().filter(|f| f.kind == kind).collect();
        let closed: Vec<Duration> = of_kind.iter().filter_map(|f| f.closed_after).collect();
        let latest = closed.iter().max().copied().unwrap_or_default();
        let mut statuses: Vec<u16> = of_kind.iter().flat_map(|f| f.statuses.iter().copied()).collect();
        statuses.sort_unstable();
        statuses.dedup();
        eprintln!(
            "crowd: {kind:?}: {} of {} closed by the server, the last after {:.2} s; statuses answered: {statuses:?}",
            closed.len(),
            of_kind.len(),
            latest.as_secs_f64()
        );
        assert_eq!(closed.len(), of_kind.len(), "{kind:?}: connections left open");
        // The timeouts are 1 s; the server closes within 1 s more.
        assert!(latest < Duration::from_secs(2), "{kind:?}: closed only after {latest:?}");
    }
    let status_of = |kind| fates.iter().filter(move |f: &&Fate| f.kind == kind).map(|f| f.statuses.clone());
    assert!(status_of(Kind::SlowBody).all(|s| s == [408]), "a body too slow is answered 408");
    assert!(status_of(Kind::KeptAlive).all(|s| s == [200]), "the kept-alive request was answered");

    // Afterwards: nothing of the crowd is left open, and health is quick.
    let (status, body, took) = health(1, addr).await;
    eprintln!(
        "crowd: after it, {} connection open (the health check's), /api/health in {:.1} ms",
        body["connections"],
        took.as_secs_f64() * 1000.0
    );
    assert_eq!((status, body["connections"].as_u64()), (200, Some(1)), "{body}");
    assert!(took < Duration::from_millis(100), "health took {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_a_cap_are_answered_429_or_503_with_retry_after() {
    let limits = Limits { max_connections: 30, max_connections_per_address: 20, ..Limits::default() };
    let served = serve("caps", limits).await;
    let addr = served.addr;
    let held = connections_from(2, 20, addr).await;
    let (per_address, body) = refused(2, addr).await;
    eprintln!("caps: the 21st connection from one address (cap 20): {per_address} {body}");
    assert_eq!(per_address, 429);
    assert!(body["error"].as_str().unwrap().contains("your address"), "{body}");

    let others = connections_from(3, 10, addr).await;
    // The 31st in all, from a third address; the health check too.
    let (full, body) = refused(4, addr).await;
    eprintln!("caps: the 31st connection in all (cap 30): {full} {body}");
    assert_eq!(full, 503);
    assert_eq!(health(1, addr).await.0, 503);

    // Room again once some close. The server counts each closing as it
    // sees it, so health may answer 200 before the last of the ten is
    // counted: wait for the count too.
    drop(others);
    let t = Instant::now();
    let (status, body) = loop {
        let (status, body, _) = health(1, addr).await;
        let settled = status == 200 && body["connections"].as_u64() == Some(21);
        if settled || t.elapsed() > Duration::from_secs(2) {
            break (status, body);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    eprintln!(
        "caps: 10 connections closed: health {status} after {:.0} ms, {} connections open",
        t.elapsed().as_secs_f64() * 1000.0,
        body["connections"]
    );
    assert_eq!((status, body["connections"].as_u64()), (200, Some(21)), "{body}");
    drop(held);
}

/// `n` connections from 127.0.0.`host`, held open.
async fn connections_from(host: u8, n: usize, addr: SocketAddr) -> Vec<TcpStream> {
    let mut held = Vec::with_capacity(n);
    for _ in 0..n {
        held.push(connect_from(host, addr).await);
    }
    held
}

/// A connection from 127.0.0.`host` that is refused: the status and error
/// it was answered with (checked to say when to try again).
async fn refused(host: u8, addr: SocketAddr) -> (u16, Value) {
    let mut stream = connect_from(host, addr).await;
    let (status, head, body) = answer(&mut stream).await;
    assert!(head.contains("\r\nRetry-After: 5\r\n"), "{head}");
    (status, body)
}

/// A game of Salta, both seats taken by the caller: the creation answer.
async fn create_game(addr: SocketAddr) -> Value {
    let mut stream = connect_from(1, addr).await;
    let body = json!({ "game": "salta", "white": "me", "black": "me" }).to_string();
    let request = format!(
        "POST /api/games HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let (status, _, created) = answer(&mut stream).await;
    assert_eq!(status, 201, "{created}");
    created
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_peer_that_stops_answering_pings_is_closed() {
    let limits =
        Limits { ws_ping: Duration::from_millis(200), ws_timeout: Duration::from_millis(600), ..Limits::default() };
    let served = serve("ws", limits).await;
    let addr = served.addr;
    let created = create_game(addr).await;
    let url = format!("ws://{addr}/api/games/{}/ws", created["game"]["id"].as_str().unwrap());
    let connect = || async { tokio_tungstenite::connect_async(url.as_str()).await.expect("connect").0 };
    let (live, mut dead): (Ws, Ws) = (connect().await, connect().await);

    // The live peer reads (and so answers pings); the dead one does not.
    let reader = tokio::spawn(async move {
        let mut live = live;
        let (mut pings, until) = (0, Instant::now() + Duration::from_millis(1500));
        while let Ok(Some(Ok(m))) = tokio::time::timeout_at(until.into(), live.next()).await {
            pings += usize::from(m.is_ping());
        }
        (pings, live)
    });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (pings, mut live) = reader.await.unwrap();

    let mut dead_pings = 0;
    let ended = loop {
        match tokio::time::timeout(Duration::from_millis(500), dead.next()).await {
            Ok(Some(Ok(m))) => dead_pings += usize::from(m.is_ping()),
            Ok(Some(Err(_)) | None) => break true,
            Err(_) => break false,
        }
    };
    let still_open = live.send(tokio_tungstenite::tungstenite::Message::Ping(Default::default())).await.is_ok();
    let (_, body, _) = health(1, addr).await;
    eprintln!(
        "ws: ping every 200 ms, dead after 600 ms: the peer that read got {pings} pings and is open: {still_open}; \
         the one that did not read had {dead_pings} pings waiting and was closed: {ended}; \
         connections open after: {}",
        body["connections"]
    );
    assert!(pings >= 4, "{pings} pings in 1.5 s");
    assert!(ended && still_open);
    // The live socket and the health check.
    assert_eq!(body["connections"].as_u64(), Some(2), "{body}");
}

/// A stop: no new connections; a WebSocket is told 1001 (going away); a
/// request in flight is waited for, but no longer than the drain timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_says_goodbye_on_websockets_and_waits_at_most_the_drain_timeout() {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let config = Config { drain_timeout: Duration::from_millis(500), ..Config::default() };
    let mut served = serve_until("stop", config, async move {
        let _ = stopped.await;
    })
    .await;
    let addr = served.addr;
    let created = create_game(addr).await;
    let url = format!("ws://{addr}/api/games/{}/ws", created["game"]["id"].as_str().unwrap());
    let (mut watcher, _) = tokio_tungstenite::connect_async(url.as_str()).await.expect("connect");
    // A request in flight: its body is sent slowly (the body timeout is 10 s).
    let mut slow = connect_from(2, addr).await;
    let head = format!(
        "POST /api/games HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;

    let t = Instant::now();
    stop.send(()).unwrap();
    let code = loop {
        match tokio::time::timeout(Duration::from_secs(2), watcher.next()).await {
            Ok(Some(Ok(tokio_tungstenite::tungstenite::Message::Close(frame)))) => {
                break frame.map(|f| u16::from(f.code));
            }
            Ok(Some(Ok(_))) => continue,
            _ => break None,
        }
    };
    let goodbye = t.elapsed();
    let refused = TcpStream::connect(addr).await.is_err();
    (&mut served.task).await.unwrap();
    let stopped_after = t.elapsed();
    eprintln!(
        "stop: WebSocket closed with {code:?} after {:.1} ms; a new connection refused: {refused}; \
         with a request in flight, run returned after {:.0} ms (drain timeout 500 ms)",
        goodbye.as_secs_f64() * 1000.0,
        stopped_after.as_secs_f64() * 1000.0
    );
    assert_eq!(code, Some(1001));
    assert!(refused, "a connection after the stop");
    assert!(
        stopped_after >= Duration::from_millis(500) && stopped_after < Duration::from_millis(1500),
        "{stopped_after:?}"
    );
}
