//! Re-evaluates the texture verdict on the labelled set of real sprites recorded in
//! `assetstats/data/sprite_labels.json`, when the sprites themselves are present (they are kept
//! outside the repository; the data file names where each came from).
//!
//! ```text
//! cargo run -p assetstats --example sprite_eval -- [--dir /work/content/sprites] [--write]
//!     [--sheet OUT.png]
//! ```
//!
//! Each sprite is measured as shipped and recoloured to white with the same alpha. The run prints
//! one line per sprite and the rates, shaped sprites caught and soft sprites kept, both ways, for
//! the tuning set (`sprites`, on which the thresholds were chosen) and the held-out set
//! (`held_out.sprites`, measured only after they were fixed). It exits with status 1 when a rate
//! of either set misses its target (shaped >= 95 %, soft >= 85 %). `--write`
//! rewrites the statistics recorded in the data file; `--sheet` writes the alphas as a contact
//! sheet (white on black, 10 per row, in data-file order) for labelling by eye.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use assetstats::{Shape, TextureStats};
use image::{imageops, Rgba, RgbaImage};
use serde_json::{json, Value};

const DATA: &str = "assetstats/data/sprite_labels.json";
const SHAPED_TARGET: f64 = 0.95;
const SOFT_TARGET: f64 = 0.85;
const SHEET_CELL: u32 = 96;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let dir = PathBuf::from(flag("--dir").unwrap_or_else(|| "/work/content/sprites".into()));
    let text = std::fs::read_to_string(DATA).with_context(|| format!("reading {DATA}"))?;
    let mut data: Value = serde_json::from_str(&text)?;
    let mut images = Vec::new();
    println!("tuning set (the thresholds were chosen on it)");
    let tuning = evaluate(data["sprites"].as_array_mut().context("no sprites array")?, &dir, &mut images)?;
    tuning.report();
    let mut held_out = Tally::default();
    if let Some(sprites) = data["held_out"]["sprites"].as_array_mut() {
        println!("held-out set (never used to choose a threshold)");
        held_out = evaluate(sprites, &dir, &mut images)?;
        held_out.report();
    }
    if let Some(out) = flag("--sheet") {
        contact_sheet(&images).save(&out)?;
    }
    if args.iter().any(|a| a == "--write") {
        std::fs::write(DATA, serde_json::to_string_pretty(&data)? + "\n")?;
    }
    if !tuning.meets_targets() || !held_out.meets_targets() {
        bail!("a rate is under its target (shaped {SHAPED_TARGET}, soft {SOFT_TARGET})");
    }
    Ok(())
}

/// Measures each sprite of one set as shipped and white, prints its line, records its facts and
/// keeps its image for the contact sheet.
fn evaluate(sprites: &mut [Value], dir: &Path, images: &mut Vec<RgbaImage>) -> anyhow::Result<Tally> {
    let mut tally = Tally::default();
    for sprite in sprites.iter_mut() {
        let file = sprite["file"].as_str().context("sprite without file")?.to_owned();
        let label = sprite["label"].as_str().context("sprite without label")?.to_owned();
        let img = assetstats::load_rgba(&dir.join(&file)).with_context(|| format!("sprite {file}"))?;
        let shipped = TextureStats::from_rgba(&img)?;
        let white = TextureStats::from_rgba(&whitened(&img))?;
        tally.add(&label, &shipped, &white);
        println!("{}", line(&file, &label, &shipped, &white));
        sprite["shipped"] = facts(&shipped);
        sprite["white"] = facts(&white);
        images.push(img);
    }
    Ok(tally)
}

/// The same alpha, white RGB.
fn whitened(img: &RgbaImage) -> RgbaImage {
    let mut out = img.clone();
    for px in out.pixels_mut() {
        *px = Rgba([255, 255, 255, px[3]]);
    }
    out
}

/// The statistics the verdict uses, rounded for the data file.
fn facts(s: &TextureStats) -> Value {
    let r = |x: f32| (f64::from(x) * 1e4).round() / 1e4;
    json!({
        "shape": s.shape.as_str(), "softness": r(s.softness), "mean_alpha": r(s.mean_alpha),
        "edge_energy": r(s.edge_energy), "profile_max_drop": r(s.profile_max_drop),
        "profile_rise": r(s.profile_rise), "core_halo_ratio": r(s.core_halo_ratio),
        "border_alpha": r(s.border_alpha), "coverage_above_0.9": r(s.coverage[3]),
        "chroma_variance": r(s.chroma_variance), "alpha_anisotropy": r(s.alpha_anisotropy),
        "angular_variation": r(s.angular_variation), "thin_fraction": r(s.thin_fraction), "spikiness": r(s.spikiness),
    })
}

fn line(file: &str, label: &str, s: &TextureStats, w: &TextureStats) -> String {
    let mark = |x: &TextureStats| if x.shape.as_str() == label { "ok " } else { "BAD" };
    format!(
        "{file:<24} {label:<6} {} {} edge {:6.1} drop {:.2} rise {:.2} ch {:.2} bord {:.2} op {:.2} chroma {:.3} aniso {:.2} ang {:.2} thin {:.2} spike {:.2} soft {:.2}",
        mark(s), mark(w), s.edge_energy, s.profile_max_drop, s.profile_rise, s.core_halo_ratio,
        s.border_alpha, s.coverage[3], s.chroma_variance, s.alpha_anisotropy, s.angular_variation,
        s.thin_fraction, s.spikiness, s.softness
    )
}

/// Counts of right verdicts per label, as shipped and white.
#[derive(Default)]
struct Tally {
    shaped: [usize; 3],
    soft: [usize; 3],
}

impl Tally {
    fn add(&mut self, label: &str, shipped: &TextureStats, white: &TextureStats) {
        let (want, slot) = match label {
            "shaped" => (Shape::Shaped, &mut self.shaped),
            _ => (Shape::Soft, &mut self.soft),
        };
        slot[0] += 1;
        slot[1] += usize::from(shipped.shape == want);
        slot[2] += usize::from(white.shape == want);
    }

    fn report(&self) {
        let [n, a, b] = self.shaped;
        println!("shaped caught: {a}/{n} as shipped, {b}/{n} white");
        let [m, c, d] = self.soft;
        println!("soft kept:     {c}/{m} as shipped, {d}/{m} white");
    }

    fn meets_targets(&self) -> bool {
        let rate = |n: usize, d: usize| if d == 0 { 1.0 } else { n as f64 / d as f64 };
        let ([n, a, b], [m, c, d]) = (self.shaped, self.soft);
        rate(a, n).min(rate(b, n)) >= SHAPED_TARGET && rate(c, m).min(rate(d, m)) >= SOFT_TARGET
    }
}

/// Alphas as white on black, 10 per row.
fn contact_sheet(images: &[RgbaImage]) -> RgbaImage {
    let cols = 10u32;
    let rows = (images.len() as u32).div_ceil(cols).max(1);
    let mut sheet = RgbaImage::from_pixel(cols * SHEET_CELL, rows * SHEET_CELL, Rgba([40, 0, 0, 255]));
    for (i, img) in images.iter().enumerate() {
        let small = imageops::resize(img, SHEET_CELL - 4, SHEET_CELL - 4, imageops::FilterType::Triangle);
        let (x0, y0) = ((i as u32 % cols) * SHEET_CELL + 2, (i as u32 / cols) * SHEET_CELL + 2);
        for (x, y, px) in small.enumerate_pixels() {
            sheet.put_pixel(x0 + x, y0 + y, Rgba([px[3], px[3], px[3], 255]));
        }
    }
    sheet
}
