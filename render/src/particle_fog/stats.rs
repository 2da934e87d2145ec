//! What the particle fog did in a frame: `fog.bricks.counters` read back and named.

use fog::bricks::{level_voxel_m, LEVELS};
use fog::kernel::EXTINCTION_UNITS_PER_INV_M;
use serde::Serialize;

/// Counter word indices (the `C_*` constants of `shaders/bricks.glsl`; a test compares them).
pub mod words {
    /// Bricks in use this frame (the resolve's indirect dispatch x).
    pub const USED: usize = 0;
    /// Bricks requested this frame.
    pub const REQUESTS: usize = 3;
    /// Carriers splatted.
    pub const CARRIERS: usize = 4;
    /// Carriers refused as poisoned or absurd.
    pub const POISONED: usize = 5;
    /// Carriers refused as too large for the top level.
    pub const TOO_LARGE: usize = 6;
    /// Requests that found no free slot.
    pub const ALLOC_FAILED: usize = 7;
    /// Bricks evicted to the free list.
    pub const EVICTED: usize = 8;
    /// Requests beyond the request list.
    pub const REQUEST_OVERFLOW: usize = 9;
    /// Expected mass, u64 in units of 2^-32 m².
    pub const EXPECTED_LO: usize = 10;
    /// Splatted units per level, u64 each.
    pub const UNITS_LO: usize = 12;
    /// Units lost to unallocated bricks per level, u64 each.
    pub const CLIPPED_LO: usize = 28;
    /// The box of the bricks in use (level-0 voxels, biased by 2^31): min xyz, max xyz.
    pub const BOUNDS: usize = 44;
    /// Bit L set when a brick of level L is in use.
    pub const LEVELS: usize = 50;
    /// The wide splat's indirect dispatch (x groups, y slabs, z 1).
    pub const WIDE_ARGS: usize = 51;
    /// Wide carriers handed to the wide splat.
    pub const WIDE_COUNT: usize = 54;
    /// Words in all.
    pub const COUNT: usize = 55;
}

/// Expected mass units per m² (`EXPECTED_MASS_UNITS_PER_M2` in bricks.glsl): 2^32.
pub const EXPECTED_MASS_UNITS_PER_M2: f64 = 4_294_967_296.0;

/// One frame of particle fog, for the timing table and JSON (`fog` section).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FogStats {
    /// Systems with a blend weight above zero (converting, converted or fading).
    pub systems_converted: u32,
    /// Systems demoted to billboards because the brick budget would not hold them.
    pub systems_demoted: u32,
    /// Density carriers splatted.
    pub carriers: u32,
    /// Carriers refused as poisoned (NaN, infinite, negative or absurd values).
    pub carriers_poisoned: u32,
    /// Carriers refused as too large for the coarsest level.
    pub carriers_too_large: u32,
    /// The frame these counts are of ([`super::ParticleFog::frame`]'s numbering; with frames in
    /// flight, older than the last one recorded).
    pub frame: u32,
    /// Bricks in use.
    pub bricks_used: u32,
    /// Bricks the pool held in that frame (its slots; it grows and shrinks with the bricks wanted,
    /// [`super::sizing`]).
    pub bricks_allocated: u32,
    /// Bricks the budget holds: the most the pool grows to.
    pub bricks_budget: u32,
    /// Bytes of the bricks in use ([`super::pool::BYTES_PER_SLOT`] each).
    pub brick_bytes_used: u64,
    /// Bytes the allocator gave the pool that frame ran with (its buffers and atlases).
    pub brick_bytes_allocated: u64,
    /// `RenderVKParticleFogBrickBudgetMB` in bytes.
    pub brick_bytes_budget: u64,
    /// Bricks newly requested this frame.
    pub bricks_requested: u32,
    /// Requests that found no free brick (their carriers' cells were clipped): the pool's slots
    /// were all in use (it grows within a few frames unless it holds the budget's), or the
    /// request list was full.
    pub alloc_failures: u32,
    /// Bricks evicted to the free list this frame.
    pub evictions: u32,
    /// Sum of the carriers' masses, m².
    pub mass_expected_m2: f64,
    /// Mass the bricks hold, m².
    pub mass_splatted_m2: f64,
    /// Mass lost to bricks that could not be allocated, m².
    pub mass_clipped_m2: f64,
    /// Bricks each system uses, most first (systems with none left out): what each costs of the
    /// budget. A brick two systems share counts for the one that requested it first, so these sum
    /// to the bricks requested.
    pub bricks_by_system: Vec<SystemBricks>,
}

/// One system's share of the bricks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SystemBricks {
    /// The system's name in the scene.
    pub name: String,
    /// Bricks it requested this frame.
    pub bricks: u32,
}

impl SystemBricks {
    /// The systems with bricks, named by `name_of` (by source id), most bricks first (ties by id).
    pub fn ranked<'a>(by_source: &[u32], name_of: impl Fn(usize) -> Option<&'a str>) -> Vec<SystemBricks> {
        let mut out: Vec<(usize, u32)> =
            by_source.iter().copied().enumerate().filter(|&(_, bricks)| bricks > 0).collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out.into_iter()
            .map(|(i, bricks)| SystemBricks {
                name: name_of(i).map_or_else(|| format!("source {i}"), str::to_owned),
                bricks,
            })
            .collect()
    }
}

fn u64_at(w: &[u32], at: usize) -> u64 {
    u64::from(w[at]) | (u64::from(w[at + 1]) << 32)
}

impl FogStats {
    /// Names the counters `w` of a pool with level-0 voxel `voxel_size_m`.
    pub fn from_counters(w: &[u32], voxel_size_m: f32) -> FogStats {
        let mass_of = |first: usize| -> f64 {
            (0..LEVELS)
                .map(|l| {
                    let v = f64::from(level_voxel_m(voxel_size_m, l));
                    u64_at(w, first + 2 * l) as f64 * v * v * v / f64::from(EXTINCTION_UNITS_PER_INV_M)
                })
                .sum()
        };
        let clipped = mass_of(words::CLIPPED_LO);
        FogStats {
            carriers: w[words::CARRIERS],
            carriers_poisoned: w[words::POISONED],
            carriers_too_large: w[words::TOO_LARGE],
            bricks_used: w[words::USED],
            bricks_requested: w[words::REQUESTS],
            alloc_failures: w[words::ALLOC_FAILED] + w[words::REQUEST_OVERFLOW],
            evictions: w[words::EVICTED],
            mass_expected_m2: u64_at(w, words::EXPECTED_LO) as f64 / EXPECTED_MASS_UNITS_PER_M2,
            mass_splatted_m2: mass_of(words::UNITS_LO) - clipped,
            mass_clipped_m2: clipped,
            ..FogStats::default()
        }
    }
}
