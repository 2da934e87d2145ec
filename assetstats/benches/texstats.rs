//! Benchmark placeholder; the owning change replaces it with a criterion benchmark.
fn main() {}
