//! The local server's metrics: the process-wide recorder of the `metrics` facade, rendered as
//! Prometheus text for `GET /metrics`. Histograms have buckets in seconds from a millisecond to a
//! minute.

use metrics_exporter_prometheus::PrometheusBuilder;
pub use metrics_exporter_prometheus::PrometheusHandle;
use std::sync::OnceLock;
use std::time::Duration;

/// Bucket bounds of every histogram (all are seconds).
const BUCKETS: &[f64] = &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];

/// How often histograms are compacted (the exporter's upkeep).
const UPKEEP: Duration = Duration::from_secs(5);

static HANDLE: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();

/// The process's Prometheus recorder: installed as the global recorder on first call (with every
/// metric of [`crate::names::ALL`] described), then the same handle. `Err` when another recorder
/// was installed first.
pub fn install() -> Result<PrometheusHandle, String> {
    HANDLE
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets(BUCKETS)
                .map_err(|e| e.to_string())?
                .install_recorder()
                .map_err(|e| format!("the Prometheus recorder could not be installed: {e}"))?;
            crate::names::describe_all();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                let upkeep = handle.clone();
                runtime.spawn(async move {
                    loop {
                        tokio::time::sleep(UPKEEP).await;
                        upkeep.run_upkeep();
                    }
                });
            }
            Ok(handle)
        })
        .clone()
}

/// The content type of [`PrometheusHandle::render`]'s text.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";
