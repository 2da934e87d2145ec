//! Time-boxed exploration of a parser on stable Rust: seeded mutation of its saved corpus.
//!
//! The project's cargo-fuzz targets need nightly and only replay their saved inputs in CI. This
//! crate runs the same kind of property ("no input panics or hangs the reader, and what it
//! accepts is consistent") over *new* inputs made from the corpus, inside `cargo test`:
//!
//! 1. the corpus files are the seeds (plus any the caller generates);
//! 2. each round picks a seed (or, half the time, an input that earlier rounds produced and the
//!    target accepted, so accepted shapes are explored deeper), applies one to four mutations
//!    (bit flip, interesting byte, byte insert/delete, chunk copy, truncation, splice with another
//!    seed; for text also number replacement with hostile values and line duplication/deletion),
//!    and calls the target, catching panics;
//! 3. it stops at the time box ([`Budget`]): a few seconds in `cargo test`, longer with
//!    `EXPLORE_SECONDS=600`; `EXPLORE_SEED=n` replays a run (the default seed is fixed, so a CI
//!    failure reproduces).
//!
//! A failing input (an `Err` from the target, or a panic) is written to
//! `target/explore-failures/<target>-<hash>` and the test fails naming that file; copy it into the
//! target's corpus with a descriptive name once fixed, so the replay tests keep it. The mutator is
//! a small xorshift generator, not coverage-guided: it finds shallow crashes quickly and keeps
//! the CI cost bounded; the cargo-fuzz targets remain for deep, guided runs.

#![forbid(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Default time box per target in `cargo test`, seconds.
pub const DEFAULT_SECONDS: f64 = 3.0;
/// Default seed (any fixed value: runs are reproducible unless `EXPLORE_SEED` says otherwise).
pub const DEFAULT_SEED: u64 = 0x5EED_F0F0_F06F_06A1;
/// Largest input the mutator builds, bytes (keeps each call cheap).
pub const MAX_INPUT_BYTES: usize = 64 * 1024;
/// Most accepted inputs kept for further mutation.
const MAX_POOL: usize = 512;

/// How long to explore and from which seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Wall-clock time box.
    pub time: Duration,
    /// Random seed.
    pub seed: u64,
}

impl Budget {
    /// `EXPLORE_SECONDS` (default [`DEFAULT_SECONDS`]) and `EXPLORE_SEED` (default
    /// [`DEFAULT_SEED`]) from the environment.
    pub fn from_env() -> Budget {
        let env = |name: &str| std::env::var(name).ok();
        let seconds = env("EXPLORE_SECONDS").and_then(|s| s.parse::<f64>().ok()).filter(|s| *s > 0.0);
        let seed = env("EXPLORE_SEED").and_then(|s| s.parse::<u64>().ok());
        Budget {
            time: Duration::from_secs_f64(seconds.unwrap_or(DEFAULT_SECONDS)),
            seed: seed.unwrap_or(DEFAULT_SEED),
        }
    }
}

/// How inputs are mutated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Binary data (blocks, images): byte-level mutations only.
    Bytes,
    /// Text (scenes, scripts, XML): byte-level mutations plus number and line mutations that keep
    /// most inputs well-formed enough to reach the checks behind the syntax.
    Text,
}

/// What one exploration did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Inputs tried.
    pub runs: u64,
    /// Inputs the target accepted (`Ok(true)`).
    pub accepted: u64,
}

/// The outcome a target reports for one input: `Ok(true)` accepted, `Ok(false)` refused cleanly,
/// `Err(why)` a broken property (the input is saved and the run fails).
pub type Verdict = Result<bool, String>;

/// Reads every regular file under `dir` (sorted by name): the saved corpus.
pub fn corpus(dir: &Path) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    files.sort();
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// Explores `target` from `seeds` for `budget`; panics (failing the test) with the saved input's
/// path on the first broken property or panic.
pub fn explore(
    name: &str,
    seeds: &[Vec<u8>],
    mode: Mode,
    budget: Budget,
    mut target: impl FnMut(&[u8]) -> Verdict,
) -> Summary {
    assert!(!seeds.is_empty(), "explore {name}: no seeds");
    let mut rng = Rng::new(budget.seed);
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let mut summary = Summary { runs: 0, accepted: 0 };
    let started = Instant::now();
    let mut round = 0usize;
    while started.elapsed() < budget.time {
        // Every seed as given first, then mutants.
        let input = match seeds.get(round) {
            Some(seed) => seed.clone(),
            None => mutant(&mut rng, seeds, &pool, mode),
        };
        round += 1;
        let verdict = catch_unwind(AssertUnwindSafe(|| target(&input)))
            .unwrap_or_else(|panic| Err(format!("panicked: {}", panic_text(&*panic))));
        summary.runs += 1;
        match verdict {
            Ok(true) => {
                summary.accepted += 1;
                if pool.len() < MAX_POOL {
                    pool.push(input);
                } else {
                    let slot = rng.below(MAX_POOL);
                    pool[slot] = input;
                }
            }
            Ok(false) => {}
            Err(why) => fail(name, &input, &why, budget.seed),
        }
    }
    summary
}

fn mutant(rng: &mut Rng, seeds: &[Vec<u8>], pool: &[Vec<u8>], mode: Mode) -> Vec<u8> {
    let base = if !pool.is_empty() && rng.below(2) == 0 {
        &pool[rng.below(pool.len())]
    } else {
        &seeds[rng.below(seeds.len())]
    };
    let mut data = base.clone();
    for _ in 0..=rng.below(4) {
        mutate(rng, &mut data, seeds, mode);
    }
    data.truncate(MAX_INPUT_BYTES);
    data
}

/// Bytes that often sit on a parser's boundaries.
const INTERESTING_BYTES: [u8; 10] = [0, 1, 0x7F, 0x80, 0xFF, b'0', b'9', b'-', b'"', b'\n'];
/// Numbers that often break range checks, as text.
const HOSTILE_NUMBERS: [&str; 14] = [
    "0",
    "-0.0",
    "1e30",
    "-1e30",
    "3.4e38",
    "1e-45",
    "nan",
    "inf",
    "-inf",
    "4294967296",
    "-1",
    "99999999999999999999",
    "0.5",
    "255",
];

fn mutate(rng: &mut Rng, data: &mut Vec<u8>, seeds: &[Vec<u8>], mode: Mode) {
    let ops = if mode == Mode::Text { 10 } else { 7 };
    let len = data.len();
    match rng.below(ops) {
        0 if len > 0 => data[rng.below(len)] ^= 1 << rng.below(8),
        1 if len > 0 => data[rng.below(len)] = INTERESTING_BYTES[rng.below(INTERESTING_BYTES.len())],
        2 => data.insert(rng.below(len + 1), rng.next() as u8),
        3 if len > 0 => {
            data.remove(rng.below(len));
        }
        4 if len > 1 => {
            let (from, n) = chunk(rng, len);
            let copy = data[from..from + n].to_vec();
            let at = rng.below(len + 1);
            data.splice(at..at, copy);
        }
        5 => data.truncate(rng.below(len + 1)),
        6 => {
            let other = &seeds[rng.below(seeds.len())];
            let cut = rng.below(len + 1);
            data.truncate(cut);
            data.extend_from_slice(&other[rng.below(other.len() + 1)..]);
        }
        7 | 8 => replace_number(rng, data),
        9 => mutate_line(rng, data),
        _ => {}
    }
}

/// A random `(start, length)` inside `len` bytes, length at least 1.
fn chunk(rng: &mut Rng, len: usize) -> (usize, usize) {
    let from = rng.below(len);
    (from, 1 + rng.below(len - from))
}

/// Replaces one number (sign, digits, point, exponent) by a hostile number.
fn replace_number(rng: &mut Rng, data: &mut Vec<u8>) {
    let in_number = |b: u8| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-' | b'_');
    let begins = |i: usize| {
        let digit_at = |j: usize| data.get(j).is_some_and(u8::is_ascii_digit);
        let first = digit_at(i) || (data[i] == b'-' && digit_at(i + 1));
        first && (i == 0 || !(in_number(data[i - 1]) || data[i - 1].is_ascii_alphanumeric()))
    };
    let starts: Vec<usize> = (0..data.len()).filter(|&i| begins(i)).collect();
    if starts.is_empty() {
        return;
    }
    let start = starts[rng.below(starts.len())];
    let end = (start + 1..data.len()).find(|&i| !in_number(data[i])).unwrap_or(data.len());
    let with = HOSTILE_NUMBERS[rng.below(HOSTILE_NUMBERS.len())].as_bytes().to_vec();
    data.splice(start..end, with);
}

/// Duplicates or deletes one line.
fn mutate_line(rng: &mut Rng, data: &mut Vec<u8>) {
    let breaks: Vec<usize> = (0..data.len()).filter(|&i| data[i] == b'\n').collect();
    if breaks.len() < 2 {
        return;
    }
    let i = rng.below(breaks.len() - 1);
    let line = breaks[i] + 1..breaks[i + 1] + 1;
    if rng.below(2) == 0 {
        let copy = data[line.clone()].to_vec();
        data.splice(line.start..line.start, copy);
    } else {
        data.drain(line);
    }
}

fn fail(name: &str, input: &[u8], why: &str, seed: u64) -> ! {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/explore-failures");
    let file = dir.join(format!("{name}-{:016x}", fnv1a(input)));
    let saved = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, input));
    let at = match saved {
        Ok(()) => file.display().to_string(),
        Err(e) => format!("(not saved: {e})"),
    };
    panic!("explore {name} (EXPLORE_SEED={seed}): {why}\n  input ({} bytes): {at}", input.len());
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-text panic".to_owned())
}

/// FNV-1a, for stable failure file names.
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// xorshift64*: small, fast, reproducible.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-enough in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(ms: u64) -> Budget {
        Budget { time: Duration::from_millis(ms), seed: 7 }
    }

    #[test]
    fn every_seed_is_tried_as_given_then_mutants() {
        let seeds = vec![b"alpha 12\n".to_vec(), b"beta 3.5\nx\n".to_vec()];
        let mut seen = Vec::new();
        let s = explore("self-test", &seeds, Mode::Text, budget(50), |input| {
            seen.push(input.to_vec());
            Ok(true)
        });
        assert_eq!(&seen[..2], &seeds[..]);
        assert!(s.runs > 100 && s.accepted == s.runs, "{s:?}");
        assert!(seen.iter().any(|i| !seeds.contains(i)), "no mutant was made");
    }

    #[test]
    fn a_panicking_target_fails_with_the_saved_input() {
        let seeds = vec![b"1234".to_vec()];
        let result = catch_unwind(|| {
            explore("self-test-panic", &seeds, Mode::Bytes, budget(2000), |input| {
                assert!(input.len() >= 4, "short input");
                Ok(true)
            })
        });
        let text = panic_text(&*result.expect_err("the short input is found"));
        assert!(text.contains("panicked: short input") && text.contains("explore-failures"), "{text}");
    }

    #[test]
    fn runs_are_reproducible_from_the_seed() {
        let seeds = vec![b"x = [1.0, 2.0]\ny = 3\n".to_vec()];
        let collect = || {
            let mut rng = Rng::new(11);
            (0..200).map(|_| mutant(&mut rng, &seeds, &[], Mode::Text)).collect::<Vec<_>>()
        };
        assert_eq!(collect(), collect());
    }

    #[test]
    fn hostile_numbers_replace_whole_numbers() {
        let mut rng = Rng::new(3);
        for _ in 0..50 {
            let mut data = b"radius = -12.5e3\n".to_vec();
            replace_number(&mut rng, &mut data);
            let text = String::from_utf8(data).expect("text");
            let value = text.trim_start_matches("radius = ").trim_end();
            assert!(HOSTILE_NUMBERS.contains(&value), "{text:?}");
        }
    }
}
