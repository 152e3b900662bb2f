//! The server's connections: accepted here rather than by `axum::serve`,
//! which takes no settings, so that each one has hyper's header read
//! timeout, a deadline for its request bodies, and counts against the caps
//! on connections per client address and in total (docs/api.md, Limits).

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore, watch};
use tokio::time::Sleep;
use tower::ServiceExt;

/// Timeouts and caps of the server's connections.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Time a connection has to send a request's headers, counted from
    /// when it opens or its previous answer was sent (hyper's header read
    /// timeout): also how long an idle keep-alive connection is kept.
    pub header_timeout: Duration,
    /// Time a request has to send its body, counted from its headers.
    pub body_timeout: Duration,
    /// A WebSocket is pinged this often ...
    pub ws_ping: Duration,
    /// ... and closed as dead when nothing (a pong or anything else) came
    /// from its peer for this long (checked at each ping), or a message to
    /// it does not go through in this time.
    pub ws_timeout: Duration,
    /// Open connections (WebSockets included) in all; more are answered
    /// 503 and closed (0: no cap).
    pub max_connections: usize,
    /// Open connections from one client address; more are answered 429
    /// and closed (0: no cap).
    pub max_connections_per_address: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            ws_ping: Duration::from_secs(20),
            ws_timeout: Duration::from_secs(45),
            max_connections: default_max_connections(),
            max_connections_per_address: 64,
        }
    }
}

/// 10,000, or fewer when the process may not open that many files: its
/// soft limit less 128 kept for the database, the listener and refusals.
fn default_max_connections() -> usize {
    let soft = std::fs::read_to_string("/proc/self/limits").ok().and_then(|limits| {
        let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
        line["Max open files".len()..].split_whitespace().next()?.parse::<usize>().ok()
    });
    match soft {
        Some(n) => n.saturating_sub(128).clamp(16, 10_000),
        None => 10_000,
    }
}

/// Why a connection was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `max_connections` are open.
    Full,
    /// `max_connections_per_address` are open from this address.
    Address,
}

impl Refusal {
    /// The answer written before closing: a status the client can tell
    /// apart, when to try again, and a JSON error like every other.
    fn answer(self) -> String {
        let (status, error) = match self {
            Refusal::Full => ("503 Service Unavailable", "the server has too many connections open: try again soon"),
            Refusal::Address => ("429 Too Many Requests", "too many connections from your address: close some first"),
        };
        let body = serde_json::json!({ "error": error }).to_string();
        format!(
            "HTTP/1.1 {status}\r\nRetry-After: {RETRY_AFTER_S}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    }
}

/// The `Retry-After` of a refused connection, in seconds.
const RETRY_AFTER_S: u32 = 5;

/// Refused connections kept open at once to read what their client sent
/// (so that it reads the answer rather than a reset); beyond, they are
/// closed at once.
const LINGERING: usize = 64;

/// The open connections, in all and per client address.
#[derive(Debug, Default)]
pub struct Connections {
    open: Mutex<Open>,
    /// Told when the last connection closes.
    none_open: Notify,
}

#[derive(Debug, Default)]
struct Open {
    total: usize,
    per_address: HashMap<IpAddr, usize>,
}

impl Connections {
    /// Counts a new connection from `ip` in, unless a cap is reached.
    pub fn admit(self: &Arc<Self>, ip: IpAddr, limits: &Limits) -> Result<Seat, Refusal> {
        let ip = ip.to_canonical();
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if limits.max_connections > 0 && open.total >= limits.max_connections {
            return Err(Refusal::Full);
        }
        let from_ip = open.per_address.entry(ip).or_default();
        if limits.max_connections_per_address > 0 && *from_ip >= limits.max_connections_per_address {
            return Err(Refusal::Address);
        }
        *from_ip += 1;
        open.total += 1;
        Ok(Seat { connections: self.clone(), ip })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.lock().unwrap_or_else(|p| p.into_inner()).total
    }

    /// Returns when no connection is open.
    pub async fn drained(&self) {
        loop {
            let mut closed = pin!(self.none_open.notified());
            closed.as_mut().enable();
            if self.open() == 0 {
                return;
            }
            closed.await;
        }
    }
}

/// One admitted connection: counted until dropped.
#[derive(Debug)]
pub struct Seat {
    connections: Arc<Connections>,
    ip: IpAddr,
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut open = self.connections.open.lock().unwrap_or_else(|p| p.into_inner());
        open.total = open.total.saturating_sub(1);
        if let Some(n) = open.per_address.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.per_address.remove(&self.ip);
            }
        }
        if open.total == 0 {
            self.connections.none_open.notify_waiters();
        }
    }
}

/// A connection's socket with its [`Seat`]: it stays counted as long as
/// the socket is open, through a WebSocket upgrade too.
#[derive(Debug)]
struct Counted {
    stream: TcpStream,
    _seat: Seat,
}

impl AsyncRead for Counted {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// A request body sent too slowly: its deadline passed.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {0:?}")]
pub struct BodyTimedOut(pub Duration);

/// Whether `error`, or an error it wraps, is a [`BodyTimedOut`].
pub fn is_body_timeout(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(e) = next {
        if e.is::<BodyTimedOut>() {
            return true;
        }
        next = e.source();
    }
    false
}

/// A request body that fails with [`BodyTimedOut`] once its deadline
/// passes, however steadily its bytes trickle in (tower-http's body
/// timeout is per frame: a byte every few seconds would never trip it).
#[derive(Debug)]
struct Deadline {
    body: Incoming,
    sleep: Pin<Box<Sleep>>,
    after: Duration,
}

impl http_body::Body for Deadline {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        match this.sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTimedOut(this.after))))),
            Poll::Pending => Poll::Pending,
        }
    }
    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }
    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// Accepts connections and serves `router` on them until `stop` resolves;
/// then stops accepting, asks every connection to close once its request
/// in flight is answered, and returns.
pub async fn run(
    listener: TcpListener,
    router: Router,
    connections: Arc<Connections>,
    limits: Limits,
    stop: impl Future<Output = ()>,
) {
    let (closing, closing_rx) = watch::channel(false);
    let lingering = Arc::new(Semaphore::new(LINGERING));
    let mut stop = pin!(stop);
    loop {
        let (stream, addr) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, or a connection reset before
                    // it was accepted: wait a moment rather than spin.
                    if !matches!(e.kind(), std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset) {
                        eprintln!("monte: cannot accept a connection: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    continue;
                }
            },
            () = &mut stop => break,
        };
        // Small WebSocket frames go out at once, not after the peer's
        // delayed acknowledgement (Nagle's algorithm).
        let _ = stream.set_nodelay(true);
        match connections.admit(addr.ip(), &limits) {
            Ok(seat) => {
                let io = Counted { stream, _seat: seat };
                tokio::spawn(serve_connection(io, addr, router.clone(), limits.clone(), closing_rx.clone()));
            }
            Err(refusal) => refuse(stream, refusal, &lingering),
        }
    }
    let _ = closing.send(true);
}

/// Serves one connection's requests (HTTP/1.1, with upgrades).
async fn serve_connection(
    io: Counted,
    addr: SocketAddr,
    router: Router,
    limits: Limits,
    mut closing: watch::Receiver<bool>,
) {
    let body_timeout = limits.body_timeout;
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let mut req = req.map(|body| {
            if http_body::Body::is_end_stream(&body) {
                Body::new(body)
            } else {
                let sleep = Box::pin(tokio::time::sleep(body_timeout));
                Body::new(Deadline { body, sleep, after: body_timeout })
            }
        });
        req.extensions_mut().insert(ConnectInfo(addr));
        router.clone().oneshot(req)
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout);
    let mut conn = pin!(builder.serve_connection(TokioIo::new(io), service).with_upgrades());
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = closing.wait_for(|c| *c) => {}
    }
    conn.as_mut().graceful_shutdown();
    let _ = conn.await;
}

/// Answers a connection over a cap and closes it. The answer goes out
/// before the request is read (it fits the empty send buffer); the socket
/// then reads and drops what the client sends for a moment, up to
/// [`LINGERING`] sockets at once, so that the client is not reset before
/// it reads the answer.
fn refuse(stream: TcpStream, refusal: Refusal, lingering: &Arc<Semaphore>) {
    let _ = stream.try_write(refusal.answer().as_bytes());
    let Ok(permit) = lingering.clone().try_acquire_owned() else { return };
    tokio::spawn(async move {
        let mut stream = stream;
        let _ = stream.shutdown().await;
        let mut sink = [0u8; 4096];
        let drain = async {
            let mut read = 0;
            while read < 64 * 1024 {
                match stream.read(&mut sink).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => read += n,
                }
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(2), drain).await;
        drop(permit);
    });
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr};
    use std::sync::Arc;

    use super::{Connections, Limits, Refusal};

    #[test]
    fn caps_count_per_address_and_in_all_until_a_seat_is_dropped() {
        let limits = Limits { max_connections: 3, max_connections_per_address: 2, ..Limits::default() };
        let c = Arc::new(Connections::default());
        let (a, b) = (IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)));
        let a1 = c.admit(a, &limits).unwrap();
        let _a2 = c.admit(a, &limits).unwrap();
        assert_eq!(c.admit(a, &limits).unwrap_err(), Refusal::Address);
        let b1 = c.admit(b, &limits).unwrap();
        assert_eq!(c.admit(b, &limits).unwrap_err(), Refusal::Full);
        assert_eq!(c.open(), 3);
        drop(a1);
        assert_eq!(c.open(), 2);
        // An IPv4 client seen through an IPv6 socket is the same address.
        let _a3 = c.admit("::ffff:10.0.0.1".parse().unwrap(), &limits).unwrap();
        assert_eq!(c.admit("::ffff:10.0.0.1".parse().unwrap(), &limits).unwrap_err(), Refusal::Full);
        drop(b1);
        assert_eq!(c.admit(a, &limits).unwrap_err(), Refusal::Address);
    }

    #[test]
    fn a_refusal_is_an_http_answer_with_retry_after() {
        for (refusal, status) in [(Refusal::Full, "503"), (Refusal::Address, "429")] {
            let answer = refusal.answer();
            assert!(answer.starts_with(&format!("HTTP/1.1 {status} ")), "{answer}");
            assert!(answer.contains("\r\nRetry-After: 5\r\n"), "{answer}");
            let body = answer.split_once("\r\n\r\n").unwrap().1;
            assert!(serde_json::from_str::<serde_json::Value>(body).unwrap()["error"].is_string());
        }
    }
}
