//! What `particle-fog bench` reports for one run, and how: the particle fog's and the
//! billboards' totals attributed from the per-pass GPU medians, ratios to a sweep's first point,
//! and the text tables.
//!
//! Attribution (all figures are per-pass GPU medians over the timed frames; a total is the sum of
//! its parts' medians, not the median of per-frame sums):
//! - particle fog: every `fog.brick*` pass (which includes `fog.bricks.*`) in full, plus the
//!   carriers' share of `particles.emit` and `particles.update`: those passes' time x carriers /
//!   live particles (the simulation runs once over every particle; the carriers are the live
//!   particles of converted systems in the last frame).
//! - billboards: `particles.billboards*` (the depth copy included), `particles.sort*`,
//!   `particles.batch*` and `particles.cull*`, in full.
//! - frame: every pass.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::vk::profiler::PassTiming;

/// The simulation passes whose time the particle fog shares with the billboards by particle count.
pub const SHARED_SIMULATION_PASSES: [&str; 2] = ["particles.emit", "particles.update"];
/// Prefix of the particle fog's own passes (`fog.brick_*` and `fog.bricks.*`).
const FOG_PREFIX: &str = "fog.brick";
/// Prefixes of the billboards' passes.
const BILLBOARD_PREFIXES: [&str; 4] =
    ["particles.billboards", "particles.sort", "particles.batch", "particles.cull"];

/// One pass's contribution to a total.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Part {
    /// The pass.
    pub pass: String,
    /// The fraction of its median counted (1 for a pass of its own).
    pub share: f64,
    /// Its median x share, ms.
    pub ms: f64,
}

/// A total of GPU time and what it is made of.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Total {
    /// The sum of the parts, ms.
    pub total_ms: f64,
    /// The passes counted.
    pub parts: Vec<Part>,
}

impl Total {
    fn of(parts: Vec<Part>) -> Total {
        Total { total_ms: parts.iter().map(|p| p.ms).sum(), parts }
    }
}

/// The particle fog's GPU time: its own passes plus `carriers / live` of the shared simulation.
pub fn particle_fog_total(passes: &[PassTiming], carriers: u32, live: Option<u32>) -> Total {
    let share = match live {
        Some(n) if n > 0 => (f64::from(carriers) / f64::from(n)).min(1.0),
        _ => 0.0,
    };
    let mut parts: Vec<Part> = passes
        .iter()
        .filter(|p| p.pass.starts_with(FOG_PREFIX))
        .map(|p| Part { pass: p.pass.clone(), share: 1.0, ms: p.median_ms })
        .collect();
    for p in passes.iter().filter(|p| SHARED_SIMULATION_PASSES.contains(&p.pass.as_str())) {
        parts.push(Part { pass: p.pass.clone(), share, ms: p.median_ms * share });
    }
    Total::of(parts)
}

/// The billboards' GPU time: draw, sort, batch and cull.
pub fn billboards_total(passes: &[PassTiming]) -> Total {
    Total::of(
        passes
            .iter()
            .filter(|p| BILLBOARD_PREFIXES.iter().any(|b| p.pass.starts_with(b)))
            .map(|p| Part { pass: p.pass.clone(), share: 1.0, ms: p.median_ms })
            .collect(),
    )
}

/// The frame's GPU time: the sum of every pass's median, ms.
pub fn frame_total_ms(passes: &[PassTiming]) -> f64 {
    passes.iter().map(|p| p.median_ms).sum()
}

/// `value / first`; 1 when both are 0, none when only `first` is.
pub fn ratio(value: f64, first: f64) -> Option<f64> {
    if first > 0.0 {
        Some(value / first)
    } else if value == 0.0 {
        Some(1.0)
    } else {
        None
    }
}

/// A sweep point's figures as ratios to the sweep's first point (none where the first is 0 and
/// this one is not).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ratios {
    /// Frame GPU total.
    pub frame_gpu: Option<f64>,
    /// Particle fog total.
    pub particle_fog: Option<f64>,
    /// Billboards total.
    pub billboards: Option<f64>,
    /// CPU work per frame.
    pub frame_cpu: Option<f64>,
    /// CPU work of the particle systems per frame.
    pub systems_cpu: Option<f64>,
    /// Carriers.
    pub carriers: Option<f64>,
    /// Brick memory in use.
    pub brick_bytes_used: Option<f64>,
    /// Brick memory allocated.
    pub brick_bytes_allocated: Option<f64>,
    /// Each pass present in both points, by name.
    pub passes: BTreeMap<String, Option<f64>>,
}

/// The figures of one run that sweeps compare.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Figures {
    /// Frame GPU total, ms.
    pub frame_gpu_ms: f64,
    /// Particle fog total, ms.
    pub particle_fog_ms: f64,
    /// Billboards total, ms.
    pub billboards_ms: f64,
    /// CPU work per frame, ms.
    pub frame_cpu_ms: f64,
    /// CPU work of the particle systems per frame, ms.
    pub systems_cpu_ms: f64,
    /// Carriers.
    pub carriers: u32,
    /// Brick memory in use, bytes.
    pub brick_bytes_used: u64,
    /// Brick memory allocated, bytes.
    pub brick_bytes_allocated: u64,
}

/// `this` relative to `first` (figures and per-pass medians).
pub fn ratios(this: (&Figures, &[PassTiming]), first: (&Figures, &[PassTiming])) -> Ratios {
    let ((a, a_passes), (b, b_passes)) = (this, first);
    let passes = a_passes
        .iter()
        .filter_map(|p| {
            let base = b_passes.iter().find(|q| q.pass == p.pass)?;
            Some((p.pass.clone(), ratio(p.median_ms, base.median_ms)))
        })
        .collect();
    Ratios {
        frame_gpu: ratio(a.frame_gpu_ms, b.frame_gpu_ms),
        particle_fog: ratio(a.particle_fog_ms, b.particle_fog_ms),
        billboards: ratio(a.billboards_ms, b.billboards_ms),
        frame_cpu: ratio(a.frame_cpu_ms, b.frame_cpu_ms),
        systems_cpu: ratio(a.systems_cpu_ms, b.systems_cpu_ms),
        carriers: ratio(f64::from(a.carriers), f64::from(b.carriers)),
        brick_bytes_used: ratio(a.brick_bytes_used as f64, b.brick_bytes_used as f64),
        brick_bytes_allocated: ratio(a.brick_bytes_allocated as f64, b.brick_bytes_allocated as f64),
        passes,
    }
}

/// `1.23x`, or `-` for none.
pub fn ratio_text(r: Option<f64>) -> String {
    r.map_or_else(|| "-".to_owned(), |r| format!("{r:.2}x"))
}

/// Mebibytes.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(pass: &str, ms: f64) -> PassTiming {
        PassTiming { pass: pass.into(), median_ms: ms, min_ms: ms, max_ms: ms, frames: 2 }
    }

    fn frame() -> Vec<PassTiming> {
        vec![
            t("host.shadow", 4.0),
            t("particles.emit", 1.0),
            t("particles.update", 2.0),
            t("fog.bricks.page.fill", 0.5),
            t("fog.brick_splat", 0.25),
            t("fog.froxel_inject", 8.0),
            t("particles.cull", 0.125),
            t("particles.sort.merge", 0.5),
            t("particles.billboards.depth_copy", 0.25),
            t("particles.billboards", 3.0),
            t("particles.batch.reset", 0.0625),
            t("particles.hud", 16.0),
        ]
    }

    #[test]
    fn fog_total_is_its_passes_and_the_carriers_share_of_the_simulation() {
        let total = particle_fog_total(&frame(), 25, Some(100));
        // 0.5 + 0.25 own, (1 + 2) x 25 / 100 shared; the froxel fog is not the particle fog's.
        assert_eq!(total.total_ms, 0.75 + 0.75);
        let names: Vec<&str> = total.parts.iter().map(|p| p.pass.as_str()).collect();
        assert_eq!(names, ["fog.bricks.page.fill", "fog.brick_splat", "particles.emit", "particles.update"]);
        assert_eq!(total.parts[2].share, 0.25);
    }

    #[test]
    fn without_particles_the_fog_shares_nothing() {
        assert_eq!(particle_fog_total(&frame(), 0, None).total_ms, 0.75);
        assert_eq!(particle_fog_total(&frame(), 5, Some(0)).total_ms, 0.75);
    }

    #[test]
    fn billboards_total_is_draw_sort_batch_and_cull() {
        let total = billboards_total(&frame());
        assert_eq!(total.total_ms, 0.125 + 0.5 + 0.25 + 3.0 + 0.0625);
        assert!(total.parts.iter().all(|p| p.pass != "particles.hud"));
    }

    #[test]
    fn ratios_are_to_the_first_point() {
        let first = Figures { frame_gpu_ms: 2.0, particle_fog_ms: 0.0, carriers: 10, ..Figures::default() };
        let this = Figures { frame_gpu_ms: 5.0, particle_fog_ms: 1.0, carriers: 20, ..Figures::default() };
        let r = ratios((&this, &[t("a", 3.0), t("b", 1.0)]), (&first, &[t("a", 1.5)]));
        assert_eq!(r.frame_gpu, Some(2.5));
        assert_eq!(r.particle_fog, None);
        assert_eq!(r.carriers, Some(2.0));
        assert_eq!(r.billboards, Some(1.0));
        assert_eq!(r.passes.get("a"), Some(&Some(2.0)));
        assert!(!r.passes.contains_key("b"));
    }
}
