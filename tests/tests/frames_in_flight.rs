//! The host renderer with frames in flight (lavapipe, validation on): the CPU prepares frame k+1
//! while the GPU runs frame k, each frame's constants travel in its own command buffer and each
//! readback comes from its own frame slot, so what is drawn is what the renderer draws when every
//! frame waits for the GPU, and the particle fog's counts are those of a completed frame.

use std::path::{Path, PathBuf};

use render::frame::HostRenderer;
use render::particles_gpu::ParticleBudget;
use render::scene::Scene;
use render::world::World;
use render::{Gpu, GpuDesc};
use settings::Settings;

const SIZE: (u32, u32) = (96, 54);
const FPS: f32 = 30.0;

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes").join(format!("{name}.toml"))
}

fn settings_for(scene: &Scene) -> anyhow::Result<Settings> {
    let mut s = Settings::default();
    let all: Vec<String> = scene.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    settings::cli::apply_overrides(&mut s, &all)?;
    Ok(s)
}

/// The last of `frames` frames (after `warmup` simulated ones) as RGBA8, and the renderer.
fn render(
    gpu: &mut Gpu,
    scene: &Scene,
    settings: &Settings,
    (warmup, frames): (u32, u32),
) -> anyhow::Result<(Vec<u8>, HostRenderer)> {
    let mut world = World::new(gpu, scene)?;
    let mut r = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
    // Every candidate drawn: the viewer's burst share follows last frame's live count, which a
    // frame in flight sees later.
    r.budget_override = Some(ParticleBudget::Unlimited);
    for f in 0..warmup {
        r.simulate(gpu, scene, settings, f as f32 / FPS)?;
    }
    for f in 0..frames {
        r.render(gpu, &mut world, scene, settings, (warmup + f) as f32 / FPS)?;
    }
    let pixels = r.read_ldr(gpu)?;
    Ok((pixels, r))
}

fn gpu_with(frames_in_flight: u32) -> Gpu {
    let desc = GpuDesc { frames_in_flight, ..pf_tests::validated_desc() };
    Gpu::new(&desc).expect("validated device")
}

#[test]
fn frames_in_flight_draw_what_waiting_frames_draw() {
    let scene = render::scene::load(&scene_path("fog_machine")).expect("scene");
    let settings = settings_for(&scene).expect("settings");
    let mut waiting = gpu_with(0);
    let (expected, _) = render(&mut waiting, &scene, &settings, (30, 6)).expect("waited frames");
    assert!(waiting.canary().drain().is_empty());
    drop(waiting);
    let mut pipelined = gpu_with(2);
    let (got, r) = render(&mut pipelined, &scene, &settings, (30, 6)).expect("frames in flight");
    let stats = r.fog_stats(&pipelined).expect("particle fog on");
    assert!(stats.carriers > 0 && stats.bricks_used > 0, "counts of a completed frame: {stats:?}");
    let errors = pipelined.canary().drain();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
    let differing = expected.iter().zip(&got).filter(|(a, b)| a.abs_diff(**b) > 1).count();
    assert_eq!(differing, 0, "{differing} of {} channels differ", expected.len());
}
