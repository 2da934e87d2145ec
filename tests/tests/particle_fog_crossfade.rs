//! The cross-fade between a converted system's particle fog and its billboards at
//! `RenderVKParticleFogRange` (lavapipe, validation on, 160x90): with the camera still and the
//! particles frozen, the range is moved so that the system's distance crosses the range fade, and
//! the system's mean radiance on screen is measured each frame. Frames within the fade stay
//! between the two ends (the fog with its own light, the billboards), and from where the range fade
//! begins (the fog's light eased to what its carriers' billboards show, `billboard_match`,
//! `fog.carrier_light`) to the range every frame is within 15 % of the billboards, while two bands
//! inside the range the fog keeps its own light: crossing the range does not pop, and the converted
//! look inside it is unchanged. The fade depends on the system's distance over the range alone, so
//! moving the range stands for a camera path crossing it, without the system changing size on
//! screen.

use std::path::{Path, PathBuf};

use pf_tests::gpu_test;
use render::frame::HostRenderer;
use render::particle_fog::systems::{range_fade, RANGE_FADE_FRACTION};
use render::scene::Scene;
use render::world::World;
use render::Gpu;
use settings::Settings;

const SIZE: (u32, u32) = (160, 90);
const FPS: f32 = 30.0;
/// Simulated frames before the sweep (5 s: the plume in flow, the fog's classification settled).
const WARMUP: u32 = 150;
/// A pixel belongs to the system where its billboards change the empty frame by more than this
/// fraction of their largest change.
const REGION_FRACTION: f32 = 0.05;
/// Frames within the fade may leave the bracket of its two ends by this fraction of them (the
/// march's jitter and the splat's stochastic rounding differ from frame to frame).
const BRACKET_TOLERANCE: f64 = 0.05;
/// From where the range fade begins to the range, each frame's mean radiance differs from the
/// billboards' by at most this fraction of it (README.md, "The cross-fade's brightness").
const FADE_CHANGE_MAX: f64 = 0.15;
/// Where the easing begins (two bands inside the range) the fog is as far inside the range: the
/// frame may differ from the fog's at the default range by this fraction (frame-to-frame noise).
const UNEASED_TOLERANCE: f64 = 0.02;
/// Points of the sweep: the system's distance over the range, from where the easing begins
/// (`1 - 2 x RANGE_FADE_FRACTION`) to the range.
const SWEEP_POINTS: usize = 9;

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes").join(format!("{name}.toml"))
}

/// Scene `name` with `system` its only particle system, a still camera (the scene's first) pulled
/// back from its target by `pull_back`.
fn one_system(name: &str, system: &str, pull_back: f32) -> anyhow::Result<Scene> {
    let mut scene = render::scene::load(&scene_path(name))?;
    scene.particles.retain(|p| p.name == system);
    anyhow::ensure!(scene.particles.len() == 1, "{name} has one system named {system}");
    scene.camera_path.clear();
    let c = &mut scene.camera;
    c.position = c.target + (c.position - c.target) * pull_back;
    Ok(scene)
}

fn settings_for(scene: &Scene) -> anyhow::Result<Settings> {
    let mut s = Settings::default();
    let all: Vec<String> = scene.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    settings::cli::apply_overrides(&mut s, &all)?;
    anyhow::ensure!(s.particle_fog, "the scene turns the particle fog on");
    Ok(s)
}

/// Mean of the RGB channels of each pixel.
fn grey(hdr: &[[f32; 4]]) -> Vec<f32> {
    hdr.iter().map(|p| (p[0] + p[1] + p[2]) / 3.0).collect()
}

/// What one sweep measured: the system's mean radiance on screen.
struct Sweep {
    /// The system's distance from the camera, m.
    distance_m: f32,
    /// As fog with its own light (the default range, far beyond the system).
    fog: f64,
    /// As billboards (the system at the range).
    billboards: f64,
    /// Where the range fade begins (distance = range x (1 - RANGE_FADE_FRACTION)).
    matched: f64,
    /// (distance / range, the system's weight, mean radiance) over the easing and the fade.
    fade: Vec<(f32, f32, f64)>,
}

/// Renders the frozen frame at `range_m` (twice: the second frame shows what the first set up)
/// and returns its grey levels and the system's weight.
fn frame_at(
    gpu: &mut Gpu,
    (r, world): (&mut HostRenderer, &mut World),
    scene: &Scene,
    settings: &Settings,
    range_m: f32,
) -> anyhow::Result<(Vec<f32>, f32)> {
    let s = Settings { particle_fog_range_m: range_m, ..settings.clone() };
    let t = WARMUP as f32 / FPS;
    for _ in 0..2 {
        r.render(gpu, world, scene, &s, t)?;
    }
    let weight = r.particles.as_ref().map_or(0.0, |p| p.systems.weight(0));
    Ok((grey(&r.read_hdr(gpu)?), weight))
}

fn sweep(gpu: &mut Gpu, name: &str, system: &str, pull_back: f32) -> anyhow::Result<Sweep> {
    let scene = one_system(name, system, pull_back)?;
    let settings = settings_for(&scene)?;
    let t = WARMUP as f32 / FPS;
    let distance_m = scene.camera.position.distance(scene.particles[0].position_at(t));
    let empty = {
        let bare = Scene { particles: Vec::new(), ..scene.clone() };
        let mut world = World::new(gpu, &bare)?;
        let mut r = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
        r.render(gpu, &mut world, &bare, &settings, t)?;
        grey(&r.read_hdr(gpu)?)
    };
    let mut world = World::new(gpu, &scene)?;
    let mut r = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
    for f in 0..WARMUP {
        r.simulate(gpu, &scene, &settings, f as f32 / FPS)?;
    }
    // The particles stand still from here: every frame shows the same system.
    r.frame_dt_s = 0.0;
    let mut at = |range_m: f32| frame_at(gpu, (&mut r, &mut world), &scene, &settings, range_m);
    let (fog, w_fog) = at(settings.particle_fog_range_m)?;
    anyhow::ensure!(w_fog == 1.0, "{name}: fog at the default range ({w_fog})");
    let f = RANGE_FADE_FRACTION;
    let mut frames = Vec::new();
    for i in 0..SWEEP_POINTS {
        let x = (1.0 - 2.0 * f) + 2.0 * f * i as f32 / (SWEEP_POINTS - 1) as f32;
        let (g, w) = at(distance_m / x)?;
        let want = range_fade(distance_m, distance_m / x);
        anyhow::ensure!((w - want).abs() < 1e-4, "{name} at {x}: weight {w}, range fade {want}");
        frames.push((x, w, g));
    }
    let (billboards, w_bb) = at(distance_m)?;
    anyhow::ensure!(w_bb == 0.0, "{name}: billboards at the range ({w_bb})");
    // The system's region on screen: where its billboards change the empty frame (the fog covers
    // the same place within the coverage test's 10 %; a region taken from the fog would move
    // with the fog's light, which is under test).
    let change: Vec<f32> = (0..empty.len()).map(|p| (billboards[p] - empty[p]).abs()).collect();
    let peak = change.iter().copied().fold(0.0, f32::max);
    anyhow::ensure!(peak > 0.0, "{name}: the system shows");
    let region: Vec<usize> = (0..change.len()).filter(|&p| change[p] > REGION_FRACTION * peak).collect();
    let mean = |g: &[f32]| region.iter().map(|&p| f64::from(g[p])).sum::<f64>() / region.len() as f64;
    eprintln!("{name}/{system}: {} m away, {} pixels of {}", distance_m, region.len(), empty.len());
    let matched_x = 1.0 - f;
    let matched = frames
        .iter()
        .find(|(x, _, _)| (x - matched_x).abs() < 1e-4)
        .map(|(_, _, g)| mean(g))
        .ok_or_else(|| anyhow::anyhow!("no sweep point where the range fade begins"))?;
    Ok(Sweep {
        distance_m,
        fog: mean(&fog),
        billboards: mean(&billboards),
        matched,
        fade: frames.iter().map(|(x, w, g)| (*x, *w, mean(g))).collect(),
    })
}

fn percent(a: f64, b: f64) -> f64 {
    100.0 * (a - b) / b
}

#[test]
fn crossing_the_range_stays_between_fog_and_billboards_and_the_fog_is_lit_as_billboards_at_the_fade() {
    gpu_test(|gpu| {
        // The campfire's camera is pulled back so that the smoke is beyond the smallest range
        // (8 m); the fog machine's is already.
        for (name, system, pull_back) in [("campfire", "smoke", 1.6), ("fog_machine", "fog machine", 1.0)] {
            let s = sweep(gpu, name, system, pull_back)?;
            eprintln!(
                "{name}: fog {:.5}, billboards {:.5}: pop {:+.1} % unmatched, {:+.1} % matched",
                s.fog,
                s.billboards,
                percent(s.fog, s.billboards),
                percent(s.matched, s.billboards)
            );
            for (x, w, l) in &s.fade {
                eprintln!(
                    "  distance / range {x:.4}: weight {w:.3}, {l:.5} ({:+.1} %)",
                    percent(*l, s.billboards)
                );
            }
            let (lo, hi) = (s.fog.min(s.billboards), s.fog.max(s.billboards));
            for (x, w, l) in &s.fade {
                assert!(
                    *l >= lo * (1.0 - BRACKET_TOLERANCE) && *l <= hi * (1.0 + BRACKET_TOLERANCE),
                    "{name} at distance / range {x} (weight {w}): {l} outside [{lo}, {hi}]"
                );
            }
            let uneased = s.fade[0].2;
            assert!(
                (uneased - s.fog).abs() <= UNEASED_TOLERANCE * s.fog,
                "{name}: where the easing begins the fog keeps its own light ({uneased} vs {})",
                s.fog
            );
            assert!(
                (s.fog - s.billboards).abs() > 0.3 * s.billboards,
                "{name}: the fog's own light differs from the billboards' enough to test ({} vs {})",
                s.fog,
                s.billboards
            );
            let fade_begins = 1.0 - RANGE_FADE_FRACTION - 1e-4;
            for (x, w, l) in s.fade.iter().filter(|(x, _, _)| *x >= fade_begins) {
                assert!(
                    (l - s.billboards).abs() <= FADE_CHANGE_MAX * s.billboards,
                    "{name} at {} m, distance / range {x} (weight {w}): {:+.1} % from the billboards \
                     (the fog's own light {:+.1} %)",
                    s.distance_m,
                    percent(*l, s.billboards),
                    percent(s.fog, s.billboards)
                );
            }
        }
        Ok(())
    });
}
