//! What a piece of work recorded, for tests (feature `testing`): [`record`] runs it under a
//! recorder of its own (not the process's global one, which a test binary's tests share) on a
//! current-thread runtime, and [`Recorded`] answers for a metric by its name and exact labels.

use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use std::future::Future;

/// One metric as recorded: its name, its labels in order, its value.
type Metric = (String, Vec<(String, String)>, DebugValue);

/// The metrics one piece of work recorded.
#[derive(Debug)]
pub struct Recorded(Vec<Metric>);

/// Runs `work` and returns what it recorded.
pub fn record<F: Future>(work: impl FnOnce() -> F) -> Recorded {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a test runtime");
        runtime.block_on(work())
    });
    let metrics = snapshotter.snapshot().into_vec().into_iter().map(|(key, _, _, value)| {
        let key = key.key();
        (key.name().to_owned(), key.labels().map(|l| (l.key().to_owned(), l.value().to_owned())).collect(), value)
    });
    Recorded(metrics.collect())
}

impl Recorded {
    /// The value recorded for `name` with exactly `labels` (in the order recorded).
    fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<&DebugValue> {
        self.0.iter().find_map(|(n, l, value)| {
            let same = n == name && l.len() == labels.len() && l.iter().zip(labels).all(|((k, v), (k2, v2))| k == k2 && v == v2);
            same.then_some(value)
        })
    }

    /// The counter `name` with exactly `labels`, if it was recorded.
    pub fn counter(&self, name: &str, labels: &[(&str, &str)]) -> Option<u64> {
        match self.value(name, labels)? {
            DebugValue::Counter(n) => Some(*n),
            _ => None,
        }
    }

    /// The values of the histogram `name` with exactly `labels`, if it was recorded.
    pub fn histogram(&self, name: &str, labels: &[(&str, &str)]) -> Option<Vec<f64>> {
        match self.value(name, labels)? {
            DebugValue::Histogram(values) => Some(values.iter().map(|v| v.into_inner()).collect()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_histograms_are_found_by_name_and_exact_labels() {
        let recorded = record(|| async {
            metrics::counter!("c", "a" => "1").increment(2);
            metrics::counter!("c", "a" => "2").increment(1);
            metrics::histogram!("h").record(0.5);
        });
        assert_eq!((recorded.counter("c", &[("a", "1")]), recorded.counter("c", &[("a", "2")])), (Some(2), Some(1)));
        assert_eq!(recorded.counter("c", &[]), None, "labels must match exactly");
        assert_eq!(recorded.histogram("h", &[]), Some(vec![0.5]));
        assert_eq!(recorded.counter("h", &[]), None, "a histogram is no counter");
    }
}
