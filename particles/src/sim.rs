//! `sim`: under construction.
