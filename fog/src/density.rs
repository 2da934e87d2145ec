//! The particle fog's density field as the march samples it, and its export.
//!
//! [`Field`] holds every allocated brick's extinction (1/m, from the fixed-point accumulators)
//! per level. [`Field::extinction_at`] samples it exactly as `fog.brick_march` does: on each level,
//! trilinear between cell centres (the atlas apron makes that one hardware fetch inside the
//! brick that holds the point; a point in a brick that is not allocated sees nothing on that
//! level), summed over the levels.
//!
//! [`export_grid`] resamples the field on one regular grid for other tools (Mitsuba's `.vol`,
//! [`write_mitsuba_vol`]): cell edge the finest voxel present (half of it for a warped field,
//! below), doubled until no side exceeds [`MAX_EXPORT_CELLS`], aligned to the world grid, covering
//! every allocated brick plus a margin of empty cells. Sampling a trilinear field at cell centres
//! of an aligned grid no coarser than its voxels integrates it exactly (the midpoint rule is exact
//! on each multilinear piece), so the grid's integral is the splatted mass. A field read through a
//! warp (the march's billows, `fog::march::Billow::extinction_at`) is not multilinear on the
//! cells: its cells are half a voxel, each the mean over sub-cells, so that its integral keeps the
//! mass (centres alone missed it by 1 %) and the warp's folds, which the march reads at every
//! step, survive in the grid (a dense cloud's single scattering depends on them).

use std::collections::HashMap;
use std::io::Write;

use glam::{IVec3, Vec3};

use crate::bricks::{self, BRICK_VOXELS, LEVELS};
use crate::kernel::EXTINCTION_UNITS_PER_INV_M;
use crate::splat::Bricks;

/// Largest export grid side, cells.
pub const MAX_EXPORT_CELLS: usize = 512;
/// Empty cells around the allocated bricks in an export.
pub const EXPORT_MARGIN_CELLS: i32 = 2;

/// Extinction of every allocated brick, 1/m, x fastest, keyed by (level, world brick).
#[derive(Clone, Debug, Default)]
pub struct Field {
    /// Level-0 voxel edge, m.
    pub voxel_size_m: f32,
    /// The bricks.
    pub bricks: HashMap<(usize, IVec3), Vec<f32>>,
}

impl Field {
    /// The field of the twin's (or a read-back atlas's) fixed-point bricks.
    pub fn from_accum(voxel_size_m: f32, accum: &Bricks) -> Field {
        let bricks = accum
            .iter()
            .map(|(&k, b)| (k, b.extinction.iter().map(|&u| u as f32 / EXTINCTION_UNITS_PER_INV_M).collect()))
            .collect();
        Field { voxel_size_m, bricks }
    }

    /// Extinction of cell `cell` on `level` (0 outside the allocated bricks).
    pub fn cell(&self, level: usize, cell: IVec3) -> f32 {
        self.bricks.get(&(level, bricks::brick_of(cell))).map_or(0.0, |b| b[bricks::cell_in_brick(cell)])
    }

    /// Extinction at `p` (m), 1/m, as the march samples it (module docs).
    pub fn extinction_at(&self, p: Vec3) -> f32 {
        (0..LEVELS).map(|level| self.level_at(level, p)).sum()
    }

    fn level_at(&self, level: usize, p: Vec3) -> f32 {
        let vox = bricks::level_voxel_m(self.voxel_size_m, level);
        let own = bricks::brick_of((p / vox).floor().as_ivec3());
        if !self.bricks.contains_key(&(level, own)) {
            return 0.0;
        }
        let u = p / vox - Vec3::splat(0.5);
        let i0 = u.floor().as_ivec3();
        let f = u - u.floor();
        let mut sum = 0.0;
        for corner in 0..8 {
            let d = IVec3::new(corner & 1, (corner >> 1) & 1, (corner >> 2) & 1);
            let w = Vec3::select(d.cmpeq(IVec3::ONE), f, Vec3::ONE - f);
            sum += w.x * w.y * w.z * self.cell(level, i0 + d);
        }
        sum
    }

    /// The sum of every cell times its volume, m² (the mass the bricks hold).
    pub fn mass_m2(&self) -> f64 {
        self.bricks
            .iter()
            .map(|(&(level, _), b)| {
                let v = f64::from(bricks::level_voxel_m(self.voxel_size_m, level));
                b.iter().map(|&e| f64::from(e)).sum::<f64>() * v * v * v
            })
            .sum()
    }

    /// The world box (min, max) of every allocated brick, or `None` when there is none.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        self.bricks.keys().fold(None, |acc, &(level, b)| {
            let edge = bricks::level_voxel_m(self.voxel_size_m, level) * BRICK_VOXELS as f32;
            let (lo, hi) = (b.as_vec3() * edge, (b + IVec3::ONE).as_vec3() * edge);
            Some(acc.map_or((lo, hi), |(a, z): (Vec3, Vec3)| (a.min(lo), z.max(hi))))
        })
    }

    /// The finest level with an allocated brick.
    pub fn finest_level(&self) -> Option<usize> {
        self.bricks.keys().map(|&(l, _)| l).min()
    }
}

/// A regular grid of extinction values (1/m), x fastest.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Cells per axis.
    pub dims: [usize; 3],
    /// World position of the grid's minimum corner, m.
    pub origin: Vec3,
    /// Cell edge, m.
    pub cell_m: f32,
    /// The values at cell centres.
    pub values: Vec<f32>,
}

impl Grid {
    /// The world box (min, max), m.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        let size = Vec3::new(self.dims[0] as f32, self.dims[1] as f32, self.dims[2] as f32) * self.cell_m;
        (self.origin, self.origin + size)
    }

    /// Sum of values times the cell volume, m².
    pub fn integral_m2(&self) -> f64 {
        let v = f64::from(self.cell_m).powi(3);
        self.values.iter().map(|&x| f64::from(x)).sum::<f64>() * v
    }

    /// The extinction-weighted centroid, m (`None` when empty).
    pub fn centroid(&self) -> Option<Vec3> {
        let mut sum = [0.0f64; 3];
        let mut total = 0.0f64;
        for (i, &v) in self.values.iter().enumerate() {
            let c = self.cell_centre(i);
            for a in 0..3 {
                sum[a] += f64::from(v) * f64::from(c[a]);
            }
            total += f64::from(v);
        }
        (total > 0.0)
            .then(|| Vec3::new((sum[0] / total) as f32, (sum[1] / total) as f32, (sum[2] / total) as f32))
    }

    fn cell_centre(&self, i: usize) -> Vec3 {
        let [nx, ny, _] = self.dims;
        let (x, y, z) = (i % nx, (i / nx) % ny, i / (nx * ny));
        self.origin + (Vec3::new(x as f32, y as f32, z as f32) + Vec3::splat(0.5)) * self.cell_m
    }
}

/// Resamples `field` through `sample` on the export grid (module docs) of `per_voxel` cells per
/// finest voxel along each axis (1 for the field itself; 2 while a warp moves it), grown by
/// `margin_m` on every side (how far `sample` may move density, e.g. the billow warp); each cell
/// holds the mean of `sample` at the centres of its `sub`³ sub-cells (1: its centre); `None`
/// without bricks.
pub fn export_grid(
    field: &Field,
    margin_m: f32,
    (per_voxel, sub): (u32, u32),
    sample: impl Fn(Vec3) -> f32 + Sync,
) -> Option<Grid> {
    let (lo, hi) = field.bounds()?;
    let (lo, hi) = (lo - Vec3::splat(margin_m.max(0.0)), hi + Vec3::splat(margin_m.max(0.0)));
    let mut cell = bricks::level_voxel_m(field.voxel_size_m, field.finest_level()?) / per_voxel.max(1) as f32;
    let (origin, dims) = loop {
        let o = ((lo / cell).floor() - Vec3::splat(EXPORT_MARGIN_CELLS as f32)) * cell;
        let e = ((hi / cell).ceil() + Vec3::splat(EXPORT_MARGIN_CELLS as f32)) * cell;
        let d = ((e - o) / cell).round();
        let dims = [d.x as usize, d.y as usize, d.z as usize];
        if dims.iter().all(|&n| n <= MAX_EXPORT_CELLS) {
            break (o, dims);
        }
        cell *= 2.0;
    };
    let grid = Grid { dims, origin, cell_m: cell, values: Vec::new() };
    let n = dims[0] * dims[1] * dims[2];
    let sub = sub.max(1);
    let step = cell / sub as f32;
    let offsets: Vec<Vec3> = (0..sub * sub * sub)
        .map(|i| {
            let s = Vec3::new((i % sub) as f32, ((i / sub) % sub) as f32, (i / (sub * sub)) as f32);
            (s + Vec3::splat(0.5)) * step - Vec3::splat(0.5 * cell)
        })
        .collect();
    let mean = |c: Vec3| offsets.iter().map(|&o| sample(c + o)).sum::<f32>() / offsets.len() as f32;
    let values = (0..n).map(|i| mean(grid.cell_centre(i))).collect();
    Some(Grid { values, ..grid })
}

/// Writes `grid` in Mitsuba 3's binary grid-volume format: `VOL`, version 3, encoding 1
/// (float32), x/y/z resolution, 1 channel, the bounding box (min xyz, max xyz), then the values
/// with x fastest, all little-endian.
pub fn write_mitsuba_vol(grid: &Grid, out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(b"VOL")?;
    out.write_all(&[3u8])?;
    out.write_all(&1i32.to_le_bytes())?;
    for &d in &grid.dims {
        out.write_all(&(d as i32).to_le_bytes())?;
    }
    out.write_all(&1i32.to_le_bytes())?;
    let (lo, hi) = grid.bounds();
    for v in [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z] {
        out.write_all(&v.to_le_bytes())?;
    }
    for v in &grid.values {
        out.write_all(&v.to_le_bytes())?;
    }
    Ok(())
}
