//! Shared helpers for the integration and GPU tests.
#![forbid(unsafe_code)]
