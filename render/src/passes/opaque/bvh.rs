//! The opaque geometry's bounding-volume hierarchy, through which `host.opaque` casts a ray per
//! pixel: built once per scene on the CPU over every object's triangles in world space (objects do
//! not move), splitting at the median centroid along the widest axis until a node holds at most
//! [`LEAF_TRIANGLES`]. [`Bvh::cast`] is the CPU twin of the shader's traversal (`raycast.comp`),
//! which the tests hold against a brute-force cast.

use glam::Vec3;

use crate::gpu_types::{GpuBvhNode, GpuRayTriangle};

/// Most triangles in a leaf.
pub const LEAF_TRIANGLES: usize = 4;
/// Deepest a tree can be: `raycast.comp`'s traversal stack (`STACK`) holds one entry per level.
/// Median splits halve every level, so 2^31 triangles would fit.
pub const MAX_DEPTH: usize = 32;
/// `|det|` under which a ray counts as parallel to a triangle (`raycast.comp`'s `PARALLEL`).
const PARALLEL: f32 = 1e-12;

/// One triangle of an object, in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// Corners, m.
    pub p: [Vec3; 3],
    /// Unit normals at the corners.
    pub n: [Vec3; 3],
    /// The object table index.
    pub object: u32,
}

/// The nearest hit of a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Ray parameter (distance in units of the direction's length).
    pub t: f32,
    /// Index into [`Bvh::triangles`].
    pub triangle: usize,
    /// Whether the ray met the side the winding faces (counter-clockwise seen from it).
    pub front: bool,
}

/// The hierarchy as the shader reads it.
#[derive(Clone, Debug, Default)]
pub struct Bvh {
    /// Nodes, the root first; an inner node's children are adjacent.
    pub nodes: Vec<GpuBvhNode>,
    /// The triangles in leaf order.
    pub triangles: Vec<GpuRayTriangle>,
}

impl Bvh {
    /// Builds the hierarchy over `tris` (none: no nodes).
    pub fn build(mut tris: Vec<Triangle>) -> Bvh {
        if tris.is_empty() {
            return Bvh::default();
        }
        let mut nodes = vec![GpuBvhNode::default()];
        let mut pending = vec![(0usize, 0usize, tris.len(), 0usize)];
        while let Some((node, start, end, depth)) = pending.pop() {
            let span = &mut tris[start..end];
            let (lo, hi) = bounds(span.iter().flat_map(|t| t.p));
            let (clo, chi) = bounds(span.iter().map(centroid));
            let extent = chi - clo;
            let axis = if extent.x >= extent.y && extent.x >= extent.z {
                0
            } else if extent.y >= extent.z {
                1
            } else {
                2
            };
            let leaf = span.len() <= LEAF_TRIANGLES || extent[axis] <= 0.0 || depth + 1 >= MAX_DEPTH;
            let (first, count) = if leaf {
                (start, span.len())
            } else {
                let mid = span.len() / 2;
                span.select_nth_unstable_by(mid, |a, b| centroid(a)[axis].total_cmp(&centroid(b)[axis]));
                let left = nodes.len();
                nodes.extend([GpuBvhNode::default(); 2]);
                pending.push((left, start, start + mid, depth + 1));
                pending.push((left + 1, start + mid, end, depth + 1));
                (left, 0)
            };
            nodes[node] = GpuBvhNode {
                lo: lo.extend(0.0).to_array(),
                hi: hi.extend(0.0).to_array(),
                first_count: [first as u32, count as u32, 0, 0],
            };
        }
        let triangles = tris.iter().map(gpu_triangle).collect();
        Bvh { nodes, triangles }
    }

    /// The nearest hit of the ray `origin + t * dir` with `t` in `(0, t_max)`, as `raycast.comp`
    /// finds it (both faces hit; children visited nearest first).
    pub fn cast(&self, origin: Vec3, dir: Vec3, t_max: f32) -> Option<Hit> {
        if self.nodes.is_empty() {
            return None;
        }
        let inv = dir.recip();
        let mut best: Option<Hit> = None;
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            let far = best.map_or(t_max, |h| h.t);
            let n = &self.nodes[i];
            if slab(n, origin, inv).is_none_or(|(near, _)| near >= far) {
                continue;
            }
            let (first, count) = (n.first_count[0] as usize, n.first_count[1] as usize);
            if count > 0 {
                for k in first..first + count {
                    let limit = best.map_or(t_max, |h| h.t);
                    if let Some((t, front)) = intersect(&self.triangles[k], origin, dir, limit) {
                        best = Some(Hit { t, triangle: k, front });
                    }
                }
                continue;
            }
            let near = |c: usize| slab(&self.nodes[c], origin, inv).map_or(f32::INFINITY, |(n, _)| n);
            let (a, b) = (first, first + 1);
            // Pushed far child first, so the near one is visited first.
            if near(a) <= near(b) {
                stack.extend([b, a]);
            } else {
                stack.extend([a, b]);
            }
        }
        best
    }
}

fn centroid(t: &Triangle) -> Vec3 {
    (t.p[0] + t.p[1] + t.p[2]) / 3.0
}

fn bounds(points: impl Iterator<Item = Vec3>) -> (Vec3, Vec3) {
    points.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| (lo.min(p), hi.max(p)))
}

fn gpu_triangle(t: &Triangle) -> GpuRayTriangle {
    GpuRayTriangle {
        p0: t.p[0].extend(t.object as f32).to_array(),
        p1: t.p[1].extend(0.0).to_array(),
        p2: t.p[2].extend(0.0).to_array(),
        n0: t.n[0].extend(0.0).to_array(),
        n1: t.n[1].extend(0.0).to_array(),
        n2: t.n[2].extend(0.0).to_array(),
    }
}

/// The ray's entry and exit parameters of a node's box, if it meets it in front of the origin.
fn slab(n: &GpuBvhNode, origin: Vec3, inv_dir: Vec3) -> Option<(f32, f32)> {
    let lo = (Vec3::from_slice(&n.lo[..3]) - origin) * inv_dir;
    let hi = (Vec3::from_slice(&n.hi[..3]) - origin) * inv_dir;
    let near = lo.min(hi).max_element().max(0.0);
    let far = lo.max(hi).min_element();
    (near <= far).then_some((near, far))
}

/// Moller-Trumbore, both faces: the hit's parameter in `(0, limit)` and whether it is the front.
fn intersect(t: &GpuRayTriangle, origin: Vec3, dir: Vec3, limit: f32) -> Option<(f32, bool)> {
    let p0 = Vec3::from_slice(&t.p0[..3]);
    let e1 = Vec3::from_slice(&t.p1[..3]) - p0;
    let e2 = Vec3::from_slice(&t.p2[..3]) - p0;
    let pv = dir.cross(e2);
    let det = e1.dot(pv);
    if det.abs() < PARALLEL {
        return None;
    }
    let inv = 1.0 / det;
    let tv = origin - p0;
    let u = tv.dot(pv) * inv;
    let qv = tv.cross(e1);
    let v = dir.dot(qv) * inv;
    let hit = e2.dot(qv) * inv;
    (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && hit > 0.0 && hit < limit).then_some((hit, det > 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (no test dependency on `rand`).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn point(&mut self, scale: f32) -> Vec3 {
            Vec3::new(self.next(), self.next(), self.next()) * scale - scale * 0.5
        }
    }

    fn random_triangles(rng: &mut Lcg, n: usize) -> Vec<Triangle> {
        (0..n)
            .map(|i| {
                let c = rng.point(20.0);
                let p = [c + rng.point(2.0), c + rng.point(2.0), c + rng.point(2.0)];
                Triangle { p, n: [Vec3::Z; 3], object: i as u32 }
            })
            .collect()
    }

    fn brute_force(tris: &[GpuRayTriangle], origin: Vec3, dir: Vec3) -> Option<f32> {
        tris.iter()
            .filter_map(|t| intersect(t, origin, dir, f32::INFINITY))
            .map(|(t, _)| t)
            .min_by(f32::total_cmp)
    }

    #[test]
    fn the_hierarchy_finds_the_nearest_hit_the_brute_force_cast_finds() {
        let mut rng = Lcg(7);
        let bvh = Bvh::build(random_triangles(&mut rng, 500));
        assert_eq!(bvh.triangles.len(), 500);
        let mut hits = 0;
        for _ in 0..2000 {
            let origin = rng.point(40.0);
            let dir = (rng.point(2.0)).normalize_or(Vec3::X);
            let want = brute_force(&bvh.triangles, origin, dir);
            let got = bvh.cast(origin, dir, f32::INFINITY).map(|h| h.t);
            assert_eq!(got, want, "ray from {origin} along {dir}");
            hits += usize::from(got.is_some());
        }
        assert!(hits > 50, "the rays meet the triangles often enough to test ({hits} of 2000)");
    }

    #[test]
    fn leaves_hold_every_triangle_once_and_boxes_hold_their_triangles() {
        let bvh = Bvh::build(random_triangles(&mut Lcg(3), 300));
        let mut seen = vec![0u32; bvh.triangles.len()];
        let mut stack = vec![(0usize, 0usize)];
        let mut deepest = 0;
        while let Some((i, depth)) = stack.pop() {
            deepest = deepest.max(depth);
            let n = &bvh.nodes[i];
            let (lo, hi) = (Vec3::from_slice(&n.lo[..3]), Vec3::from_slice(&n.hi[..3]));
            let (first, count) = (n.first_count[0] as usize, n.first_count[1] as usize);
            if count == 0 {
                for c in [first, first + 1] {
                    let m = &bvh.nodes[c];
                    assert!(Vec3::from_slice(&m.lo[..3]).cmpge(lo).all(), "child inside parent");
                    assert!(Vec3::from_slice(&m.hi[..3]).cmple(hi).all(), "child inside parent");
                    stack.push((c, depth + 1));
                }
                continue;
            }
            assert!(count <= LEAF_TRIANGLES, "leaf of {count}");
            for t in &bvh.triangles[first..first + count] {
                seen[t.p0[3] as usize] += 1;
                for p in [&t.p0, &t.p1, &t.p2] {
                    let p = Vec3::from_slice(&p[..3]);
                    assert!(p.cmpge(lo).all() && p.cmple(hi).all(), "{p} in {lo}..{hi}");
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1), "each triangle in one leaf");
        assert!(deepest <= 8, "median splits of 300 triangles: depth {deepest}");
    }

    #[test]
    fn the_winding_decides_the_front_face() {
        let t = Triangle { p: [Vec3::ZERO, Vec3::X, Vec3::Y], n: [Vec3::Z; 3], object: 0 };
        let bvh = Bvh::build(vec![t]);
        let above = bvh.cast(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z, 10.0).expect("hit from above");
        let below = bvh.cast(Vec3::new(0.2, 0.2, -1.0), Vec3::Z, 10.0).expect("hit from below");
        assert!(above.front && !below.front);
        assert_eq!((above.t, below.t), (1.0, 1.0));
        assert!(bvh.cast(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z, 0.5).is_none(), "beyond t_max");
        assert!(bvh.cast(Vec3::new(0.8, 0.8, 1.0), Vec3::NEG_Z, 10.0).is_none(), "outside the triangle");
    }

    /// Every pixel ray of a showcase scene's camera (at 64x36) meets in the hierarchy what it meets
    /// in a brute-force cast over the same triangles, and most of them meet something.
    #[test]
    fn a_showcase_scene_casts_as_brute_force_does() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/fog_machine.toml");
        let scene = crate::scene::load(&path).expect("scene");
        let bvh = Bvh::build(crate::world::scene_triangles(&scene));
        let cam = scene.camera_at(0.0);
        let (w, h) = (64, 36);
        let view = crate::view::CameraView::new(cam.position, cam.target, cam.fov_y_deg, w as f32 / h as f32);
        let world_from_clip = view.clip_from_world.inverse();
        let mut hits = 0;
        for y in 0..h {
            for x in 0..w {
                let ndc =
                    glam::Vec2::new((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32) * 2.0 - 1.0;
                let dir = world_from_clip.project_point3(ndc.extend(0.5)) - view.position;
                let want = brute_force(&bvh.triangles, view.position, dir);
                let got = bvh.cast(view.position, dir, f32::INFINITY).map(|h| h.t);
                assert_eq!(got, want, "pixel {x},{y}");
                hits += usize::from(got.is_some());
            }
        }
        assert!(hits > w * h / 2, "{hits} of {} pixels show a surface", w * h);
    }

    #[test]
    fn an_empty_scene_has_no_nodes_and_no_hits() {
        let bvh = Bvh::build(Vec::new());
        assert!(bvh.nodes.is_empty() && bvh.cast(Vec3::ZERO, Vec3::X, 1.0).is_none());
    }
}
