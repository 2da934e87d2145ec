//! CPU tessellation of [`Shape`]s into indexed triangle meshes in object space.
//!
//! Conventions: Z up; triangles wind counter-clockwise seen from outside (their geometric normal
//! `(b - a) x (c - a)` points outward); vertex normals are unit length; a box has 24 vertices (hard
//! edges), a sphere is a UV sphere whose normals are its normalised positions, a cylinder has
//! smooth sides and flat caps, a heightfield has central-difference normals. UVs span 0..1 over
//! each face (plane, box, caps), longitude/latitude (sphere, cylinder side) or the grid.

use std::f32::consts::{PI, TAU};

use glam::{Vec2, Vec3};

use super::model::Shape;

/// Longitude segments of a sphere and of a cylinder's side.
pub const ROUND_SEGMENTS: u32 = 32;
/// Latitude rings of a sphere.
pub const SPHERE_RINGS: u32 = 16;

/// An indexed triangle list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions, m, object space.
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals, object space.
    pub normals: Vec<[f32; 3]>,
    /// Texture coordinates, 0..1.
    pub uvs: Vec<[f32; 2]>,
    /// Three indices per triangle, counter-clockwise seen from outside.
    pub indices: Vec<u32>,
}

impl Mesh {
    fn vertex(&mut self, p: Vec3, n: Vec3, uv: Vec2) -> u32 {
        let index = self.positions.len() as u32;
        self.positions.push(p.to_array());
        self.normals.push(n.normalize_or_zero().to_array());
        self.uvs.push(uv.to_array());
        index
    }

    /// Appends a `columns x rows` vertex grid's quads as two triangles each; `first` is the index
    /// of the grid's first vertex, laid out row by row. Winding is counter-clockwise when the
    /// column direction crossed with the row direction points outward.
    fn grid_quads(&mut self, first: u32, columns: u32, rows: u32) {
        for r in 0..rows - 1 {
            for c in 0..columns - 1 {
                let a = first + r * columns + c;
                let (b, d, e) = (a + 1, a + columns, a + columns + 1);
                self.indices.extend_from_slice(&[a, b, e, a, e, d]);
            }
        }
    }

    /// A planar rectangle `center + s*u + t*v` for s, t in -1..1, normal `u x v`.
    fn quad(&mut self, center: Vec3, u: Vec3, v: Vec3) {
        let n = u.cross(v);
        let first = self.positions.len() as u32;
        for (t, uv_y) in [(-1.0, 0.0), (1.0, 1.0)] {
            for (s, uv_x) in [(-1.0, 0.0), (1.0, 1.0)] {
                self.vertex(center + u * s + v * t, n, Vec2::new(uv_x, uv_y));
            }
        }
        self.grid_quads(first, 2, 2);
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

/// Tessellates `shape` (see the module docs for the conventions).
pub fn mesh_for(shape: &Shape) -> Mesh {
    let mut m = Mesh::default();
    match shape {
        Shape::Plane { size } => {
            let h = *size * 0.5;
            m.quad(Vec3::ZERO, Vec3::X * h.x, Vec3::Y * h.y);
        }
        Shape::Box { size } => boxed(&mut m, *size * 0.5),
        Shape::Sphere { radius } => sphere(&mut m, *radius),
        Shape::Cylinder { radius, height } => cylinder(&mut m, *radius, *height),
        Shape::Heightfield { size, resolution, heights } => heightfield(&mut m, *size, *resolution, heights),
    }
    m
}

fn boxed(m: &mut Mesh, h: Vec3) {
    // Each face: outward axis, then u and v with u x v = that axis.
    let faces = [
        (Vec3::X, Vec3::Y, Vec3::Z),
        (Vec3::NEG_X, Vec3::NEG_Y, Vec3::Z),
        (Vec3::Y, Vec3::NEG_X, Vec3::Z),
        (Vec3::NEG_Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (Vec3::NEG_Z, Vec3::NEG_X, Vec3::Y),
    ];
    for (n, u, v) in faces {
        m.quad(n * h, u * h, v * h);
    }
}

fn sphere(m: &mut Mesh, radius: f32) {
    let first = m.positions.len() as u32;
    for ring in 0..=SPHERE_RINGS {
        let v = ring as f32 / SPHERE_RINGS as f32;
        // Polar angle from the south pole (v = 0) up to the north pole; the poles are exact so
        // that their degenerate triangles can be dropped.
        let (sin_polar, cos_polar) = match ring {
            0 => (0.0, -1.0),
            r if r == SPHERE_RINGS => (0.0, 1.0),
            _ => (PI * (1.0 - v)).sin_cos(),
        };
        for seg in 0..=ROUND_SEGMENTS {
            let u = seg as f32 / ROUND_SEGMENTS as f32;
            let azimuth = TAU * u;
            let n = Vec3::new(sin_polar * azimuth.cos(), sin_polar * azimuth.sin(), cos_polar);
            m.vertex(n * radius, n, Vec2::new(u, v));
        }
    }
    // Columns go east (+azimuth), rows go north: east x north = outward.
    m.grid_quads(first, ROUND_SEGMENTS + 1, SPHERE_RINGS + 1);
    drop_degenerate(m);
}

/// Removes triangles with two equal corners (at a sphere's poles).
fn drop_degenerate(m: &mut Mesh) {
    let positions = &m.positions;
    let keep: Vec<u32> = m
        .indices
        .chunks_exact(3)
        .filter(|t| {
            let p = |i: u32| Vec3::from_array(positions[i as usize]);
            let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
            (b - a).cross(c - a).length_squared() > 0.0
        })
        .flatten()
        .copied()
        .collect();
    m.indices = keep;
}

fn cylinder(m: &mut Mesh, radius: f32, height: f32) {
    let half = height * 0.5;
    let first = m.positions.len() as u32;
    for (row, z) in [(0.0, -half), (1.0, half)] {
        for seg in 0..=ROUND_SEGMENTS {
            let u = seg as f32 / ROUND_SEGMENTS as f32;
            let n = Vec3::new((TAU * u).cos(), (TAU * u).sin(), 0.0);
            m.vertex(n * radius + Vec3::Z * z, n, Vec2::new(u, row));
        }
    }
    m.grid_quads(first, ROUND_SEGMENTS + 1, 2);
    for (n, z) in [(Vec3::Z, half), (Vec3::NEG_Z, -half)] {
        let center = m.vertex(Vec3::Z * z, n, Vec2::splat(0.5));
        let rim = m.positions.len() as u32;
        for seg in 0..ROUND_SEGMENTS {
            let a = TAU * (seg as f32 / ROUND_SEGMENTS as f32);
            let d = Vec2::new(a.cos(), a.sin());
            m.vertex((d * radius).extend(z), n, d * 0.5 + 0.5);
        }
        for seg in 0..ROUND_SEGMENTS {
            let (a, b) = (rim + seg, rim + (seg + 1) % ROUND_SEGMENTS);
            // Counter-clockwise about +Z for the top cap, clockwise (seen from above) for the bottom.
            let tri = if n.z > 0.0 { [center, a, b] } else { [center, b, a] };
            m.indices.extend_from_slice(&tri);
        }
    }
}

fn heightfield(m: &mut Mesh, size: Vec2, resolution: u32, heights: &[f32]) {
    let res = resolution as usize;
    if res < 2 || heights.len() != res * res {
        return;
    }
    let step = size / (resolution - 1) as f32;
    let h = |i: usize, j: usize| heights[j.min(res - 1) * res + i.min(res - 1)];
    let first = m.positions.len() as u32;
    for j in 0..res {
        for i in 0..res {
            let uv = Vec2::new(i as f32, j as f32) / (res - 1) as f32;
            let xy = (uv - 0.5) * size;
            let (il, ir) = (i.saturating_sub(1), (i + 1).min(res - 1));
            let (jd, ju) = (j.saturating_sub(1), (j + 1).min(res - 1));
            let dzdx = (h(ir, j) - h(il, j)) / ((ir - il) as f32 * step.x);
            let dzdy = (h(i, ju) - h(i, jd)) / ((ju - jd) as f32 * step.y);
            m.vertex(xy.extend(h(i, j)), Vec3::new(-dzdx, -dzdy, 1.0), uv);
        }
    }
    // Columns go +X, rows go +Y: X x Y = +Z, the visible side.
    m.grid_quads(first, resolution, resolution);
}
