//! The HTTP/1.1 transport of `noisegraph serve`: `httparse` parses each request head; this
//! module bounds everything a client controls (head size, header count, body size, idle
//! time, open connections) and answers a malformed request with a 4xx status and a closed
//! connection, never a panic. (tiny_http, the obvious crate, reads header lines without a
//! length limit and has no read timeout, so one local client could exhaust memory or
//! threads.)

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What one client may send and hold.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Request line and headers, in bytes.
    pub head_bytes: usize,
    /// Request body, in bytes.
    pub body_bytes: usize,
    /// A connection that sends nothing for this long is closed.
    pub idle: Duration,
    /// Connections served at once; more are answered 503 and closed.
    pub connections: usize,
}

/// Headers parsed per request; more are answered 431.
pub const MAX_HEADERS: usize = 64;

/// A request whose head and body were read whole.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The path without its query string (the page reads its own query; the server
    /// needs none).
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The value of header `name` (case-insensitive), the first one if repeated.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A response; `Content-Length` and `Connection` are added when it is written.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn bytes(status: u16, content_type: &'static str, body: Vec<u8>) -> Response {
        Response {
            status,
            content_type,
            headers: Vec::new(),
            body,
        }
    }
    pub fn text(status: u16, message: impl Into<String>) -> Response {
        let mut body = message.into();
        body.push('\n');
        Response::bytes(status, "text/plain; charset=utf-8", body.into_bytes())
    }
    pub fn json(status: u16, value: &serde_json::Value) -> Response {
        Response::bytes(status, "application/json", value.to_string().into_bytes())
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

/// Headers on every response: nothing is cached, sniffed, framed by another site, or loaded
/// from anywhere but this server.
const SECURITY_HEADERS: &str = "Cache-Control: no-store\r\n\
X-Content-Type-Options: nosniff\r\n\
X-Frame-Options: DENY\r\n\
Content-Security-Policy: default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'\r\n";

fn write_response(stream: &mut TcpStream, response: &Response, keep_alive: bool) -> bool {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: {}\r\n{SECURITY_HEADERS}",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len(),
        if keep_alive { "keep-alive" } else { "close" },
    );
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).is_ok()
        && stream.write_all(&response.body).is_ok()
        && stream.flush().is_ok()
}

/// What reading the next request on a connection gave.
enum Next {
    Request(Request, bool),
    /// The client closed the connection or went idle: nothing to answer.
    Closed,
    /// A malformed or oversized request: answer this and close.
    Reject(Response),
}

fn head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// Reads more bytes into `buf`; false on end of stream, timeout or error.
fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 8192];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => return false,
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                return true;
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return false,
        }
    }
}

fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>, limits: &Limits) -> Next {
    let end = loop {
        if let Some(end) = head_end(buf) {
            if end > limits.head_bytes {
                return Next::Reject(Response::text(431, "request head too large"));
            }
            break end;
        }
        if buf.len() > limits.head_bytes {
            return Next::Reject(Response::text(
                431,
                format!(
                    "request head over {} bytes without an end",
                    limits.head_bytes
                ),
            ));
        }
        if !fill(stream, buf) {
            return Next::Closed;
        }
    };
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    match parsed.parse(&buf[..end]) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => {
            return Next::Reject(Response::text(400, "malformed request head"))
        }
        Err(httparse::Error::TooManyHeaders) => {
            return Next::Reject(Response::text(
                431,
                format!("more than {MAX_HEADERS} headers"),
            ))
        }
        Err(e) => return Next::Reject(Response::text(400, format!("malformed request: {e}"))),
    }
    let (Some(method), Some(target), Some(version)) = (parsed.method, parsed.path, parsed.version)
    else {
        return Next::Reject(Response::text(400, "malformed request line"));
    };
    if !target.starts_with('/') {
        return Next::Reject(Response::text(
            400,
            "the request target must be a path (origin form)",
        ));
    }
    let mut list = Vec::with_capacity(parsed.headers.len());
    for h in parsed.headers.iter() {
        let Ok(value) = std::str::from_utf8(h.value) else {
            return Next::Reject(Response::text(400, format!("header {}: not UTF-8", h.name)));
        };
        list.push((h.name.to_string(), value.trim().to_string()));
    }
    let path = target.split_once('?').map_or(target, |(p, _)| p);
    let mut request = Request {
        method: method.to_string(),
        path: path.to_string(),
        headers: list,
        body: Vec::new(),
    };
    if request.header("transfer-encoding").is_some() {
        return Next::Reject(Response::text(
            411,
            "chunked request bodies are not accepted: send Content-Length",
        ));
    }
    let lengths: Vec<&str> = request
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .map(|(_, v)| v.as_str())
        .collect();
    let length = match lengths.as_slice() {
        [] => 0,
        [one] => match one.parse::<usize>() {
            Ok(n) => n,
            Err(_) => {
                return Next::Reject(Response::text(
                    400,
                    format!("Content-Length: '{one}' is not a byte count"),
                ))
            }
        },
        _ => return Next::Reject(Response::text(400, "more than one Content-Length")),
    };
    if length > limits.body_bytes {
        return Next::Reject(Response::text(
            413,
            format!(
                "request body of {length} bytes is over the limit of {} bytes",
                limits.body_bytes
            ),
        ));
    }
    let keep_alive = {
        let connection = request
            .header("connection")
            .unwrap_or("")
            .to_ascii_lowercase();
        if version == 1 {
            !connection.contains("close")
        } else {
            connection.contains("keep-alive")
        }
    };
    buf.drain(..end);
    while buf.len() < length {
        if !fill(stream, buf) {
            return Next::Closed;
        }
    }
    // Bytes past the body belong to the next (pipelined) request.
    request.body = buf.drain(..length).collect();
    Next::Request(request, keep_alive)
}

/// Serves requests on one connection until the client closes it, goes idle, or sends
/// something malformed.
fn serve_connection(
    mut stream: TcpStream,
    limits: &Limits,
    handler: &(dyn Fn(&Request) -> Response + Sync),
) {
    let _ = stream.set_read_timeout(Some(limits.idle));
    let _ = stream.set_write_timeout(Some(limits.idle));
    let _ = stream.set_nodelay(true);
    let mut buf = Vec::new();
    loop {
        match read_request(&mut stream, &mut buf, limits) {
            Next::Closed => return,
            Next::Reject(response) => {
                write_response(&mut stream, &response, false);
                return;
            }
            Next::Request(request, keep_alive) => {
                let response =
                    catch_unwind(AssertUnwindSafe(|| handler(&request))).unwrap_or_else(|_| {
                        Response::text(500, "internal error while handling the request")
                    });
                if !write_response(&mut stream, &response, keep_alive) || !keep_alive {
                    return;
                }
            }
        }
    }
}

/// Decrements the count of open connections when a connection's thread ends, panic or not.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Accepts connections forever, one thread each, at most `limits.connections` at once.
pub fn serve(
    listener: TcpListener,
    limits: Limits,
    handler: Arc<dyn Fn(&Request) -> Response + Send + Sync>,
) {
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else {
            // Out of file descriptors or a connection reset before accept: keep serving.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        if open.fetch_add(1, Ordering::SeqCst) >= limits.connections {
            let slot = Slot(open.clone());
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            write_response(
                &mut stream,
                &Response::text(503, "too many open connections"),
                false,
            );
            drop(slot);
            continue;
        }
        let slot = Slot(open.clone());
        let handler = handler.clone();
        let spawned = std::thread::Builder::new()
            .name("serve-connection".into())
            .spawn(move || {
                let _slot = slot;
                serve_connection(stream, &limits, handler.as_ref());
            });
        if spawned.is_err() {
            // The slot moved into the closure, which was dropped with it.
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;

    const LIMITS: Limits = Limits {
        head_bytes: 1024,
        body_bytes: 64,
        idle: Duration::from_secs(5),
        connections: 4,
    };

    /// A server that echoes method, path, query and body.
    fn start() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            serve(
                listener,
                LIMITS,
                Arc::new(|r: &Request| {
                    if r.path == "/panic" {
                        panic!("handler panic (expected by the test)");
                    }
                    Response::text(
                        200,
                        format!(
                            "{} {} {}",
                            r.method,
                            r.path,
                            String::from_utf8_lossy(&r.body)
                        ),
                    )
                }),
            )
        });
        addr
    }

    /// Sends raw bytes, half-closes, and returns everything the server wrote.
    fn exchange(addr: SocketAddr, raw: &[u8]) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        // The server may have answered and closed before reading everything.
        let _ = s.write_all(raw);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn serves_pipelined_requests_with_bodies() {
        let addr = start();
        let out = exchange(
            addr,
            b"POST /a?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabcGET /b HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        );
        assert!(out.contains("POST /a abc"), "{out}");
        assert!(out.contains("GET /b \n"), "{out}");
        assert_eq!(out.matches("HTTP/1.1 200 OK").count(), 2, "{out}");
    }

    #[test]
    fn rejects_malformed_and_oversized_requests() {
        let addr = start();
        let cases: &[(&[u8], &str)] = &[
            (b"GARBAGE\r\n\r\n", "400"),
            (b"GET /x HTTP/9.9\r\n\r\n", "400"),
            (b"GET http://evil/ HTTP/1.1\r\nHost: h\r\n\r\n", "400"),
            (b"GET / HTTP/1.1\r\nBad Header\r\n\r\n", "400"),
            (
                b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: x\r\n\r\n",
                "400",
            ),
            (
                b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                "400",
            ),
            (
                b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 65\r\n\r\n",
                "413",
            ),
            (
                b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n",
                "411",
            ),
        ];
        for (raw, status) in cases {
            let out = exchange(addr, raw);
            assert!(
                out.starts_with(&format!("HTTP/1.1 {status}")),
                "{:?} -> {out}",
                String::from_utf8_lossy(raw)
            );
        }
        let long_head = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(2000));
        assert!(exchange(addr, long_head.as_bytes()).starts_with("HTTP/1.1 431"));
        let endless = "X".repeat(4096);
        assert!(exchange(addr, endless.as_bytes()).starts_with("HTTP/1.1 431"));
        let many: String = (0..70).map(|i| format!("H{i}: v\r\n")).collect();
        let many = format!("GET / HTTP/1.1\r\n{many}\r\n");
        assert!(exchange(addr, many.as_bytes()).starts_with("HTTP/1.1 431"));
        // A body cut short and a head cut short are dropped without an answer.
        assert_eq!(
            exchange(addr, b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nab"),
            ""
        );
        assert_eq!(exchange(addr, b"GET / HTTP/1.1\r\nHo"), "");
        // A handler panic is a 500, and the server keeps serving.
        assert!(exchange(addr, b"GET /panic HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 500"));
        assert!(
            exchange(addr, b"GET /ok HTTP/1.1\r\nConnection: close\r\n\r\n")
                .starts_with("HTTP/1.1 200")
        );
    }

    #[test]
    fn refuses_connections_over_the_limit_and_recovers() {
        let addr = start();
        let idle: Vec<TcpStream> = (0..LIMITS.connections)
            .map(|_| TcpStream::connect(addr).unwrap())
            .collect();
        // Let the server accept the idle ones first.
        std::thread::sleep(Duration::from_millis(200));
        let out = exchange(addr, b"GET / HTTP/1.1\r\n\r\n");
        assert!(out.starts_with("HTTP/1.1 503"), "{out}");
        drop(idle);
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            let out = exchange(addr, b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
            if out.starts_with("HTTP/1.1 200") {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "still refused: {out}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
