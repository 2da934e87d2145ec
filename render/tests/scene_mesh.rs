//! Mesh generation: closed shapes are watertight, wound counter-clockwise seen from outside and
//! enclose the analytic volume; normals are unit and point outward; planes and heightfields face +Z
//! (Second Life is Z-up).

use std::collections::HashMap;
use std::f32::consts::PI;

use glam::{Vec2, Vec3};
use render::scene::{mesh_for, Mesh, Shape};

/// Grid for matching positions shared by split vertices, 1/m.
const QUANTUM_PER_M: f32 = 1e4;

fn p(m: &Mesh, i: u32) -> Vec3 {
    Vec3::from_array(m.positions[i as usize])
}

fn triangles(m: &Mesh) -> impl Iterator<Item = [u32; 3]> + '_ {
    m.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]])
}

fn face_normal(m: &Mesh, t: [u32; 3]) -> Vec3 {
    (p(m, t[1]) - p(m, t[0])).cross(p(m, t[2]) - p(m, t[0]))
}

fn assert_well_formed(m: &Mesh) {
    let n = m.positions.len();
    assert!(n > 0 && m.normals.len() == n && m.uvs.len() == n);
    assert!(m.indices.len().is_multiple_of(3) && !m.indices.is_empty());
    assert!(m.indices.iter().all(|&i| (i as usize) < n), "index out of bounds");
    for (i, nrm) in m.normals.iter().enumerate() {
        let l = Vec3::from_array(*nrm).length();
        assert!((l - 1.0).abs() < 1e-4, "normal {i} has length {l}");
    }
    assert!(m.uvs.iter().flatten().all(|c| (0.0..=1.0).contains(c)), "uv outside 0..1");
    for t in triangles(m) {
        assert!(face_normal(m, t).length() > 0.0, "degenerate triangle {t:?}");
    }
}

/// Every edge (by position) is used exactly twice, once in each direction: closed and consistently
/// oriented.
fn assert_closed(m: &Mesh) {
    let key = |i: u32| (p(m, i) * QUANTUM_PER_M).round().as_ivec3().to_array();
    let mut edges: HashMap<([i32; 3], [i32; 3]), i32> = HashMap::new();
    for t in triangles(m) {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            *edges.entry((key(a), key(b))).or_default() += 1;
        }
    }
    for ((a, b), count) in &edges {
        assert_eq!(*count, 1, "edge {a:?}->{b:?} used {count} times in one direction");
        assert_eq!(edges.get(&(*b, *a)), Some(&1), "edge {a:?}->{b:?} has no opposite: open mesh");
    }
}

/// Volume by the divergence theorem; positive when triangles wind counter-clockwise from outside.
fn signed_volume(m: &Mesh) -> f32 {
    triangles(m).map(|t| p(m, t[0]).dot(p(m, t[1]).cross(p(m, t[2]))) / 6.0).sum()
}

/// For a convex shape centred on the origin: every face normal points away from the centre and
/// agrees with its vertex normals.
fn assert_outward(m: &Mesh) {
    for t in triangles(m) {
        let n = face_normal(m, t);
        let centroid = (p(m, t[0]) + p(m, t[1]) + p(m, t[2])) / 3.0;
        assert!(n.dot(centroid) > 0.0, "triangle {t:?} faces inward");
        for &i in &t {
            assert!(n.dot(Vec3::from_array(m.normals[i as usize])) > 0.0, "vertex normal {i} disagrees");
        }
    }
}

#[test]
fn plane_faces_plus_z_with_the_given_size() {
    let m = mesh_for(&Shape::Plane { size: Vec2::new(4.0, 2.0) });
    assert_well_formed(&m);
    assert_eq!(m.triangle_count(), 2);
    for t in triangles(&m) {
        let n = face_normal(&m, t).normalize();
        assert!((n - Vec3::Z).length() < 1e-6, "winding faces {n}");
    }
    assert!(m.normals.iter().all(|n| *n == [0.0, 0.0, 1.0]));
    let max = m.positions.iter().fold(Vec3::splat(f32::MIN), |a, q| a.max(Vec3::from_array(*q)));
    let min = m.positions.iter().fold(Vec3::splat(f32::MAX), |a, q| a.min(Vec3::from_array(*q)));
    assert_eq!((min, max), (Vec3::new(-2.0, -1.0, 0.0), Vec3::new(2.0, 1.0, 0.0)));
    let area: f32 = triangles(&m).map(|t| face_normal(&m, t).length() / 2.0).sum();
    assert!((area - 8.0).abs() < 1e-5);
}

#[test]
fn box_is_closed_outward_with_its_exact_volume() {
    let size = Vec3::new(1.0, 2.0, 3.0);
    let m = mesh_for(&Shape::Box { size });
    assert_well_formed(&m);
    assert_closed(&m);
    assert_outward(&m);
    assert_eq!((m.positions.len(), m.triangle_count()), (24, 12));
    assert!((signed_volume(&m) - 6.0).abs() < 1e-5, "{}", signed_volume(&m));
    // Hard edges: each vertex normal is an axis, and the vertex lies on that face.
    for (q, n) in m.positions.iter().zip(&m.normals) {
        let (q, n) = (Vec3::from_array(*q), Vec3::from_array(*n));
        assert!((q.dot(n) - (size * 0.5).dot(n.abs())).abs() < 1e-6, "vertex {q} not on face {n}");
    }
}

#[test]
fn sphere_normals_are_normalised_positions() {
    let r = 2.5;
    let m = mesh_for(&Shape::Sphere { radius: r });
    assert_well_formed(&m);
    assert_closed(&m);
    assert_outward(&m);
    for (q, n) in m.positions.iter().zip(&m.normals) {
        let q = Vec3::from_array(*q);
        assert!((q.length() - r).abs() < 1e-4);
        assert!((q.normalize() - Vec3::from_array(*n)).length() < 1e-5);
    }
    let exact = 4.0 / 3.0 * PI * r * r * r;
    let v = signed_volume(&m);
    assert!(v < exact && v > 0.97 * exact, "inscribed volume {v} vs {exact}");
}

#[test]
fn cylinder_is_closed_along_z() {
    let (r, h) = (0.5, 3.0);
    let m = mesh_for(&Shape::Cylinder { radius: r, height: h });
    assert_well_formed(&m);
    assert_closed(&m);
    assert_outward(&m);
    for q in &m.positions {
        let q = Vec3::from_array(*q);
        assert!(q.z.abs() <= h / 2.0 + 1e-6 && q.truncate().length() <= r + 1e-6);
    }
    let exact = PI * r * r * h;
    let v = signed_volume(&m);
    assert!(v < exact && v > 0.98 * exact, "{v} vs {exact}");
}

#[test]
fn heightfield_faces_up_and_follows_its_heights() {
    // z = 0.5 x over a 4 x 2 m grid of 5 x 3 samples: a tilted plane.
    let (res, size) = (5u32, Vec2::new(4.0, 2.0));
    let mut heights = Vec::new();
    for _j in 0..3 {
        for i in 0..res {
            heights.push(0.5 * (i as f32 - 2.0));
        }
    }
    // A non-square sample count is not a valid heightfield: no triangles, no panic.
    let odd = mesh_for(&Shape::Heightfield { size, resolution: res, heights: heights.clone() });
    assert!(odd.indices.is_empty());
    let heights: Vec<f32> = (0..res * res).map(|k| 0.5 * ((k % res) as f32 - 2.0)).collect();
    let m = mesh_for(&Shape::Heightfield { size, resolution: res, heights });
    assert_well_formed(&m);
    assert_eq!((m.positions.len(), m.triangle_count()), (25, 32));
    let expected_normal = Vec3::new(-0.5, 0.0, 1.0).normalize();
    for t in triangles(&m) {
        let n = face_normal(&m, t).normalize();
        assert!((n - expected_normal).length() < 1e-5, "face normal {n}");
    }
    for (q, n) in m.positions.iter().zip(&m.normals) {
        let q = Vec3::from_array(*q);
        assert!((q.z - 0.5 * q.x).abs() < 1e-5, "vertex {q} off the plane");
        assert!((Vec3::from_array(*n) - expected_normal).length() < 1e-5);
        assert!(q.x.abs() <= 2.0 + 1e-6 && q.y.abs() <= 1.0 + 1e-6);
    }
}
