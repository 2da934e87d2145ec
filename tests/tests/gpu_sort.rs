//! The GPU sorts against a CPU sort of the same keys, on lavapipe under validation, at every
//! boundary of the merge sort (`render::passes::particle_sort::merge`): no element, one, two, one
//! thread's elements, one tile (the most one workgroup sorts) -1/+0/+1, two tiles -1/+0/+1 (where
//! a second merge level starts), counts that are no power of two across several levels, and
//! 100,000 in a pool sized for them; and a small count in a large pool, whose unneeded merge
//! levels dispatch nothing. Depths repeat, so ties are checked too.
//!
//! `particles.sort`: the visible list far to near (descending depth along the camera's forward
//! axis; HUD particles by HUD depth), equal depths in ascending pool slot. `particles.ribbons`'
//! sort: the alive list's keys ascending by (source, serial), particles of other sources last,
//! equal keys in alive-list order (the sort is stable).

use glam::{Vec3, Vec4};
use pf_tests::gpu_test;
use render::frame::particles::{record_cull, visible};
use render::gpu_types::GpuParticle;
use render::particles_gpu::GpuParticles;
use render::passes::particle_ribbons::{RibbonBuffers, RibbonPass};
use render::passes::particle_sim::cull::ParticleCullPass;
use render::passes::particle_sort::ParticleSortPass;
use render::Gpu;

/// Elements one workgroup of `particles.sort` sorts (512 threads x 8).
const TILE: usize = 4096;
/// Elements one workgroup of the ribbons' sort sorts (256 threads x 8).
const RIBBON_TILE: usize = 2048;
/// Particle flags (`particles::PartFlags` on the GPU): ribbon, HUD.
const PF_RIBBON: u32 = 0x400;
const PF_HUD: u32 = 0x4000_0000;
/// The ribbon sort's key of particles of other sources.
const NONE: u32 = u32::MAX;
/// The culled-away particles lie at this x, behind the cull's plane x >= 0.
const CULLED_X: f32 = -100.0;

/// A hash of `i` (PCG), for scattering keys.
fn hash(i: u32) -> u32 {
    fog::kernel::pcg_hash(i.wrapping_mul(0x9E37_79B9).wrapping_add(17))
}

/// Particle `i` of a sort test: world depth (its y; the camera sits at the origin looking along
/// +y) from 61 whole metres in -30..=30, or quarter metres for every third one, so depths repeat;
/// every seventh of those not culled a HUD particle at HUD depth x + 1 with x in 0..4 m. Culled
/// ones lie at x = -100.
fn sort_particle(i: u32, culled: bool) -> GpuParticle {
    let h = hash(i);
    let hud = i.is_multiple_of(7) && !culled;
    let y = if i.is_multiple_of(3) { (h % 1000) as f32 * 0.25 - 125.0 } else { (h % 61) as f32 - 30.0 };
    let x = if culled && !hud { CULLED_X } else { (h >> 16 & 7) as f32 * 0.5 };
    GpuParticle {
        pos_age: [x, y, 0.0, 0.0],
        scale: [0.1, 0.1, 0.0, 0.0],
        ids: [0, i, if hud { PF_HUD } else { 0 }, 0],
        ..GpuParticle::default()
    }
}

/// The depth the sort orders by, computed on the CPU.
fn depth(p: &GpuParticle) -> f32 {
    if p.ids[2] & PF_HUD != 0 {
        p.pos_age[0] + 1.0
    } else {
        p.pos_age[1]
    }
}

/// `parts` in a pool of their own (slot i = parts[i], the alive list in a scrambled order, so
/// that the cull does not list equal depths in slot order), culled by the plane x >= 0 (HUD
/// particles always pass), then sorted: the visible list as the GPU leaves it.
fn gpu_sorted(gpu: &mut Gpu, parts: &[GpuParticle]) -> anyhow::Result<Vec<u32>> {
    let pool = GpuParticles::with_particles(gpu, 1, parts)?;
    let mut alive: Vec<u32> = (0..parts.len() as u32).collect();
    alive.sort_by_key(|&i| hash(i ^ 0x5A5A));
    gpu.upload(&pool.alive[pool.current_list()], bytemuck::cast_slice(&alive))?;
    let cull = ParticleCullPass::new(gpu)?;
    let sort = ParticleSortPass::new(gpu, pool.desc().capacity)?;
    let always = Vec4::new(0.0, 0.0, 0.0, 1.0);
    let planes = [Vec4::X, always, always, always, always, always];
    gpu.submit(|rec| {
        record_cull(rec, &pool, &cull, &planes);
        sort.record(rec, &visible(&pool), Vec3::ZERO, Vec3::Y);
        Ok(())
    })?;
    Ok(pool.read_visible(gpu)?)
}

/// The visible slots of `parts` far to near, equal depths by ascending slot.
fn cpu_sorted(parts: &[GpuParticle]) -> Vec<u32> {
    let mut slots: Vec<u32> = (0..parts.len() as u32)
        .filter(|&i| {
            let p = &parts[i as usize];
            p.ids[2] & PF_HUD != 0 || p.pos_age[0] >= 0.0
        })
        .collect();
    slots.sort_by(|&a, &b| {
        let (da, db) = (depth(&parts[a as usize]), depth(&parts[b as usize]));
        db.total_cmp(&da).then(a.cmp(&b))
    });
    slots
}

fn check_particles(gpu: &mut Gpu, parts: &[GpuParticle], what: &str) -> anyhow::Result<()> {
    let want = cpu_sorted(parts);
    let got = gpu_sorted(gpu, parts)?;
    assert_eq!(got.len(), want.len(), "{what}: visible count");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        let d = |s: u32| depth(&parts[s as usize]);
        panic!(
            "{what}: position {i} holds slot {} (depth {}), the CPU sort slot {} (depth {})",
            got[i],
            d(got[i]),
            want[i],
            d(want[i])
        );
    }
    Ok(())
}

#[test]
fn the_particle_sort_orders_far_to_near_like_the_cpu_at_every_boundary() {
    let counts = [
        0,
        1,
        2,
        8,
        9,
        1000,
        TILE - 1,
        TILE,
        TILE + 1,
        2 * TILE - 1,
        2 * TILE,
        2 * TILE + 1,
        3 * TILE + 777,
        100_000,
    ];
    gpu_test(|gpu| {
        for n in counts {
            let parts: Vec<GpuParticle> = (0..n as u32).map(|i| sort_particle(i, false)).collect();
            check_particles(gpu, &parts, &format!("{n} particles"))?;
        }
        Ok(())
    });
}

#[test]
fn a_few_visible_particles_of_a_large_pool_sort_like_the_cpu() {
    // 20,000 slots (5 tiles: 3 merge levels recorded), of which 690 pass the cull, scattered
    // through the pool: the merge levels the count does not need dispatch nothing. Then 10,000
    // visible (3 tiles, 2 levels).
    gpu_test(|gpu| {
        for (keep_every, what) in [(29, "690 of 20,000"), (2, "10,000 of 20,000")] {
            let parts: Vec<GpuParticle> =
                (0..20_000u32).map(|i| sort_particle(i, i % keep_every != 0)).collect();
            check_particles(gpu, &parts, what)?;
        }
        Ok(())
    });
}

/// The ribbon sort's input: alive-list entry i is slot i; every fifth particle belongs to no
/// ribbon source; the others' (source, serial) come from a small range, so keys repeat.
fn ribbon_particle(i: u32, n: u32) -> GpuParticle {
    let h = hash(i);
    let ribbon = !i.is_multiple_of(5);
    GpuParticle {
        ids: [h % 7, (h >> 8) % (n / 2 + 1), if ribbon { PF_RIBBON } else { 0 }, 0],
        ..GpuParticle::default()
    }
}

#[test]
fn the_ribbon_sort_orders_keys_like_a_stable_cpu_sort_at_every_boundary() {
    let counts = [
        0,
        1,
        2,
        RIBBON_TILE - 1,
        RIBBON_TILE,
        RIBBON_TILE + 1,
        2 * RIBBON_TILE - 1,
        2 * RIBBON_TILE,
        2 * RIBBON_TILE + 1,
        3 * RIBBON_TILE + 333,
        100_000,
    ];
    gpu_test(|gpu| {
        let pass = RibbonPass::new(gpu)?;
        for n in counts {
            let parts: Vec<GpuParticle> = (0..n as u32).map(|i| ribbon_particle(i, n as u32)).collect();
            let pool = GpuParticles::with_particles(gpu, 8, &parts)?;
            let list = pool.current_list();
            let bufs = RibbonBuffers {
                pool: &pool.pool,
                alive: &pool.alive[list],
                counters: &pool.counters,
                links: &pool.ribbons,
                list: list as u32,
            };
            gpu.submit(|rec| {
                pass.record_sort(rec, &bufs);
                Ok(())
            })?;
            let bytes = gpu.read_buffer(&pool.ribbons.keys)?;
            let got: Vec<[u32; 4]> = bytemuck::pod_collect_to_vec(&bytes[..n * 16]);
            let mut want: Vec<[u32; 4]> = (0..n as u32)
                .map(|slot| {
                    let ids = parts[slot as usize].ids;
                    if ids[2] & PF_RIBBON != 0 {
                        [ids[0], ids[1], slot, 0]
                    } else {
                        [NONE; 4]
                    }
                })
                .collect();
            // `sort_by_key` is stable: equal (source, serial) keep their alive-list order.
            want.sort_by_key(|k| (k[0], k[1]));
            if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
                panic!("{n} keys: position {i} holds {:?}, the CPU sort {:?}", got[i], want[i]);
            }
        }
        Ok(())
    });
}
