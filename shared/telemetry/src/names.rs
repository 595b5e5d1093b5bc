//! The metrics Agora records, by name, with their labels. The flows record them through the
//! `metrics` facade (`metrics::counter!(names::VOTES_ACCEPTED, "qualified" => "true")`); the
//! local server renders them as Prometheus text, the Lambda functions as CloudWatch EMF (namespace
//! [`NAMESPACE`], each label a dimension); the template's dashboard charts them by these names.
//! [`ALL`] lists every one with its kind, labels and meaning (the exporters' help text).

/// The CloudWatch namespace of the EMF metrics.
pub const NAMESPACE: &str = "Agora";

/// Votes stored, by `qualified` (`true` / `false`, the PQT's verdict).
pub const VOTES_ACCEPTED: &str = "agora_votes_accepted";
/// Votes refused, by `reason` (the refusal's kind: `bad_request`, `not_found`, `conflict`, ...).
pub const VOTES_REFUSED: &str = "agora_votes_refused";
/// Evaluations finished, by `service` (`voting`, `orcade`) and `outcome` (`completed`, `failed`, ...).
pub const EVALUATIONS: &str = "agora_evaluations";
/// Seconds one evaluation took, by `service`.
pub const EVALUATION_SECONDS: &str = "agora_evaluation_seconds";
/// Hook calls, by `mode` (`builtin`, `http`, `lambda`, `policy`, ...) and `outcome` (`ok`, `failed`).
pub const HOOK_CALLS: &str = "agora_hook_calls";
/// Seconds one hook call took, by `mode`.
pub const HOOK_CALL_SECONDS: &str = "agora_hook_call_seconds";
/// Delegate calls (a message handed to a recipient's delegate), by `outcome` (`ok`, `failed`).
pub const DELEGATE_CALLS: &str = "agora_delegate_calls";
/// Seconds one delegate call took.
pub const DELEGATE_CALL_SECONDS: &str = "agora_delegate_call_seconds";
/// Bids stored.
pub const BIDS_ACCEPTED: &str = "agora_bids_accepted";
/// Bids refused, by `reason`.
pub const BIDS_REFUSED: &str = "agora_bids_refused";
/// Xchange tasks that reached a terminal status, by `status`.
pub const XCHANGE_TASKS_TERMINAL: &str = "agora_xchange_tasks_terminal";
/// Seconds from an Xchange task's creation to its terminal status, by `status`.
pub const XCHANGE_TASK_SECONDS_TO_TERMINAL: &str = "agora_xchange_task_seconds_to_terminal";
/// Queued work items handled, by `queue` and `outcome` (`done`, `retried`, `busy`, `dead_lettered`).
pub const WORK_ITEMS: &str = "agora_work_items";
/// Store errors a flow did not handle, by `kind` (the store error's kind: `duplicate`, `backend`, ...).
pub const STORE_ERRORS: &str = "agora_store_errors";

/// What a metric is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    /// A distribution of seconds.
    Histogram,
}

/// One metric: name, kind, labels, meaning.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    pub name: &'static str,
    pub kind: Kind,
    pub labels: &'static [&'static str],
    pub help: &'static str,
}

/// Every metric Agora records.
pub const ALL: &[Metric] = &[
    Metric { name: VOTES_ACCEPTED, kind: Kind::Counter, labels: &["qualified"], help: "Votes stored, by the PQT's verdict" },
    Metric { name: VOTES_REFUSED, kind: Kind::Counter, labels: &["reason"], help: "Votes refused, by reason" },
    Metric { name: EVALUATIONS, kind: Kind::Counter, labels: &["service", "outcome"], help: "Evaluations finished, by outcome" },
    Metric { name: EVALUATION_SECONDS, kind: Kind::Histogram, labels: &["service"], help: "Seconds one evaluation took" },
    Metric { name: HOOK_CALLS, kind: Kind::Counter, labels: &["mode", "outcome"], help: "Hook calls, by mode and outcome" },
    Metric { name: HOOK_CALL_SECONDS, kind: Kind::Histogram, labels: &["mode"], help: "Seconds one hook call took" },
    Metric { name: DELEGATE_CALLS, kind: Kind::Counter, labels: &["outcome"], help: "Delegate calls, by outcome" },
    Metric { name: DELEGATE_CALL_SECONDS, kind: Kind::Histogram, labels: &[], help: "Seconds one delegate call took" },
    Metric { name: BIDS_ACCEPTED, kind: Kind::Counter, labels: &[], help: "Bids stored" },
    Metric { name: BIDS_REFUSED, kind: Kind::Counter, labels: &["reason"], help: "Bids refused, by reason" },
    Metric { name: XCHANGE_TASKS_TERMINAL, kind: Kind::Counter, labels: &["status"], help: "Xchange tasks that reached a terminal status" },
    Metric {
        name: XCHANGE_TASK_SECONDS_TO_TERMINAL,
        kind: Kind::Histogram,
        labels: &["status"],
        help: "Seconds from an Xchange task's creation to its terminal status",
    },
    Metric {
        name: WORK_ITEMS,
        kind: Kind::Counter,
        labels: &["queue", "outcome"],
        help: "Queued work items handled, by queue and outcome",
    },
    Metric { name: STORE_ERRORS, kind: Kind::Counter, labels: &["kind"], help: "Store errors a flow did not handle, by kind" },
];

/// Describes every metric of [`ALL`] to the installed recorder (help text, and seconds as the
/// histograms' unit).
pub fn describe_all() {
    for metric in ALL {
        match metric.kind {
            Kind::Counter => metrics::describe_counter!(metric.name, metric.help),
            Kind::Histogram => metrics::describe_histogram!(metric.name, metrics::Unit::Seconds, metric.help),
        }
    }
}
