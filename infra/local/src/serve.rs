//! Serving the local server's connections: the router on hyper (HTTP/1 and HTTP/2, WebSocket
//! upgrades), with time limits on reading a request's head and its body, so that a client that
//! trickles its headers or its body cannot hold a connection open for ever. (`axum::serve` sets
//! no such limits.) A body too slow is answered 400 in the service's JSON error shape; a head too
//! slow gets its connection closed, since no request has been read to answer.

use crate::auth::Identify;
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use std::time::Duration;
use tokio::net::TcpListener;
use tower::ServiceBuilder;
use tower_http::timeout::RequestBodyTimeoutLayer;

/// Time limits on reading a request.
#[derive(Debug, Clone, Copy)]
pub struct ReadLimits {
    /// From the connection's first byte (or the end of the previous request) to the end of the
    /// request's head.
    pub header: Duration,
    /// Between the head and the end of the body.
    pub body: Duration,
}

/// Serves `app` (the router behind the front door's identification of callers) on `listener`
/// until the task is stopped.
pub async fn serve(listener: TcpListener, app: Identify<Router>, limits: ReadLimits) {
    let service = ServiceBuilder::new().layer(RequestBodyTimeoutLayer::new(limits.body)).service(app);
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors, say: wait a little rather than spin.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let mut builder = auto::Builder::new(TokioExecutor::new());
            builder.http1().timer(TokioTimer::new()).header_read_timeout(limits.header);
            if let Err(e) = builder.serve_connection_with_upgrades(TokioIo::new(stream), service).await {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
        });
    }
}
