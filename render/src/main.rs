//! The `particle-fog` command-line tool.
fn main() {}
