//! `assetstats`: see ARCHITECTURE.md.
#![forbid(unsafe_code)]
