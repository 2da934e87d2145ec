//! The one pass over the pixels, and the fixed-size analysis grid.
//!
//! Everything that must be exact at full resolution (alpha sum, coverage counts, alpha-weighted
//! colour sums) is accumulated in one row-major pass with integer arithmetic, run by run: a run is
//! the pixels of one row that fall in one grid cell, summed in registers without memory
//! dependencies between pixels (a histogram or a per-pixel grid update would serialise them). In the same pass alpha is box-filtered
//! into a [`GRID`] x [`GRID`] grid: each source column `x` falls in grid column `x * GRID / width`
//! (likewise rows), and a grid cell is the mean of the pixels that fall in it. Along a side shorter
//! than the grid, each cell takes the pixel under its centre instead (nearest neighbour), so a hard
//! edge in a 16 x 16 texture is still a one-cell step and scores like one; a smooth ramp is turned
//! into steps and scores `GRID / side` times higher (a Gaussian blob about 4 pi at 16 x 16), which
//! still leaves it soft down to 16 pixels.
//!
//! Why a fixed grid: the mean squared gradient of a hard edge grows with resolution (a step of 1
//! over one pixel of size `h` gives `1/h` per unit of edge length), while a smooth ramp's does not.
//! Measured on a fixed grid, a hard edge always costs `GRID` per unit of edge length whatever the
//! source resolution (for sources at least `GRID` wide), so 64 x 64 and 256 x 256 renderings of the
//! same shape give the same numbers, and the gap between soft and hard stays wide.

use image::RgbaImage;

/// Side of the analysis grid, in cells. 64 is the smallest particle texture size in common use, so
/// typical sources (64..1024) are only ever box-downsampled, never upsampled.
pub const GRID: usize = 64;

/// Full-resolution sums of one pass, plus the analysis grid.
pub(crate) struct PixelScan {
    /// Sum of alpha (0..=255) over all pixels.
    pub alpha_sum: u64,
    /// Pixel count with alpha above each byte level of `coverage_levels`.
    pub coverage_counts: [u64; 4],
    /// Sum over pixels of `alpha * channel` (both 0..=255), per RGB channel.
    pub weighted_rgb: [u64; 3],
    /// Sum over pixels of `alpha * channel^2`, per RGB channel.
    pub weighted_rgb_sq: [u64; 3],
    /// Sum over pixels of `alpha * r * g`, `alpha * g * b` and `alpha * b * r` (for chroma).
    pub weighted_cross: [u64; 3],
    /// Row-major `GRID * GRID` mean alpha per cell, in [0, 1].
    pub alpha_grid: Vec<f32>,
}

/// Sums over one run of pixels that share a grid cell (at most 4096 / GRID = 64 pixels, so every
/// sum fits in u32: 64 * 255^3 < 2^31).
#[derive(Default)]
struct RunSums {
    alpha: u32,
    weighted: [u32; 3],
    weighted_sq: [u32; 3],
    cross: [u32; 3],
    above: [u32; 4],
}

/// Adds up one run of RGBA8 pixels: plain integer arithmetic with no memory dependencies between
/// pixels, so the compiler keeps everything in registers (and vectorises where it can).
#[inline]
fn sum_run(pixels: &[u8], levels: &[u32; 4]) -> RunSums {
    let mut s = RunSums::default();
    for px in pixels.chunks_exact(4) {
        let (r, g, b, a) = (u32::from(px[0]), u32::from(px[1]), u32::from(px[2]), u32::from(px[3]));
        let (ar, ag, ab) = (a * r, a * g, a * b);
        s.alpha += a;
        s.weighted[0] += ar;
        s.weighted[1] += ag;
        s.weighted[2] += ab;
        s.weighted_sq[0] += ar * r;
        s.weighted_sq[1] += ag * g;
        s.weighted_sq[2] += ab * b;
        s.cross[0] += ar * g;
        s.cross[1] += ag * b;
        s.cross[2] += ab * r;
        for (count, &level) in s.above.iter_mut().zip(levels) {
            *count += u32::from(a > level);
        }
    }
    s
}

/// Scans `img` once. `img` must not be empty (checked by the caller). A pixel counts towards
/// `coverage_counts[k]` when its alpha byte exceeds `coverage_levels[k]`.
pub(crate) fn scan(img: &RgbaImage, coverage_levels: &[u32; 4]) -> PixelScan {
    let (width, height) = (img.width() as usize, img.height() as usize);
    // Grid column c holds source columns [c * width / GRID rounded up, (c + 1) * width / GRID
    // rounded up), i.e. exactly those x with x * GRID / width == c (as in `axis_ranges`); for
    // narrow images some runs are empty, and the grid is then rebuilt by `small_image_grid`.
    let col_start = |c: usize| (c * width).div_ceil(GRID);
    let mut sums = PixelScan {
        alpha_sum: 0,
        coverage_counts: [0; 4],
        weighted_rgb: [0; 3],
        weighted_rgb_sq: [0; 3],
        weighted_cross: [0; 3],
        alpha_grid: vec![0.0; GRID * GRID],
    };
    // Per-cell alpha sums (at most (4096 / 64)^2 * 255 < 2^32 per cell).
    let mut grid_sum = vec![0u32; GRID * GRID];
    for (y, row) in img.as_raw().chunks_exact(width * 4).enumerate() {
        let row_cells = &mut grid_sum[(y * GRID / height) * GRID..][..GRID];
        for (c, cell) in row_cells.iter_mut().enumerate() {
            let run = sum_run(&row[col_start(c) * 4..col_start(c + 1) * 4], coverage_levels);
            *cell += run.alpha;
            sums.alpha_sum += u64::from(run.alpha);
            for ch in 0..3 {
                sums.weighted_rgb[ch] += u64::from(run.weighted[ch]);
                sums.weighted_rgb_sq[ch] += u64::from(run.weighted_sq[ch]);
                sums.weighted_cross[ch] += u64::from(run.cross[ch]);
            }
            for (total, n) in sums.coverage_counts.iter_mut().zip(run.above) {
                *total += u64::from(n);
            }
        }
    }
    if width >= GRID && height >= GRID {
        normalise_box_grid(&grid_sum, width, height, &mut sums.alpha_grid);
    } else {
        small_image_grid(img, &mut sums.alpha_grid);
    }
    sums
}

/// Unweighted mean RGB in [0, 1] (for images whose alpha is zero everywhere).
pub(crate) fn plain_mean_rgb(img: &RgbaImage) -> [f32; 3] {
    let mut sum = [0u64; 3];
    for px in img.pixels() {
        for (s, &c) in sum.iter_mut().zip(&px.0[..3]) {
            *s += u64::from(c);
        }
    }
    let n = f64::from(img.width()) * f64::from(img.height()) * f64::from(u8::MAX);
    sum.map(|s| (s as f64 / n) as f32)
}

/// Turns per-cell alpha sums into means in [0, 1] (both sides at least `GRID`).
fn normalise_box_grid(grid_sum: &[u32], width: usize, height: usize, out: &mut [f32]) {
    let (cols, rows) = (axis_ranges(width), axis_ranges(height));
    for (i, (cell, &sum)) in out.iter_mut().zip(grid_sum).enumerate() {
        let (x0, x1) = cols[i % GRID];
        let (y0, y1) = rows[i / GRID];
        *cell = sum as f32 / (((x1 - x0) * (y1 - y0)) as f32 * f32::from(u8::MAX));
    }
}

/// Source index range of each grid cell along an axis of `n` pixels: the box of pixels whose index
/// maps to the cell when `n >= GRID` (as in [`scan`]), otherwise the one pixel under the cell's
/// centre (nearest neighbour: a hard edge stays a one-cell step, as it would be drawn).
fn axis_ranges(n: usize) -> Vec<(usize, usize)> {
    (0..GRID)
        .map(|c| {
            if n >= GRID {
                ((c * n).div_ceil(GRID), ((c + 1) * n).div_ceil(GRID))
            } else {
                let i = (2 * c + 1) * n / (2 * GRID);
                (i, i + 1)
            }
        })
        .collect()
}

/// Grid of an image smaller than the grid on at least one side: box means along a large axis,
/// nearest neighbour along a small one.
fn small_image_grid(img: &RgbaImage, out: &mut [f32]) {
    let (cols, rows) = (axis_ranges(img.width() as usize), axis_ranges(img.height() as usize));
    for (gy, &(y0, y1)) in rows.iter().enumerate() {
        for (gx, &(x0, x1)) in cols.iter().enumerate() {
            let mut sum = 0u32;
            for y in y0..y1 {
                for x in x0..x1 {
                    sum += u32::from(img.get_pixel(x as u32, y as u32)[3]);
                }
            }
            let pixels = ((y1 - y0) * (x1 - x0)) as f32;
            out[gy * GRID + gx] = sum as f32 / (pixels * f32::from(u8::MAX));
        }
    }
}

/// Mean squared alpha gradient per unit texture width over the texture, on the grid.
///
/// Forward differences between neighbouring cells, with alpha 0 outside the texture (the billboard
/// ends there, so an opaque border is a visible hard edge). A gradient across one cell is
/// `delta * GRID` per texture width; its square, averaged over the `GRID^2` cells, makes each
/// cell boundary contribute `delta^2`: the energy is the plain sum of squared neighbour steps.
pub(crate) fn edge_energy(grid: &[f32]) -> f32 {
    let sq = |d: f32| f64::from(d * d);
    let mut sum = 0.0f64;
    let mut above: &[f32] = &[0.0; GRID];
    for row in grid.chunks_exact(GRID) {
        // Horizontal steps, including the texture's left and right borders.
        sum += sq(row[0]) + sq(row[GRID - 1]);
        sum += row.windows(2).map(|w| sq(w[1] - w[0])).sum::<f64>();
        // Vertical steps to the row above (zero above the top row).
        sum += row.iter().zip(above).map(|(b, a)| sq(b - a)).sum::<f64>();
        above = row;
    }
    // The bottom border.
    sum += above.iter().map(|&a| sq(a)).sum::<f64>();
    sum as f32
}

/// Mean alpha of the grid's outermost ring of cells (what touches the billboard's outline).
pub(crate) fn border_alpha(grid: &[f32]) -> f32 {
    let last = GRID - 1;
    let mut sum = 0.0f32;
    let mut n = 0u32;
    for y in 0..GRID {
        for x in 0..GRID {
            if x == 0 || y == 0 || x == last || y == last {
                sum += grid[y * GRID + x];
                n += 1;
            }
        }
    }
    sum / n as f32
}
