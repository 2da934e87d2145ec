//! The brick layout of particle fog: world-space density bricks in levels, each level a clip window
//! of bricks around the camera, and the rule that puts each carrier's kernel on a level.
//!
//! - A **brick** is [`BRICK_VOXELS`]³ voxels of one level, aligned to the world grid of that level
//!   (brick `b` covers cells `8 b .. 8 b + 7` on each axis). In the atlas a brick is stored with a
//!   one-voxel apron ([`BRICK_STORED`]³), copied from its neighbours, so the march filters
//!   trilinearly inside one brick.
//! - **Levels**: level `L` has voxels of `voxel_size_m * 2^L` (`RenderVKParticleFogVoxelSize` at
//!   level 0). A kernel goes to the coarser of (a) its *distance level*, the first level whose
//!   reach `DISTANCE_LEVEL0_VOXELS * voxel(L)` holds its distance from the camera (fine voxels near
//!   the camera, twice as coarse at twice the distance: the same angular size everywhere), and (b)
//!   its *size level*, the coarsest level whose voxel is at most twice the kernel's standard
//!   deviation `sigma` (its support, `±2 sigma`, then spans at least 2 voxels: never a point
//!   sample, and at most 5 cells a side below the distance level: a kernel costs 27-125 cells, not
//!   the 125-729 of a "voxel at most sigma" rule, which is what bounds the splat's cost).
//! - **Clip windows**: level `L`'s page table holds [`CLIP_BRICKS`]³ bricks centred on the camera's
//!   brick. The window's half-width (16 bricks = 128 voxels) exceeds the distance reach (96
//!   voxels) by more than a kernel's support plus a brick of snapping, so a kernel on its level is
//!   always wholly inside that level's window: no mass is clipped by the window.
//!
//! Nothing here knows about the GPU; `render` mirrors these constants in `bricks.glsl` (a test
//! compares them).

use glam::{IVec3, Vec3};

/// Interior voxels per brick edge.
pub const BRICK_VOXELS: i32 = 8;
/// Interior voxels per brick.
pub const BRICK_CELLS: usize = (BRICK_VOXELS * BRICK_VOXELS * BRICK_VOXELS) as usize;
/// Voxels per brick edge in the atlas: the interior plus a one-voxel apron on each side.
pub const BRICK_STORED: i32 = BRICK_VOXELS + 2;
/// Number of levels (level 7 has voxels 128 times the finest).
pub const LEVELS: usize = 8;
/// Page-table entries per axis of each level's clip window.
pub const CLIP_BRICKS: i32 = 32;
/// A kernel at distance `d` from the camera is on a level whose voxel is at least
/// `d / DISTANCE_LEVEL0_VOXELS`: level 0 reaches 7.2 m at 7.5 cm voxels, level 4 115 m.
pub const DISTANCE_LEVEL0_VOXELS: f32 = 96.0;
/// A kernel's support is `±SUPPORT_SIGMAS` standard deviations (renormalised over the cells it
/// touches, so no mass is lost by the truncation).
pub const SUPPORT_SIGMAS: f32 = 2.0;
/// A kernel's size level is the coarsest whose voxel is at most `sigma / MIN_SIGMA_VOXELS`: its
/// `±2 sigma` support then spans at least `4 * MIN_SIGMA_VOXELS` = 2 voxels.
pub const MIN_SIGMA_VOXELS: f32 = 0.5;
/// Largest kernel, in voxels of the top level (`sigma`): larger ones are skipped as absurd.
pub const MAX_SIGMA_TOP_VOXELS: f32 = 2.0;
/// Largest number of cells a kernel touches per axis (so at most 2 bricks: a `sigma` below 2
/// voxels gives at most 9 anyway).
pub const MAX_AXIS_CELLS: i32 = 9;

/// The level layout for one voxel size and camera position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrickLayout {
    /// Level-0 voxel edge, m.
    pub voxel_size_m: f32,
    /// Each level's clip-window origin, in bricks of that level (the window is
    /// `origin .. origin + CLIP_BRICKS` per axis).
    pub origins: [IVec3; LEVELS],
}

impl BrickLayout {
    /// The layout for `voxel_size_m` with the windows centred on `camera`.
    pub fn new(voxel_size_m: f32, camera: Vec3) -> BrickLayout {
        let origins = std::array::from_fn(|level| {
            let brick_m = voxel_size_m * BRICK_VOXELS as f32 * (1u32 << level) as f32;
            (camera / brick_m).floor().as_ivec3() - IVec3::splat(CLIP_BRICKS / 2)
        });
        BrickLayout { voxel_size_m, origins }
    }

    /// Voxel edge of `level`, m.
    pub fn voxel_m(&self, level: usize) -> f32 {
        level_voxel_m(self.voxel_size_m, level)
    }

    /// Page-table index of world brick `brick` on `level`, or `None` outside its clip window.
    pub fn page_index(&self, level: usize, brick: IVec3) -> Option<usize> {
        let p = brick - self.origins[level];
        let inside = p.cmpge(IVec3::ZERO).all() && p.cmplt(IVec3::splat(CLIP_BRICKS)).all();
        inside.then(|| {
            let n = CLIP_BRICKS as usize;
            ((level * n + p.z as usize) * n + p.y as usize) * n + p.x as usize
        })
    }
}

/// Voxel edge of `level` for a level-0 voxel of `voxel_size_m`, m.
pub fn level_voxel_m(voxel_size_m: f32, level: usize) -> f32 {
    voxel_size_m * (1u32 << level) as f32
}

/// Page-table entries of all levels.
pub const PAGE_ENTRIES: usize = LEVELS * (CLIP_BRICKS * CLIP_BRICKS * CLIP_BRICKS) as usize;

/// The level of a kernel of standard deviation `sigma_m` at `distance_m` from the camera, or
/// `None` when it is too large for the top level (module docs).
pub fn kernel_level(voxel_size_m: f32, sigma_m: f32, distance_m: f32) -> Option<usize> {
    let mut level = 0;
    while level + 1 < LEVELS && distance_m > DISTANCE_LEVEL0_VOXELS * level_voxel_m(voxel_size_m, level) {
        level += 1;
    }
    while level + 1 < LEVELS && MIN_SIGMA_VOXELS * level_voxel_m(voxel_size_m, level + 1) <= sigma_m {
        level += 1;
    }
    let vox = level_voxel_m(voxel_size_m, level);
    let fits = sigma_m < MAX_SIGMA_TOP_VOXELS * vox && distance_m <= DISTANCE_LEVEL0_VOXELS * vox;
    fits.then_some(level)
}

/// The cells `lo..=hi` a kernel centred at `mu` (m) with `sigma` (m) touches on one axis, at voxel
/// edge `voxel_m`.
pub fn support_cells(mu: f32, sigma: f32, voxel_m: f32) -> (i32, i32) {
    let lo = ((mu - SUPPORT_SIGMAS * sigma) / voxel_m).floor() as i32;
    let hi = ((mu + SUPPORT_SIGMAS * sigma) / voxel_m).floor() as i32;
    (lo, hi.min(lo + MAX_AXIS_CELLS - 1))
}

/// The brick holding cell `cell` (floor division by [`BRICK_VOXELS`]).
pub fn brick_of(cell: IVec3) -> IVec3 {
    IVec3::new(cell.x >> 3, cell.y >> 3, cell.z >> 3)
}

/// Index of cell `cell` inside its brick, x fastest.
pub fn cell_in_brick(cell: IVec3) -> usize {
    let l = cell & IVec3::splat(BRICK_VOXELS - 1);
    ((l.z * BRICK_VOXELS + l.y) * BRICK_VOXELS + l.x) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_levels_double_their_reach() {
        let v = 0.075;
        assert_eq!(kernel_level(v, 0.01, 1.0), Some(0));
        assert_eq!(kernel_level(v, 0.01, 7.1), Some(0));
        assert_eq!(kernel_level(v, 0.01, 7.3), Some(1));
        assert_eq!(kernel_level(v, 0.01, 30.0), Some(3));
        assert_eq!(kernel_level(v, 0.01, 60.0), Some(4));
    }

    #[test]
    fn size_levels_keep_two_to_four_voxels_across_the_support() {
        let v = 0.075;
        for sigma in [0.04, 0.08, 0.2, 0.5, 1.0, 3.0] {
            let level = kernel_level(v, sigma, 0.5).expect("fits");
            let vox = level_voxel_m(v, level);
            let support_voxels = 2.0 * SUPPORT_SIGMAS * sigma / vox;
            assert!((2.0..4.0).contains(&support_voxels), "sigma {sigma} on level {level} (voxel {vox})");
            let (lo, hi) = support_cells(0.3, sigma, vox);
            assert!(hi - lo < 5, "sigma {sigma} touches {} cells a side", hi - lo + 1);
        }
        assert_eq!(kernel_level(v, 0.03, 0.5), Some(0), "a sub-voxel kernel stays on level 0");
        assert_eq!(kernel_level(v, 500.0, 0.5), None, "a kilometre-wide kernel is refused");
    }

    #[test]
    fn a_kernel_on_its_level_lies_inside_the_clip_window() {
        let v = 0.1;
        let camera = Vec3::new(13.3, -7.9, 22.1);
        let layout = BrickLayout::new(v, camera);
        for &(dist, sigma) in &[(0.0, 0.01), (9.5, 0.15), (19.0, 0.05), (150.0, 0.5), (3.0, 2.5)] {
            let level = kernel_level(v, sigma, dist).expect("fits");
            let vox = layout.voxel_m(level);
            for dir in [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Z, Vec3::ONE.normalize()] {
                let mu = camera + dir * dist;
                let lo = IVec3::from_array(std::array::from_fn(|a| support_cells(mu[a], sigma, vox).0));
                let hi = IVec3::from_array(std::array::from_fn(|a| support_cells(mu[a], sigma, vox).1));
                for b in [brick_of(lo), brick_of(hi)] {
                    assert!(layout.page_index(level, b).is_some(), "d {dist} sigma {sigma} level {level}");
                }
            }
        }
    }

    #[test]
    fn cells_map_to_bricks_by_floor_division() {
        assert_eq!(brick_of(IVec3::new(-1, 0, 8)), IVec3::new(-1, 0, 1));
        assert_eq!(cell_in_brick(IVec3::new(-1, 0, 8)), 7);
        assert_eq!(cell_in_brick(IVec3::new(1, 2, 3)), 1 + 2 * 8 + 3 * 64);
    }
}
