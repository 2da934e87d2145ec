//! A time-boxed exploration run of the `settings_xml` fuzz target on stable Rust: random mutations
//! of the corpus (byte changes, LLSD and XML fragments, deletions, duplications, splices), each
//! checked like the fuzz target checks (no panic; a file that loads saves stably). Inputs that load
//! join the pool, so mutations build on each other. No coverage guidance: this finds what random
//! structure-aware edits find; `cargo fuzz` (README) explores further.
//!
//! `SETTINGS_FUZZ_SECONDS` sets the budget (default 3), `SETTINGS_FUZZ_SEED` the seed (default from
//! the clock). The seed is written to `<target>/tmp/settings-fuzz-seed` before the run, so even a
//! stack overflow (which aborts the process) can be replayed; a failing input is written beside it.

mod common;

use std::time::{Duration, Instant};

use common::fuzz::{check, corpus};

const DEFAULT_SECONDS: f64 = 3.0;
/// The largest input tried, in bytes (the realistic seed is about 21 KB).
const MAX_INPUT_BYTES: usize = 64 * 1024;
/// The most inputs kept in the pool.
const MAX_POOL: usize = 512;
/// Fragments a mutation inserts: LLSD and XML structure, our names, hostile values.
const FRAGMENTS: &[&str] = &[
    "<map>",
    "</map>",
    "<map />",
    "<array>",
    "</array>",
    "<array />",
    "<key>",
    "</key>",
    "<key>Value</key>",
    "<key>Type</key>",
    "<key>Comment</key>",
    "<key>Backup</key>",
    "<string>",
    "</string>",
    "<string>F32</string>",
    "<string>U32</string>",
    "<integer>-5</integer>",
    "<integer>2147483648</integer>",
    "<real>nan</real>",
    "<real>1e308</real>",
    "<real>-0</real>",
    "<boolean>true</boolean>",
    "<undef />",
    "<uuid>x</uuid>",
    "<binary encoding=\"base64\">AA==</binary>",
    "<date />",
    "<uri>&amp;</uri>",
    "<![CDATA[",
    "]]>",
    "<!--",
    "-->",
    "<?pi x?>",
    "&amp;",
    "&lt;",
    "&#13;",
    "&#0;",
    "&bogus;",
    "\"",
    "'",
    "/>",
    ">",
    "<",
    "\r\n",
    "\u{feff}",
    "<key>RenderMaxPartCount</key>",
    "<key>RenderVKParticleFog</key>",
    "<key>RenderVKParticleFogDebug</key>",
    "<key>RenderVKParticleCapacity</key>",
    "<key>RenderVKParticleFogThreshold</key>",
    "<llsd>",
    "</llsd>",
];

/// xorshift64*: small, deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A random range `start..end` inside `len` of at most `max` bytes.
    fn range(&mut self, len: usize, max: usize) -> (usize, usize) {
        let start = self.below(len + 1);
        (start, (start + 1 + self.below(max)).min(len))
    }
}

/// One random edit of `input`; `other` is a second pool member for splices.
fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    match rng.below(6) {
        0 if !out.is_empty() => {
            let at = rng.below(out.len());
            out[at] = b"<>/&;\"'=!?[]-x0 \n"[rng.below(17)];
        }
        1 => {
            let fragment = FRAGMENTS[rng.below(FRAGMENTS.len())].as_bytes();
            let at = rng.below(out.len() + 1);
            out.splice(at..at, fragment.iter().copied());
        }
        2 => {
            let (start, end) = rng.range(out.len(), 64);
            out.drain(start..end);
        }
        3 => {
            let (start, end) = rng.range(out.len(), 256);
            let copy = out[start..end].to_vec();
            let at = rng.below(out.len() + 1);
            for _ in 0..=rng.below(8) {
                out.splice(at..at, copy.iter().copied());
            }
        }
        4 => {
            out.truncate(rng.below(out.len() + 1));
            out.extend_from_slice(&other[rng.below(other.len() + 1)..]);
        }
        _ => out.truncate(rng.below(out.len() + 1)),
    }
    out.truncate(MAX_INPUT_BYTES);
    out
}

/// The message of a caught panic.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic.downcast_ref::<&str>().map(|s| (*s).to_owned());
    text.or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_else(|| "(no message)".to_owned())
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn random_mutations_of_the_corpus_never_panic_and_save_stably() {
    let seconds: f64 = env_or("SETTINGS_FUZZ_SECONDS", DEFAULT_SECONDS);
    let clock_seed =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    let seed: u64 = env_or("SETTINGS_FUZZ_SEED", clock_seed) | 1;
    let out_dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(out_dir.join("settings-fuzz-seed"), seed.to_string()).expect("record the seed");
    let mut rng = Rng(seed);
    let mut pool: Vec<Vec<u8>> = corpus().into_iter().map(|(_, bytes)| bytes).collect();
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut cases = 0u64;
    while Instant::now() < deadline {
        let (first, second) = (rng.below(pool.len()), rng.below(pool.len()));
        let mut mutated = mutate(&mut rng, &pool[first], &pool[second]);
        for _ in 0..rng.below(3) {
            let other = rng.below(pool.len());
            mutated = mutate(&mut rng, &mutated, &pool[other]);
        }
        let text = String::from_utf8_lossy(&mutated).into_owned();
        cases += 1;
        let outcome = std::panic::catch_unwind(|| check(&text))
            .unwrap_or_else(|panic| Err(format!("panicked: {}", panic_text(panic.as_ref()))));
        match outcome {
            Ok(Ok(_)) if pool.len() < MAX_POOL => pool.push(mutated),
            Ok(_) => {}
            Err(broken) => {
                let path = out_dir.join(format!("settings-fuzz-failure-{seed}.xml"));
                std::fs::write(&path, &text).expect("save the failing input");
                panic!("seed {seed}, case {cases}: {broken}\n(input saved to {})", path.display());
            }
        }
    }
    eprintln!("seed {seed}: {cases} cases in {seconds} s, {} inputs in the pool", pool.len());
    assert!(cases > 100, "only {cases} cases in {seconds} s");
}
