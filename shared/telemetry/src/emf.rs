//! The Lambda functions' metrics: the process-wide recorder of the `metrics` facade, flushed to
//! stdout as CloudWatch Embedded Metric Format at the end of each invocation ([`Emf::flush`]):
//! CloudWatch Logs turns the lines into metrics of namespace [`crate::names::NAMESPACE`], each
//! metric's labels its dimensions, with no API call. The crate writes one JSON document per set of
//! labels seen since the last flush (EMF gives one document one value per dimension), all in one
//! write.

use metrics_cloudwatch_embedded::Builder;
use std::io::Write;
use std::sync::OnceLock;

/// The installed EMF collector.
#[derive(Clone, Copy)]
pub struct Emf(&'static metrics_cloudwatch_embedded::Collector);

static COLLECTOR: OnceLock<Result<Emf, String>> = OnceLock::new();

/// The process's EMF recorder: installed as the global recorder on first call, then the same.
/// `Err` when another recorder was installed first.
pub fn install() -> Result<Emf, String> {
    COLLECTOR
        .get_or_init(|| {
            let collector = Builder::new()
                .cloudwatch_namespace(crate::names::NAMESPACE)
                .init()
                .map_err(|e| format!("the EMF recorder could not be installed: {e}"))?;
            crate::names::describe_all();
            Ok(Emf(collector))
        })
        .clone()
}

impl Emf {
    /// Writes what was recorded since the last flush to `out`, in one write (nothing when nothing
    /// was recorded).
    pub fn flush_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut lines = Vec::new();
        self.0.flush(&mut lines)?;
        if !lines.is_empty() {
            out.write_all(&lines)?;
            out.flush()?;
        }
        Ok(())
    }

    /// [`flush_to`](Emf::flush_to) stdout, where Lambda's log lines go; a failure is logged.
    pub fn flush(&self) {
        if let Err(e) = self.flush_to(&mut std::io::stdout().lock()) {
            tracing::warn!(error = %e, "metrics not written");
        }
    }
}
