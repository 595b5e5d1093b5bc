//! MongoDB-style filters (placeholder until the filter language lands).
