//! The text `particle-fog bench` prints: per scene and size, every pass off and on (median, min
//! and max); then the sweeps as ratios to their first point; the summary table last.

use super::bench::{BenchReport, BenchRun, SweepReport};
use super::bench_report::{mib, ratio_text};
use crate::vk::profiler::PassTiming;

/// The passes whose ratios the sweep tables show.
const SWEEP_PASSES: [&str; 2] = ["fog.brick_splat", "fog.brick_march"];

/// The whole report as text.
pub fn format_report(r: &BenchReport) -> String {
    let mut out = format!(
        "{} ({}), commit {}, {} timed frames after {} warm-up\n",
        r.device, r.driver, r.commit, r.frames, r.warmup
    );
    for pair in r.runs.chunks(2) {
        if let [off, on] = pair {
            out += &format!(
                "\n{} at {}x{}, RenderVKParticleFog off | on (GPU ms):\n",
                off.scene, off.width, off.height
            );
            out += &pass_pairs(&off.passes, &on.passes);
        }
    }
    for s in &r.sweeps {
        out += &sweep_table(s);
    }
    out += "\n";
    out += &summary(&r.runs);
    out
}

fn cell(t: Option<&PassTiming>) -> String {
    t.map_or_else(|| "-".to_owned(), |t| format!("{:.3} ({:.3}-{:.3})", t.median_ms, t.min_ms, t.max_ms))
}

/// Every pass of either run: median (min-max) off, then on.
fn pass_pairs(off: &[PassTiming], on: &[PassTiming]) -> String {
    let mut names: Vec<&str> = on.iter().map(|t| t.pass.as_str()).collect();
    for t in off {
        if !names.contains(&t.pass.as_str()) {
            names.push(&t.pass);
        }
    }
    let width = names.iter().map(|n| n.len()).max().unwrap_or(4).max(4);
    let mut out =
        format!("{:<width$}  {:>26}  {:>26}\n", "pass", "off median (min-max)", "on median (min-max)");
    for name in names {
        let find = |list: &[PassTiming]| list.iter().find(|t| t.pass == name).cloned();
        out +=
            &format!("{name:<width$}  {:>26}  {:>26}\n", cell(find(off).as_ref()), cell(find(on).as_ref()));
    }
    out
}

/// A sweep: each point's figures and their ratios to the first point.
fn sweep_table(s: &SweepReport) -> String {
    let mut out = format!(
        "\nsweep {} (RenderVKParticleFog on), ms and ratio to the first point:\n{:<10}  {:>16}  {:>16}  {:>16}  {:>16}  {:>16}  {:>16}  {:>14}  {:>14}  {:>14}\n",
        s.sweep,
        "point",
        "frame GPU",
        "particle fog",
        SWEEP_PASSES[0],
        SWEEP_PASSES[1],
        "CPU",
        "systems CPU",
        "carriers",
        "brick MiB used",
        "allocated"
    );
    for p in &s.points {
        let f = super::bench::figures(&p.run);
        let pass = |name: &str| {
            let ms = p.run.passes.iter().find(|t| t.pass == name).map_or(0.0, |t| t.median_ms);
            format!("{ms:.3} {:>6}", ratio_text(p.ratios.passes.get(name).copied().flatten()))
        };
        out += &format!(
            "{:<10}  {:>16}  {:>16}  {:>16}  {:>16}  {:>16}  {:>16}  {:>14}  {:>14}  {:>14}\n",
            p.value,
            format!("{:.3} {:>6}", f.frame_gpu_ms, ratio_text(p.ratios.frame_gpu)),
            format!("{:.3} {:>6}", f.particle_fog_ms, ratio_text(p.ratios.particle_fog)),
            pass(SWEEP_PASSES[0]),
            pass(SWEEP_PASSES[1]),
            format!("{:.3} {:>6}", f.frame_cpu_ms, ratio_text(p.ratios.frame_cpu)),
            format!("{:.3} {:>6}", f.systems_cpu_ms, ratio_text(p.ratios.systems_cpu)),
            format!("{} {:>6}", f.carriers, ratio_text(p.ratios.carriers)),
            format!("{:.1} {:>6}", mib(f.brick_bytes_used), ratio_text(p.ratios.brick_bytes_used)),
            format!("{:.1} {:>6}", mib(f.brick_bytes_allocated), ratio_text(p.ratios.brick_bytes_allocated)),
        );
    }
    out
}

/// One line per run: GPU totals, CPU work, particles, brick memory used / allocated / budget.
fn summary(runs: &[BenchRun]) -> String {
    let width = runs.iter().map(|r| r.label.len()).max().unwrap_or(3).max(3);
    let mut out = format!(
        "{:<width$}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>8}  {:>8}  {:>22}\n",
        "run",
        "frame GPU",
        "part. fog",
        "billboard",
        "CPU",
        "sys. CPU",
        "wall",
        "live",
        "carriers",
        "brick MiB used/alloc/budget"
    );
    for r in runs {
        let bricks = r.fog.as_ref().map_or_else(
            || "-".to_owned(),
            |f| {
                let used = mib(f.brick_bytes_used);
                format!("{used:.1}/{:.1}/{:.1}", mib(f.brick_bytes_allocated), mib(f.brick_bytes_budget))
            },
        );
        out += &format!(
            "{:<width$}  {:>9.3}  {:>9.3}  {:>9.3}  {:>9.3}  {:>9.3}  {:>9.3}  {:>8}  {:>8}  {:>22}\n",
            r.label,
            r.frame_gpu_ms,
            r.particle_fog_ms.total_ms,
            r.billboards_ms.total_ms,
            r.frame_cpu_ms,
            r.systems_cpu_ms,
            r.frame_wall_ms,
            r.particles_live.map_or_else(|| "-".into(), |n| n.to_string()),
            r.fog.as_ref().map_or(0, |f| f.carriers),
            bricks,
        );
    }
    out += "GPU figures: per-pass medians over the timed frames, totals summed from them; CPU: a frame's wall clock less its wait for the GPU; sys. CPU: its particle systems' share (sources, classification, emitter constants, fog sources); brick MiB: in use / allocated by the pool / the budget, in the last frame.\n";
    out
}
