//! The particle fog's sliders through the live settings handle (lavapipe, validation on): Strength,
//! Density, Billow, BillowScale and BillowSpeed change the very next frame without making any GPU
//! resource again; VoxelSize and BrickBudgetMB remake the brick pool (`fog.bricks.*`) and nothing
//! else; Range remakes nothing.

use std::path::{Path, PathBuf};

use pf_tests::gpu_test;
use render::frame::HostRenderer;
use render::scene::Scene;
use render::world::World;
use settings::{Settings, SettingsHandle};

const SIZE: (u32, u32) = (96, 54);
const FPS: f32 = 30.0;
const WARMUP: u32 = 45;

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes").join(format!("{name}.toml"))
}

fn scene_settings(scene: &Scene) -> anyhow::Result<Settings> {
    let mut s = Settings::default();
    let all: Vec<String> = scene.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    settings::cli::apply_overrides(&mut s, &all)?;
    Ok(s)
}

/// Allocations alive now, with their ids, whose names start with `prefix`.
fn allocations(gpu: &render::Gpu, prefix: &str) -> Vec<(u64, String)> {
    gpu.live_allocation_ids().into_iter().filter(|(_, n)| n.starts_with(prefix)).collect()
}

/// A renderer on the fog machine after the warm-up and one frame, reading `handle` per frame.
struct Live {
    scene: Scene,
    world: World,
    renderer: HostRenderer,
    handle: SettingsHandle,
    frame: u32,
}

impl Live {
    fn new(gpu: &mut render::Gpu) -> anyhow::Result<Live> {
        let scene = render::scene::load(&scene_path("fog_machine"))?;
        let handle = SettingsHandle::new(scene_settings(&scene)?);
        let world = World::new(gpu, &scene)?;
        let mut renderer = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
        for f in 0..WARMUP {
            renderer.simulate(gpu, &scene, &handle.snapshot(), f as f32 / FPS)?;
        }
        let mut live = Live { scene, world, renderer, handle, frame: WARMUP };
        live.frame(gpu)?;
        Ok(live)
    }

    /// Renders the next frame with the handle's current settings; its HDR pixels.
    fn frame(&mut self, gpu: &mut render::Gpu) -> anyhow::Result<Vec<[f32; 4]>> {
        let settings = self.handle.snapshot();
        let t = self.frame as f32 / FPS;
        self.frame += 1;
        self.renderer.render(gpu, &mut self.world, &self.scene, &settings, t)?;
        Ok(self.renderer.read_hdr(gpu)?)
    }
}

/// Pixels whose RGB differ between two frames (the frames are deterministic: without the
/// change they are equal bit for bit).
fn changed_pixels(a: &[[f32; 4]], b: &[[f32; 4]]) -> usize {
    a.iter().zip(b).filter(|(p, q)| p[..3] != q[..3]).count()
}

#[test]
fn look_sliders_take_effect_on_the_next_frame_without_new_resources() {
    gpu_test(|gpu| {
        let sliders = [
            ("RenderVKParticleFogStrength", "0.3"),
            ("RenderVKParticleFogDensity", "3"),
            ("RenderVKParticleFogBillow", "1"),
            ("RenderVKParticleFogBillowScale", "0.5"),
            ("RenderVKParticleFogBillowSpeed", "5"),
        ];
        for (name, value) in sliders {
            // Two renderers in step: one keeps the scene's settings, the other has the slider
            // moved; the same frame differs only by it (the frames are deterministic).
            let mut fixed = Live::new(gpu)?;
            let mut moved = Live::new(gpu)?;
            let before = allocations(gpu, "");
            moved.handle.set_text(name, value)?;
            let want = fixed.frame(gpu)?;
            let got = moved.frame(gpu)?;
            assert_eq!(allocations(gpu, ""), before, "{name}: resources made or dropped");
            let changed = changed_pixels(&want, &got);
            assert!(changed > 20, "{name}={value}: the next frame did not change ({changed} pixels)");
        }
        Ok(())
    });
}

#[test]
fn voxel_size_and_budget_remake_only_the_brick_pool_and_range_remakes_nothing() {
    gpu_test(|gpu| {
        let changes = [
            ("RenderVKParticleFogVoxelSize", "0.1", true),
            ("RenderVKParticleFogBrickBudgetMB", "64", true),
            ("RenderVKParticleFogRange", "16", false),
        ];
        for (name, value, remakes_bricks) in changes {
            let mut live = Live::new(gpu)?;
            let (bricks, others) = (allocations(gpu, "fog.bricks."), non_brick(gpu));
            assert!(!bricks.is_empty(), "the fog machine converts");
            live.handle.set_text(name, value)?;
            live.frame(gpu)?;
            assert_eq!(non_brick(gpu), others, "{name}: only the bricks may be remade");
            let after = allocations(gpu, "fog.bricks.");
            if remakes_bricks {
                let kept: Vec<_> = after.iter().filter(|a| bricks.contains(a)).collect();
                assert!(kept.is_empty() && !after.is_empty(), "{name}: the pool is remade ({kept:?} kept)");
            } else {
                assert_eq!(after, bricks, "{name}: the pool is kept");
            }
        }
        Ok(())
    });
}

/// Every allocation but the bricks and the per-frame staging buffers of read-backs.
fn non_brick(gpu: &render::Gpu) -> Vec<(u64, String)> {
    allocations(gpu, "")
        .into_iter()
        .filter(|(_, n)| !n.starts_with("fog.bricks.") && !n.ends_with(".readback"))
        .collect()
}
