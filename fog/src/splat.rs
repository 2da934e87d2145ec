//! The CPU twin of `fog.brick_mark` + `fog.brick_splat`: density carriers into sparse bricks, with
//! the same levels ([`crate::bricks`]), kernels, fixed point and rounding ([`crate::kernel`]) as
//! the GPU, so tests can compare the atlas the GPU builds with this one.
//!
//! Per carrier: refuse it when poisoned (NaN or infinite fields, negative size or alpha, a size
//! above [`MAX_CARRIER_SIZE_M`], more than [`MAX_CARRIER_UNITS`]) or too large for the top level;
//! otherwise pick its level, mark every brick its support touches *plus one cell* (the trilinear
//! footprint of the cells it writes, so the filtered field keeps all the mass), and add its cells:
//! the carrier's integer total is split over its z slabs (the floor of each slab's share, the rest
//! to the peak slab; the GPU gives each slab a thread), then each slab's over its cells the same
//! way (the rest to the slab's peak cell), so the cells sum to the total exactly.

use std::collections::HashMap;

use glam::{IVec3, Vec3};

use crate::bricks::{self, BrickLayout, BRICK_CELLS, LEVELS};
use crate::kernel::{self, MAX_CARRIER_SIZE_M, MAX_CARRIER_UNITS, TINT_SCALE};

/// One density carrier: a converted particle as the splat sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Carrier {
    /// Its pool slot: seeds the stochastic rounding of its total.
    pub key: u32,
    /// The system (source id) it belongs to.
    pub system: u32,
    /// Position, m.
    pub position: Vec3,
    /// Current size (x, y), m.
    pub size_m: [f32; 2],
    /// Age, s.
    pub age_s: f32,
    /// Current particle alpha, 0..1.
    pub alpha: f32,
    /// The texture's mean alpha, 0..1.
    pub tex_mean_alpha: f32,
    /// The system's blend weight `w`, 0..1.
    pub weight: f32,
    /// `RenderVKParticleFogDensity * RenderVKParticleFogStrength`.
    pub density_scale: f32,
    /// Particle colour x texture mean colour (scattering albedo).
    pub tint: [f32; 3],
    /// Fullbright (EMISSIVE) particle: its tint is also emitted.
    pub emissive: bool,
    /// How far its system's light is eased toward the billboards' lighting model, 0..1 (0 the
    /// fog's own light; near `RenderVKParticleFogRange`, where the system cross-fades to
    /// billboards, up to 1).
    pub billboard_match: f32,
}

impl Carrier {
    /// Its mass (optical cross-section), m² ([`crate::kernel`] docs).
    pub fn mass_m2(&self) -> f32 {
        self.size_m[0] * self.size_m[1] * self.alpha * self.tex_mean_alpha * self.weight * self.density_scale
    }

    /// Its kernel's standard deviation, m.
    pub fn sigma_m(&self) -> f32 {
        kernel::kernel_sigma_m(self.size_m, self.age_s, self.tex_mean_alpha)
    }

    /// True when a field is NaN, infinite, negative where it cannot be, or absurdly large.
    pub fn is_poisoned(&self) -> bool {
        let fields = [
            self.position.x,
            self.position.y,
            self.position.z,
            self.size_m[0],
            self.size_m[1],
            self.age_s,
            self.alpha,
            self.tex_mean_alpha,
            self.weight,
            self.density_scale,
        ];
        fields.iter().any(|v| !v.is_finite())
            || self.size_m.iter().any(|&s| !(0.0..=MAX_CARRIER_SIZE_M).contains(&s))
            || self.alpha < 0.0
            || self.age_s < 0.0
    }
}

/// Words of a brick's tint accumulator: tint r, g, b, emissive, their weight, and the billboard
/// match.
pub const TINT_WORDS: usize = 6;

/// One brick's accumulators, as the GPU's `accum_ext` and `accum_tint` hold them.
#[derive(Clone, Debug, PartialEq)]
pub struct BrickAccum {
    /// Each cell's extinction, fixed point ([`kernel::EXTINCTION_UNITS_PER_INV_M`]).
    pub extinction: Vec<u32>,
    /// The brick's tint: per carrier, its units in the brick x [`TINT_SCALE`] x each tint channel,
    /// then the same for the emissive ones, then the weight (units x [`TINT_SCALE`]), then the
    /// weight x each carrier's [`Carrier::billboard_match`]. Tint is kept per brick, not per cell:
    /// per-cell tint cost the GPU splat three atomics a cell.
    pub tint: [u32; TINT_WORDS],
}

impl BrickAccum {
    fn new() -> BrickAccum {
        BrickAccum { extinction: vec![0u32; BRICK_CELLS], tint: [0; TINT_WORDS] }
    }

    /// The brick's mean tint and emissive share, or `None` when it holds (almost) nothing.
    pub fn mean_tint(&self) -> Option<[f32; 4]> {
        let weight = self.tint[4] as f32;
        (weight >= 1.0).then(|| std::array::from_fn(|i| (self.tint[i] as f32 / weight).clamp(0.0, 1.0)))
    }

    /// The brick's mass-weighted mean [`Carrier::billboard_match`], or `None` when it holds
    /// (almost) nothing (what `fog.brick_light` eases the brick's light by).
    pub fn billboard_match(&self) -> Option<f32> {
        let weight = self.tint[4] as f32;
        (weight >= 1.0).then(|| (self.tint[5] as f32 / weight).clamp(0.0, 1.0))
    }
}

/// What the splat counted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SplatCounts {
    /// Carriers with a positive mass that were splatted.
    pub carriers: u32,
    /// Carriers refused as poisoned or absurd.
    pub poisoned: u32,
    /// Carriers refused as too large for the top level.
    pub too_large: u32,
    /// Integer extinction units splatted, per level.
    pub units: [u64; LEVELS],
}

/// Sparse bricks keyed by (level, world brick coordinate).
pub type Bricks = HashMap<(usize, IVec3), BrickAccum>;

/// The twin's result: every brick the carriers marked (some hold only zeros: the trilinear
/// footprint) and the counts.
#[derive(Clone, Debug, Default)]
pub struct Splat {
    /// The bricks.
    pub bricks: Bricks,
    /// The counts.
    pub counts: SplatCounts,
}

impl Splat {
    /// The mass the splat holds, m²: the units of each level times its voxel volume.
    pub fn mass_m2(&self, voxel_size_m: f32) -> f64 {
        (0..LEVELS)
            .map(|l| {
                let v = f64::from(bricks::level_voxel_m(voxel_size_m, l));
                self.counts.units[l] as f64 * v * v * v / f64::from(kernel::EXTINCTION_UNITS_PER_INV_M)
            })
            .sum()
    }
}

/// Splats `carriers` into bricks laid out by `layout`, seeding the rounding with `frame`.
pub fn splat(carriers: &[Carrier], layout: &BrickLayout, camera: Vec3, frame: u32) -> Splat {
    let mut out = Splat::default();
    for c in carriers {
        splat_one(c, layout, camera, frame, &mut out);
    }
    out
}

/// The cells a kernel writes on each axis and their weights.
struct Footprint {
    level: usize,
    lo: IVec3,
    hi: IVec3,
    weights: [[f32; 10]; 3],
}

fn footprint(c: &Carrier, layout: &BrickLayout, camera: Vec3) -> Option<Footprint> {
    let sigma = c.sigma_m();
    let level = bricks::kernel_level(layout.voxel_size_m, sigma, c.position.distance(camera))?;
    let vox = layout.voxel_m(level);
    let sigma = kernel::splat_sigma_m(sigma, vox);
    let ranges: [(i32, i32); 3] = std::array::from_fn(|a| bricks::support_cells(c.position[a], sigma, vox));
    let weights = std::array::from_fn(|a| kernel::axis_weights(c.position[a], sigma, vox, ranges[a]));
    let lo = IVec3::new(ranges[0].0, ranges[1].0, ranges[2].0);
    let hi = IVec3::new(ranges[0].1, ranges[1].1, ranges[2].1);
    Some(Footprint { level, lo, hi, weights })
}

fn splat_one(c: &Carrier, layout: &BrickLayout, camera: Vec3, frame: u32, out: &mut Splat) {
    let mass = c.mass_m2();
    if c.is_poisoned() {
        out.counts.poisoned += 1;
        return;
    }
    if mass <= 0.0 {
        return;
    }
    let Some(fp) = footprint(c, layout, camera) else {
        out.counts.too_large += 1;
        return;
    };
    let vox = layout.voxel_m(fp.level);
    let exact = mass / (vox * vox * vox) * kernel::EXTINCTION_UNITS_PER_INV_M;
    if exact > MAX_CARRIER_UNITS {
        out.counts.poisoned += 1;
        return;
    }
    mark(&mut out.bricks, fp.level, fp.lo - IVec3::ONE, fp.hi + IVec3::ONE);
    let units = kernel::carrier_units(mass, vox, kernel::rounding_uniform(c.key, frame));
    let slabs = (fp.hi.z - fp.lo.z + 1) as usize;
    let peak = IVec3::from_array(std::array::from_fn(|a| {
        let v = layout.voxel_m(fp.level);
        kernel::peak_cell(c.position[a], v, (fp.lo[a], fp.hi[a]))
    }));
    let mut per_brick: HashMap<IVec3, u32> = HashMap::new();
    for z in 0..slabs {
        let slab_total = slab_units(units, &fp.weights[2], slabs, peak.z as usize, z);
        let mut written = 0u32;
        for y in 0..=(fp.hi.y - fp.lo.y) {
            for x in 0..=(fp.hi.x - fp.lo.x) {
                let w = fp.weights[1][y as usize] * fp.weights[0][x as usize];
                let share = (slab_total as f32 * w) as u32;
                written = written.wrapping_add(share);
                let cell = fp.lo + IVec3::new(x, y, z as i32);
                add_cell(&mut out.bricks, fp.level, cell, share);
                *per_brick.entry(bricks::brick_of(cell)).or_default() += share;
            }
        }
        let rest = slab_total.wrapping_sub(written);
        let cell = fp.lo + IVec3::new(peak.x, peak.y, z as i32);
        add_cell(&mut out.bricks, fp.level, cell, rest);
        *per_brick.entry(bricks::brick_of(cell)).or_default() += rest;
    }
    let base = bricks::brick_of(fp.lo);
    for (brick, units) in per_brick {
        let d = brick - base;
        let k = (d.x + 2 * d.y + 4 * d.z) as u32;
        let u = kernel::rounding_uniform(c.key.wrapping_mul(8).wrapping_add(k), frame);
        add_brick_tint(&mut out.bricks, fp.level, brick, (units, u), c);
    }
    out.counts.carriers += 1;
    out.counts.units[fp.level] += u64::from(units);
}

/// The units of z slab `k` of `count`: the floor of its share of `units`, the rest to the `peak`
/// slab (as `fog.brick_splat` splits a carrier over its slab threads).
fn slab_units(units: u32, wz: &[f32; 10], count: usize, peak: usize, k: usize) -> u32 {
    let share = |i: usize| (units as f32 * wz[i]) as u32;
    if k != peak {
        return share(k);
    }
    let others = (0..count).filter(|&i| i != peak).fold(0u32, |acc, i| acc.wrapping_add(share(i)));
    units.wrapping_sub(others)
}

fn mark(bricks: &mut Bricks, level: usize, lo: IVec3, hi: IVec3) {
    let (blo, bhi) = (bricks::brick_of(lo), bricks::brick_of(hi));
    for z in blo.z..=bhi.z {
        for y in blo.y..=bhi.y {
            for x in blo.x..=bhi.x {
                bricks.entry((level, IVec3::new(x, y, z))).or_insert_with(BrickAccum::new);
            }
        }
    }
}

fn add_cell(bricks: &mut Bricks, level: usize, cell: IVec3, units: u32) {
    if let Some(b) = bricks.get_mut(&(level, bricks::brick_of(cell))) {
        let i = bricks::cell_in_brick(cell);
        b.extinction[i] = b.extinction[i].wrapping_add(units);
    }
}

/// Adds carrier `c`'s tint, weighted by its `units` in `brick`, as `fog.brick_splat` does: each
/// word rounded stochastically with the uniform `u` (truncated, many carriers' thin tails left a
/// brick white and not emissive while their density showed).
fn add_brick_tint(bricks: &mut Bricks, level: usize, brick: IVec3, (units, u): (u32, f32), c: &Carrier) {
    let Some(b) = bricks.get_mut(&(level, brick)) else { return };
    let scaled = units as f32 * TINT_SCALE;
    let add = |word: &mut u32, v: f32| *word = word.wrapping_add((v + u) as u32);
    for ch in 0..3 {
        add(&mut b.tint[ch], scaled * c.tint[ch].clamp(0.0, 1.0));
    }
    if c.emissive {
        add(&mut b.tint[3], scaled);
    }
    add(&mut b.tint[4], scaled);
    add(&mut b.tint[5], scaled * c.billboard_match.clamp(0.0, 1.0));
}
