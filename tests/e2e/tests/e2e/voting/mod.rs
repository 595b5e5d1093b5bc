//! Voting end to end: over the local server's HTTP API (on the store `AGORA_E2E_STORE` names),
//! and the local server as a process killed mid-work (`crash`).

mod bad_input;
mod cancel;
mod concurrency;
mod crash;
mod deadlines;
mod flow;
mod hook_modes;
mod input_keys;
mod live_stream;
mod pqt_calls;
mod queries;
mod round_trips;
mod weights;
