//! The end-to-end suite, as one test binary (one link, one start-up): a module per service.
//! Run one service's tests with a filter: `cargo test -p agora-e2e --test e2e -- voting::`.

mod access;
mod clients;
mod local;
mod operations;
mod orcade;
mod voting;
mod xchange;
