//! The builtin rule catalogue (`{"mode": "builtin", "name": ..., "parameters": ...}` function
//! specs): the four PQTs, the eight choice rules, the three tie-breakers and the two post-award
//! rules. Pure: no I/O, no async, no panic on any input.
//!
//! Two layers:
//! - a typed core over option indices: [`profile`] holds compact ballot profiles (flat arrays,
//!   validated on `push`), [`weighted`] the same with a weight per ballot, [`tally`] what a count
//!   adds up (`u64` ballots or exact weights); one module per rule family ([`plurality`] with
//!   weighted plurality, [`approval`], [`borda`], [`score`], [`irv`], [`condorcet`] with
//!   Copeland and Schulze, [`tie_break`]'s deterministic draw), each written once for both;
//! - a JSON layer, [`run`], that reads the hook input (`user_input.votes`, `vote_data`,
//!   `winners`, `task.goal_data`), builds the typed profile, counts and writes the hook's output
//!   (§4 output contracts). [`check`] says whether a name is a builtin for a hook.
//!
//! Options are the keys of `voting_options_map`; option *index* `i` is the `i`-th key in
//! creation order.
//!
//! | Hook | Builtin | Reads | Output |
//! |---|---|---|---|
//! | PQT | `option-on-ballot`, `valid-ranking`, `valid-approval`, `valid-scores` | `vote_data` | `{"qualified": true}` or `{"qualified": false, "reason": ...}` |
//! | choice evaluation | `plurality`, `weighted-plurality` | `selected_option` (+ `weight`) | `{"winners", "tally", "ignored"}` |
//! | | `approval` | `approved` | `{"winners", "tally", "ignored"}` |
//! | | `borda`, `score` | `ranking` / `scores` | `{"winners", "scores", "ignored"}` |
//! | | `copeland` | `ranking` | `{"winners", "scores", "pairwise", "ignored"}` |
//! | | `schulze` | `ranking` | `{"winners", "pairwise", "strongest_paths", "ignored"}` |
//! | | `instant-runoff` | `ranking` | `{"winners", "rounds": [{"counts", "eliminated", "exhausted"}], "ignored"}` |
//! | tie-breaker | `earliest-vote`, `lexicographic`, `seeded-random` | `votes`, `winners` | `{"winner", "rule"}` |
//! | post-award | `assign-first-winner`, `echo` | `winners`, `task.goal_data` | as §4.6 / `{"winners", "goal"}` |
//!
//! Conventions shared by the choice rules:
//! - `winners` is every option tied for first, sorted by key (byte order, which is Python's
//!   `sorted` on `str`); empty when no ballot was counted (what post-award reads as "no qualified
//!   votes").
//! - `ignored` counts the votes whose `vote_data` does not fit the rule: exactly the votes the
//!   matching PQT refuses (`option-on-ballot` for plurality, `valid-ranking` for the ranked rules,
//!   `valid-approval`, `valid-scores` with the same parameters), plus, for weighted plurality, a
//!   `vote_data.weight` that is not a number in `0 ..= 1e9`. An ignored ballot is ignored whole.
//! - Truncated rankings: options a ranking leaves out are below every ranked option and tied
//!   among themselves.
//! - Weights and scores are summed exactly (see [`profile::Exact`]), so ballot order never
//!   changes an outcome.
//!
//! **Weighted votes** (the task's `weights` option): a vote document may carry `weight`, a number;
//! absent means 1 ([`weighted`], read by `vote_weight`). Every choice rule honours it: plurality
//! sums weights per option, weighted plurality sums `vote_data.weight × weight`, approval gives
//! each approved option the weight, Borda multiplies points and score multiplies scores by it
//! (score sums, it never averages), Copeland and Schulze count weighted pairwise support
//! (margins and path strengths are differences of weights), and instant runoff counts weighted
//! first preferences, transfers (a ballot carries its whole weight) and exhausted weight, with
//! the majority taken over the non-exhausted weight. A whole weight `k` counts exactly as `k`
//! copies of the ballot. The tie-breakers do not count votes: `earliest-vote` orders by
//! `submission_time`, the others by key or seed, so weights do not change them.
//! - Invalid weights: a `weight` that is not a number within `1e-9 ..= 1e9` (zero, negative,
//!   non-finite, or beyond what the exact sums hold) makes the rule fail with
//!   [`RuleError::BadWeight`] naming the vote (`vote "v7": weight must be a number between 1e-9
//!   and 1e9 (absent: 1), got -1`); rules do not trust that intake validated it.
//! - Numbers in the output: a count of unweighted ballots is an integer. A weighted count is the
//!   exact sum of the weights (each truncated to a multiple of 2⁻³²; a product such as score ×
//!   weight too): written as an integer when it is whole, else as the nearest float. So a task
//!   without weights, or whose votes all weigh 1, writes exactly the same bytes as before
//!   weights existed, and a task without weights takes the unweighted (`u64`) path.
//!
//! PQTs accept `vote_data` when: `option-on-ballot`: `selected_option` is an option key (§4.3's
//! reference, same reason text, e.g. `option 'x' is not on the ballot`); `valid-ranking`:
//! `ranking` is an array of distinct option keys, at least one; `valid-approval`: `approved` is an
//! array of distinct option keys (may be empty); `valid-scores`: `scores` is an object of option
//! key → number within `parameters.min ..= parameters.max` (default `0 ..= 10`; may be empty).
//!
//! Parameters (`{}` when absent, `null` read as `{}`, unknown keys ignored): `score` and
//! `valid-scores` read `min` and `max` (numbers within ±1e9, `min <= max`); `seeded-random` reads
//! `seed` (an integer or a string; absent: the task's `social_task_id`).
//!
//! Each module documents its rule's definition and its tie and truncation conventions.

pub mod approval;
mod ballot;
pub mod borda;
mod builtin;
pub mod condorcet;
mod evaluate;
mod evaluate_ranked;
pub mod irv;
mod json;
mod params;
pub mod plurality;
mod post_award;
mod pqt;
pub mod profile;
pub mod score;
pub mod tally;
pub mod tie_break;
mod vote_weight;
pub mod weighted;

pub use agora_voting_schema::{Hook, HookInput, Vote};
pub use builtin::{check, names, run, Builtin};
pub use params::RuleError;
pub use profile::OptionIndex;
