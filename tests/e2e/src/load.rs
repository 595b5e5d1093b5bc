//! Load generators for the benches: POSTs sent by many workers at once, each request taken once.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Sends `requests` (`(path, JSON body)`, each taken once by whichever worker comes first) with
/// reqwest; counts the answers with status `want`.
pub async fn reqwest_worker(http: &reqwest::Client, base: &str, requests: &[(String, String)], want: u16, next: &AtomicUsize) -> usize {
    let mut ok = 0usize;
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= requests.len() {
            return ok;
        }
        let (path, body) = &requests[i];
        let r = http.post(format!("{base}{path}")).header("content-type", "application/json").body(body.clone()).send().await;
        if let Ok(r) = r {
            if r.status().as_u16() == want && r.bytes().await.is_ok() {
                ok += 1;
            }
        }
    }
}

/// Sends `requests` one after another on one keep-alive connection, as `wrk` would: the load
/// generator shares the machine with the server, so the less it costs, the more of the machine
/// the figure describes. Counts the answers with status `want`.
pub async fn lean_worker(
    addr: std::net::SocketAddr,
    requests: &[(String, String)],
    want: u16,
    next: &AtomicUsize,
) -> std::io::Result<usize> {
    lean_worker_with(addr, requests, want, next, &[]).await
}

/// [`lean_worker`], request `i` carrying the header lines `headers[i]` too when there are any
/// (each line ending in `\r\n`, e.g. `Authorization: Bearer …\r\n`).
pub async fn lean_worker_with(
    addr: std::net::SocketAddr,
    requests: &[(String, String)],
    want: u16,
    next: &AtomicUsize,
    headers: &[String],
) -> std::io::Result<usize> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (mut ok, mut buf, mut request) = (0usize, Vec::with_capacity(4096), Vec::with_capacity(1024));
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= requests.len() {
            return Ok(ok);
        }
        request.clear();
        let (path, body) = (&requests[i].0, requests[i].1.as_bytes());
        let headers = headers.get(i).map_or("", String::as_str);
        request.extend_from_slice(
            format!(
                "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n{headers}Content-Length: {}\r\n\r\n",
                body.len()
            )
            .as_bytes(),
        );
        request.extend_from_slice(body);
        stream.write_all(&request).await?;
        // Read one response: the head, then as many body bytes as Content-Length says.
        buf.clear();
        let (head_len, status, length) = loop {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = std::str::from_utf8(&buf[..end]).map_err(std::io::Error::other)?;
                let status: u16 = head.get(9..12).and_then(|s| s.parse().ok()).ok_or_else(|| std::io::Error::other("bad status line"))?;
                let length = head
                    .lines()
                    .find_map(|l| {
                        l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case("content-length")).map(|(_, v)| v.trim().to_owned())
                    })
                    .and_then(|v| v.parse::<usize>().ok())
                    .ok_or_else(|| std::io::Error::other("no content-length"))?;
                break (end + 4, status, length);
            }
            if stream.read_buf(&mut buf).await? == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
        };
        while buf.len() < head_len + length {
            if stream.read_buf(&mut buf).await? == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
        }
        if status == want {
            ok += 1;
        }
    }
}
