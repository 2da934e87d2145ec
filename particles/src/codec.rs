//! `codec`: under construction.
