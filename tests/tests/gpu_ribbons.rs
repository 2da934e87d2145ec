//! Ribbons on the GPU (`particles.ribbons` links, ribbon segments in `particles.billboards`)
//! against the CPU reference's links (`particles::sim`, after `llviewerpartsource.cpp`) and against
//! the geometry the viewer builds, on lavapipe under validation.

use std::collections::HashMap;

use glam::{Quat, Vec2, Vec3};
use particles::sim::{SimConfig, Simulation, SourceDesc, SourceId};
use particles::types::pattern;
use particles::{PartFlags, PartSysData};
use pf_tests::frame::{temp_dir, Frame};
use pf_tests::gpu_test;
use render::frame::particles::simulate_frame;
use render::frame::HostRenderer;
use render::gpu_types::GpuParticle;
use render::particles_gpu::{GpuParticles, ParticleBudget, ParticlePoolDesc};
use render::passes::particle_sim::ParticleSimPasses;
use render::scene::parse;
use render::world::World;
use render::Gpu;

const SEED: u64 = 0x0000_0410;
/// A 30 Hz frame, seconds.
const DT: f32 = 1.0 / 30.0;
/// "No parent" in `particles.ribbon_parent`.
const NO_PARENT: u32 = u32::MAX;

/// The reference and the pool fed the same sources and frames (no budget).
struct Twin {
    cpu: Simulation,
    pool: GpuParticles,
    passes: ParticleSimPasses,
}

impl Twin {
    fn new(gpu: &mut Gpu) -> anyhow::Result<Twin> {
        let cpu = Simulation::new(SimConfig { seed: SEED, max_particles: None });
        let pool = GpuParticles::new(gpu, &ParticlePoolDesc { capacity: 2048, max_sources: 8, seed: SEED })?;
        Ok(Twin { cpu, pool, passes: ParticleSimPasses::new(gpu)? })
    }

    fn add(&mut self, sys: PartSysData, position: Vec3) -> anyhow::Result<SourceId> {
        let desc = SourceDesc { sys, position, rotation: Quat::IDENTITY, target_position: None, hud: false };
        let id = self.cpu.add_source(desc);
        assert_eq!(self.pool.add_source(desc)?, id);
        Ok(id)
    }

    fn step(&mut self, gpu: &mut Gpu) -> anyhow::Result<()> {
        let stats = self.cpu.step(DT);
        simulate_frame(gpu, &mut self.pool, &self.passes, DT)?;
        assert_eq!(self.pool.read_live_count(gpu)?, stats.live, "live count in frame {}", stats.frame);
        Ok(())
    }

    /// Every ribbon particle's axis and parent equal the reference's; returns how many particles
    /// had a parent and how many had a zero axis.
    fn compare_links(&self, gpu: &mut Gpu) -> anyhow::Result<(usize, usize)> {
        let slots = self.pool.read_live_indices(gpu)?;
        let parts = self.pool.read_live(gpu)?;
        let parents: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(&self.pool.ribbons.parent)?);
        let by_slot: HashMap<u32, GpuParticle> = slots.iter().copied().zip(parts.iter().copied()).collect();
        let by_key: HashMap<(u32, u32), u32> =
            slots.iter().zip(&parts).map(|(&s, p)| ((p.ids[0], p.ids[1]), s)).collect();
        let (mut linked, mut zero_axis) = (0, 0);
        for c in self.cpu.particles().filter(|p| p.flags.contains(PartFlags::RIBBON)) {
            let key = (c.source.0, c.serial);
            let slot = by_key[&key];
            let g = by_slot[&slot];
            let axis = Vec3::new(g.axis[0], g.axis[1], g.axis[2]);
            assert!((axis - c.axis).length() < 1e-6, "{key:?} axis {axis} vs {}", c.axis);
            assert_eq!(g.ribbon[1], 0, "{key:?}: the link at birth was never resolved");
            let parent = parents[slot as usize];
            let gpu_parent = (parent != NO_PARENT).then(|| by_slot[&parent].ids[1]);
            assert_eq!(gpu_parent, c.parent, "{key:?} parent");
            if gpu_parent.is_some() {
                assert_eq!(by_slot[&parent].ids[0], c.source.0, "{key:?}: a parent from another source");
                linked += 1;
            }
            zero_axis += usize::from(c.axis == Vec3::ZERO);
        }
        Ok((linked, zero_axis))
    }
}

fn ribbon(rate: f32, count: u8, life: f32) -> PartSysData {
    let mut s = PartSysData {
        pattern: pattern::DROP,
        burst_rate: rate,
        burst_part_count: count,
        ..Default::default()
    };
    s.part.max_age = life;
    s.part.flags = PartFlags(PartFlags::RIBBON);
    s.part.start_scale = Vec2::new(0.3, 0.1);
    s
}

#[test]
fn ribbon_links_and_axes_match_the_reference() {
    gpu_test(|gpu| {
        let mut twin = Twin::new(gpu)?;
        // A steady ribbon whose object turns, so every particle keeps its own emission axis.
        let steady = twin.add(ribbon(0.1, 2, 1.0), Vec3::new(5.0, 5.0, 20.0))?;
        // Bursts further apart than a lifetime: every burst starts a new ribbon (zero axis).
        twin.add(ribbon(0.6, 3, 0.4), Vec3::new(10.0, 5.0, 20.0))?;
        // A plain source in between takes no part in any ribbon.
        let mut plain = ribbon(0.05, 4, 0.5);
        plain.part.flags = PartFlags(0);
        twin.add(plain, Vec3::new(15.0, 5.0, 20.0))?;
        let (mut linked, mut zero_axis) = (0, 0);
        for frame in 0..45 {
            let turn = Quat::from_rotation_x(0.05 * frame as f32);
            twin.cpu.set_source_transform(steady, Vec3::new(5.0, 5.0, 20.0), turn);
            twin.pool.set_source_transform(steady, Vec3::new(5.0, 5.0, 20.0), turn);
            twin.step(gpu)?;
            let (l, z) = twin.compare_links(gpu)?;
            linked += l;
            zero_axis += z;
        }
        assert!(linked > 100, "too few linked particles compared ({linked})");
        assert!(zero_axis > 10, "too few ribbon starts compared ({zero_axis})");
        Ok(())
    });
}

#[test]
fn a_particle_dying_mid_ribbon_is_spliced_out_as_the_viewer_relinks() {
    gpu_test(|gpu| {
        let mut twin = Twin::new(gpu)?;
        // Speeds up to 3e7 m/s carry particles beyond the region's 1e6 m at random frames, so
        // particles die in the middle of the ribbon, not only at its old end.
        let mut sys = ribbon(0.05, 3, 2.0);
        sys.pattern = pattern::EXPLODE;
        sys.burst_speed_max = 3.0e7;
        twin.add(sys, Vec3::new(5.0, 5.0, 20.0))?;
        let mut spliced = 0;
        for _ in 0..40 {
            twin.step(gpu)?;
            twin.compare_links(gpu)?;
            spliced +=
                twin.cpu.particles().filter(|p| p.parent.is_some_and(|parent| parent > p.serial + 1)).count();
        }
        assert!(spliced > 10, "no particle was re-linked over a dead neighbour ({spliced})");
        Ok(())
    });
}

/// A ribbon of fullbright white particles from a source moving along +X past a camera looking
/// along +Y; `flags` are the particle flags.
fn moving_source_scene(flags: &str) -> String {
    format!(
        "[camera]\nposition = [1.5, -6.0, 1.0]\ntarget = [1.5, 0.0, 1.0]\nfov_y_deg = 40\n\
         [sun]\nilluminance = 0.0\n[ambient]\nsky = [0.0, 0.0, 0.0]\nground = [0.0, 0.0, 0.0]\n\
         [[particles]]\nname = \"trail\"\nposition = [0.0, 0.0, 1.0]\ntexture = \"white\"\n\
         motion = {{ kind = \"linear\", velocity = [2.0, 0.0, 0.0] }}\n\
         [particles.system]\nburst_rate = 0.25\nburst_part_count = 1\nburst_speed_min = 0.0\n\
         burst_speed_max = 0.0\npart_max_age = 10.0\npart_flags = [\"emissive\"{flags}]\n\
         start_color = [1.0, 1.0, 1.0]\nstart_alpha = 1.0\nstart_scale = [0.2, 0.2]\n"
    )
}

/// Renders `toml` for `frames` frames with every particle kept; returns the frame and the live
/// particles.
fn shoot(gpu: &mut Gpu, toml: &str, frames: u32) -> anyhow::Result<(Frame, Vec<GpuParticle>)> {
    let dir = temp_dir("ribbons");
    image::RgbaImage::from_pixel(4, 4, image::Rgba([255; 4])).save(dir.join("white.png"))?;
    let toml = format!("[textures]\nwhite = \"white.png\"\n{toml}");
    let scene = parse(&toml, &dir.join("test.toml"))?;
    let (width, height) = (160, 90);
    let mut world = World::new(gpu, &scene)?;
    let mut renderer = HostRenderer::new(gpu, width, height)?;
    renderer.budget_override = Some(ParticleBudget::Unlimited);
    renderer.particles_only = true;
    for f in 0..frames {
        renderer.render(gpu, &mut world, &scene, &settings::Settings::default(), f as f32 / 30.0)?;
    }
    let live = match renderer.particles.as_ref() {
        Some(p) => p.pool.read_live(gpu)?,
        None => Vec::new(),
    };
    let hdr = renderer.read_hdr(gpu)?;
    Ok((Frame { scene, width, height, hdr }, live))
}

#[test]
fn a_ribbon_joins_successive_particles_with_a_band_of_its_x_scale_along_the_source_z() {
    gpu_test(|gpu| {
        // 1.5 s at 30 fps: the source has moved 3 m, dropping a particle about every 0.27 s, so
        // neighbours are 0.53 m apart, far more than their 0.2 m width.
        let (ribbons, mut live) = shoot(gpu, &moving_source_scene(", \"ribbon\""), 45)?;
        let (plain, _) = shoot(gpu, &moving_source_scene(""), 45)?;
        live.sort_by_key(|p| p.ids[1]);
        assert!(live.len() >= 4, "{} particles", live.len());
        let pos = |p: &GpuParticle| Vec3::new(p.pos_age[0], p.pos_age[1], p.pos_age[2]);
        let mut checked = 0;
        for w in live.windows(2) {
            let (a, b) = (pos(&w[0]), pos(&w[1]));
            assert!((b - a).length() > 0.4, "neighbours only {} m apart", (b - a).length());
            let mid = 0.5 * (a + b);
            if ribbons.view().position.distance(mid) > 10.0 || mid.x < 0.3 || mid.x > 2.7 {
                continue;
            }
            // Between two particles: the band (axis +Z, 0.2 m high) covers the midpoint; plain
            // billboards leave it dark. 0.15 m above the path is outside the band.
            assert!(ribbons.brightness_at(mid) > 0.5, "ribbon gap at {mid}");
            assert!(plain.brightness_at(mid) < 0.01, "billboards already cover {mid}");
            assert!(ribbons.brightness_at(mid + Vec3::new(0.0, 0.0, 0.15)) < 0.01, "band too high at {mid}");
            assert!(ribbons.brightness_at(mid + Vec3::new(0.0, 0.0, 0.06)) > 0.5, "band too thin at {mid}");
            checked += 1;
        }
        assert!(checked >= 3, "only {checked} gaps on screen");
        Ok(())
    });
}
