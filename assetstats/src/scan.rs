//! The one pass over the pixels, and the fixed-size analysis grid.
//!
//! Everything that must be exact at full resolution (alpha histogram, alpha-weighted colour sums) is
//! accumulated in one row-major pass with integer arithmetic. In the same pass alpha is box-filtered
//! into a [`GRID`] x [`GRID`] grid: each source column `x` falls in grid column `x * GRID / width`
//! (likewise rows), and a grid cell is the mean of the pixels that fall in it. Images smaller than
//! the grid on either side are instead sampled bilinearly at the cell centres.
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
    /// Pixel count per alpha value 0..=255.
    pub alpha_hist: [u64; 256],
    /// Sum over pixels of `alpha * channel` (both 0..=255), per RGB channel.
    pub weighted_rgb: [u64; 3],
    /// Sum over pixels of `alpha * channel^2`, per RGB channel.
    pub weighted_rgb_sq: [u64; 3],
    /// Sum over pixels of `channel`, per RGB channel (used when all alpha is zero).
    pub plain_rgb: [u64; 3],
    /// Row-major `GRID * GRID` mean alpha per cell, in [0, 1].
    pub alpha_grid: Vec<f32>,
}

/// Scans `img` once. `img` must not be empty (checked by the caller).
pub(crate) fn scan(img: &RgbaImage) -> PixelScan {
    let (width, height) = (img.width() as usize, img.height() as usize);
    let boxed = width >= GRID && height >= GRID;
    let cell_x: Vec<usize> = (0..width).map(|x| x * GRID / width).collect();
    let mut sums = PixelScan {
        alpha_hist: [0; 256],
        weighted_rgb: [0; 3],
        weighted_rgb_sq: [0; 3],
        plain_rgb: [0; 3],
        alpha_grid: vec![0.0; GRID * GRID],
    };
    // Per-cell alpha sums (at most (4096/64)^2 * 255 < 2^32 per cell).
    let mut grid_sum = vec![0u32; GRID * GRID];
    for (y, row) in img.as_raw().chunks_exact(width * 4).enumerate() {
        let row_cells = &mut grid_sum[(y * GRID / height) * GRID..][..GRID];
        // Per-row partial sums in locals keep the inner loop in registers.
        let (mut ar, mut ag, mut ab) = (0u64, 0u64, 0u64);
        let (mut arr, mut agg, mut abb) = (0u64, 0u64, 0u64);
        let (mut pr, mut pg, mut pb) = (0u64, 0u64, 0u64);
        for (px, &cx) in row.chunks_exact(4).zip(&cell_x) {
            let (r, g, b, a) = (
                u64::from(px[0]),
                u64::from(px[1]),
                u64::from(px[2]),
                u64::from(px[3]),
            );
            sums.alpha_hist[px[3] as usize] += 1;
            row_cells[cx] += u32::from(px[3]);
            let (war, wag, wab) = (a * r, a * g, a * b);
            ar += war;
            ag += wag;
            ab += wab;
            arr += war * r;
            agg += wag * g;
            abb += wab * b;
            pr += r;
            pg += g;
            pb += b;
        }
        sums.weighted_rgb[0] += ar;
        sums.weighted_rgb[1] += ag;
        sums.weighted_rgb[2] += ab;
        sums.weighted_rgb_sq[0] += arr;
        sums.weighted_rgb_sq[1] += agg;
        sums.weighted_rgb_sq[2] += abb;
        sums.plain_rgb[0] += pr;
        sums.plain_rgb[1] += pg;
        sums.plain_rgb[2] += pb;
    }
    if boxed {
        normalise_box_grid(&grid_sum, width, height, &mut sums.alpha_grid);
    } else {
        bilinear_grid(img, &mut sums.alpha_grid);
    }
    sums
}

/// Turns per-cell alpha sums into means in [0, 1].
fn normalise_box_grid(grid_sum: &[u32], width: usize, height: usize, out: &mut [f32]) {
    let count = |n: usize| -> Vec<u32> {
        let mut c = vec![0u32; GRID];
        for i in 0..n {
            c[i * GRID / n] += 1;
        }
        c
    };
    let (cols, rows) = (count(width), count(height));
    for (i, (cell, &sum)) in out.iter_mut().zip(grid_sum).enumerate() {
        let pixels = rows[i / GRID] * cols[i % GRID];
        *cell = sum as f32 / (pixels as f32 * f32::from(u8::MAX));
    }
}

/// Samples alpha bilinearly at the grid's cell centres (for images smaller than the grid).
fn bilinear_grid(img: &RgbaImage, out: &mut [f32]) {
    let (width, height) = (img.width(), img.height());
    let alpha = |x: u32, y: u32| f32::from(img.get_pixel(x, y)[3]) / f32::from(u8::MAX);
    // Source coordinate of a cell centre, clamped to the pixel centres, as (index, fraction).
    let axis = |cell: usize, n: u32| -> (u32, u32, f32) {
        let pos = ((cell as f32 + 0.5) * n as f32 / GRID as f32 - 0.5).clamp(0.0, (n - 1) as f32);
        let lo = pos.floor() as u32;
        (lo, (lo + 1).min(n - 1), pos - lo as f32)
    };
    for gy in 0..GRID {
        let (y0, y1, fy) = axis(gy, height);
        for gx in 0..GRID {
            let (x0, x1, fx) = axis(gx, width);
            let top = alpha(x0, y0) * (1.0 - fx) + alpha(x1, y0) * fx;
            let bottom = alpha(x0, y1) * (1.0 - fx) + alpha(x1, y1) * fx;
            out[gy * GRID + gx] = top * (1.0 - fy) + bottom * fy;
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
    let at = |x: isize, y: isize| -> f32 {
        if x < 0 || y < 0 || x >= GRID as isize || y >= GRID as isize {
            0.0
        } else {
            grid[y as usize * GRID + x as usize]
        }
    };
    let mut sum = 0.0f64;
    for y in -1..GRID as isize {
        for x in -1..GRID as isize {
            let here = at(x, y);
            let dx = at(x + 1, y) - here;
            let dy = at(x, y + 1) - here;
            sum += f64::from(dx * dx + dy * dy);
        }
    }
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
