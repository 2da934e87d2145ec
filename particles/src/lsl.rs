//! `lsl`: under construction.
