//! Voting end to end: over the local server's HTTP API (on the store `AGORA_E2E_STORE` names),
//! and the flows with a store that fails on purpose.

mod bad_input;
mod concurrency;
mod flow;
mod hook_modes;
mod live_stream;
mod queries;
mod trigger_fallback;
