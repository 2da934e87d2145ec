//! View maths: the camera's transforms, stable cascaded sun shadows, and the views of spot,
//! projector and point lights. Second Life convention: Z up, metres. Clip space is Vulkan's (y down,
//! depth 0..1): the camera projection flips y so the world's up is the image's up.
//!
//! Cascades use the "practical" split scheme (a blend of logarithmic and uniform splits, Zhang et al.
//! 2006, as in most shipped engines) and fit each slice with a bounding sphere whose centre is
//! snapped to the shadow map's texel grid, so shadows do not shimmer as the camera moves.

use glam::{Mat4, Vec3, Vec4};

/// Camera near plane, m.
pub const CAMERA_NEAR_M: f32 = 0.1;
/// Camera far plane, m.
pub const CAMERA_FAR_M: f32 = 2000.0;
/// Sun cascades.
pub const CASCADES: usize = 4;
/// Shadowed distance from the camera covered by the sun cascades at least, m.
pub const SUN_SHADOW_DISTANCE_M: f32 = 80.0;
/// The most the cascades stretch to cover the froxel fog's range, m: beyond it the four 2048²
/// cascades would lose too much near resolution (at 128 m the first one already ends at 8.5 m
/// instead of 5.4 m). Fog beyond it is treated as sunlit (the distance fallback).
pub const SUN_SHADOW_MAX_DISTANCE_M: f32 = 128.0;
/// Blend between logarithmic (1) and uniform (0) cascade splits.
pub const CASCADE_SPLIT_LAMBDA: f32 = 0.75;
/// How far behind a cascade (toward the sun) casters are still captured, m.
pub const SUN_CASTER_BACKOFF_M: f32 = 150.0;
/// Near plane of local-light shadow views, m.
pub const LIGHT_NEAR_M: f32 = 0.05;

/// The camera's transforms for one frame.
#[derive(Clone, Copy, Debug)]
pub struct CameraView {
    /// Eye position, m.
    pub position: Vec3,
    /// Unit view direction.
    pub forward: Vec3,
    /// Unit right vector.
    pub right: Vec3,
    /// Unit up vector.
    pub up: Vec3,
    /// Vertical field of view, radians.
    pub fov_y: f32,
    /// Width / height.
    pub aspect: f32,
    /// World to clip.
    pub clip_from_world: Mat4,
}

impl CameraView {
    /// A camera at `position` looking at `target` with a vertical field of view in degrees.
    pub fn new(position: Vec3, target: Vec3, fov_y_deg: f32, aspect: f32) -> CameraView {
        let forward = (target - position).try_normalize().unwrap_or(Vec3::X);
        let up_hint = if forward.z.abs() > 0.999 { Vec3::Y } else { Vec3::Z };
        let right = forward.cross(up_hint).normalize();
        let up = right.cross(forward);
        let fov_y = fov_y_deg.to_radians();
        let view = Mat4::look_at_rh(position, position + forward, up);
        let proj = Mat4::perspective_rh(fov_y, aspect, CAMERA_NEAR_M, CAMERA_FAR_M);
        let flip_y = Mat4::from_scale(Vec3::new(1.0, -1.0, 1.0));
        CameraView { position, forward, right, up, fov_y, aspect, clip_from_world: flip_y * proj * view }
    }

    /// The eight world-space corners of the view frustum between view depths `near` and `far`.
    pub fn slice_corners(&self, near: f32, far: f32) -> [Vec3; 8] {
        let tan = (self.fov_y * 0.5).tan();
        let mut out = [Vec3::ZERO; 8];
        for (i, d) in [near, far].into_iter().enumerate() {
            let centre = self.position + self.forward * d;
            let (h, w) = (d * tan, d * tan * self.aspect);
            for (j, (sx, sy)) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)].into_iter().enumerate()
            {
                out[i * 4 + j] = centre + self.right * (w * sx) + self.up * (h * sy);
            }
        }
        out
    }
}

/// One sun cascade: its transform and the view depth where it ends.
#[derive(Clone, Copy, Debug)]
pub struct Cascade {
    /// World to the cascade's clip space.
    pub clip_from_world: Mat4,
    /// View depth (m) at the far end of the slice.
    pub far_m: f32,
    /// World size of one shadow-map texel, m.
    pub texel_m: f32,
}

/// Split depths (far end of each slice) between the camera near plane and `max_distance`.
pub fn cascade_splits(count: usize, max_distance: f32, lambda: f32) -> Vec<f32> {
    let (n, f) = (CAMERA_NEAR_M, max_distance);
    (1..=count)
        .map(|i| {
            let p = i as f32 / count as f32;
            lambda * n * (f / n).powf(p) + (1.0 - lambda) * (n + (f - n) * p)
        })
        .collect()
}

/// The distance the sun cascades cover: [`SUN_SHADOW_DISTANCE_M`], stretched to the froxel fog's
/// range (`fog_range_m`, when the fog is on) up to [`SUN_SHADOW_MAX_DISTANCE_M`], so fog is not
/// treated as lit between the last cascade and the grid's far end.
pub fn sun_shadow_distance_m(fog_range_m: Option<f32>) -> f32 {
    let fog = fog_range_m.filter(|r| r.is_finite()).unwrap_or(0.0);
    fog.clamp(SUN_SHADOW_DISTANCE_M, SUN_SHADOW_MAX_DISTANCE_M)
}

/// Stable cascades for a sun shining from `to_sun` (unit vector toward the sun), covering view
/// depths up to `distance_m`.
pub fn sun_cascades(camera: &CameraView, to_sun: Vec3, atlas_size: u32, distance_m: f32) -> Vec<Cascade> {
    let to_sun = to_sun.try_normalize().unwrap_or(Vec3::Z);
    let up = if to_sun.z.abs() > 0.999 { Vec3::Y } else { Vec3::Z };
    let rotation = Mat4::look_at_rh(Vec3::ZERO, -to_sun, up);
    let mut near = CAMERA_NEAR_M;
    cascade_splits(CASCADES, distance_m, CASCADE_SPLIT_LAMBDA)
        .into_iter()
        .map(|far| {
            let corners = camera.slice_corners(near, far);
            near = far;
            let centre = corners.iter().copied().sum::<Vec3>() / 8.0;
            let radius = corners.iter().map(|c| c.distance(centre)).fold(0.0, f32::max);
            // Quantise the radius so the texel size stays fixed as the camera turns.
            let radius = (radius * 2.0).ceil() * 0.5;
            let texel_m = 2.0 * radius / atlas_size as f32;
            let ls = rotation.transform_point3(centre);
            let (cx, cy) = ((ls.x / texel_m).floor() * texel_m, (ls.y / texel_m).floor() * texel_m);
            let proj = Mat4::orthographic_rh(
                cx - radius,
                cx + radius,
                cy - radius,
                cy + radius,
                -(ls.z + radius + SUN_CASTER_BACKOFF_M),
                -(ls.z - radius),
            );
            Cascade { clip_from_world: proj * rotation, far_m: far, texel_m }
        })
        .collect()
}

/// A perspective light view (spot, projector) from `position` along `direction`.
pub fn spot_view(position: Vec3, direction: Vec3, up_hint: Vec3, fov_y: f32, range: f32) -> Mat4 {
    let dir = direction.try_normalize().unwrap_or(-Vec3::Z);
    let up = if dir.cross(up_hint).length_squared() < 1e-6 { dir.any_orthonormal_vector() } else { up_hint };
    let view = Mat4::look_at_rh(position, position + dir, up);
    Mat4::perspective_rh(fov_y.clamp(1e-3, 3.1), 1.0, LIGHT_NEAR_M, range.max(LIGHT_NEAR_M * 2.0)) * view
}

/// The six 90-degree views of a point light, in the order the shaders select faces:
/// +X, -X, +Y, -Y, +Z, -Z.
pub fn point_faces(position: Vec3, range: f32) -> [Mat4; 6] {
    std::array::from_fn(|face| point_face(position, range, face))
}

/// Face `face` (0..6, order as [`point_faces`]) of a point light.
pub fn point_face(position: Vec3, range: f32, face: usize) -> Mat4 {
    const DIRS: [Vec3; 6] = [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z];
    let d = DIRS[face % 6];
    let up = if d.z.abs() > 0.5 { Vec3::Y } else { Vec3::Z };
    spot_view(position, d, up, std::f32::consts::FRAC_PI_2, range)
}

/// Projects a world point with `clip_from_world`: (uv in 0..1 with v down, depth 0..1).
pub fn project(clip_from_world: Mat4, p: Vec3) -> (glam::Vec2, f32) {
    let c: Vec4 = clip_from_world * p.extend(1.0);
    let ndc = c.truncate() / c.w;
    (ndc.truncate() * 0.5 + 0.5, ndc.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camera_projects_up_to_the_top_of_the_image() {
        let cam = CameraView::new(Vec3::new(0.0, -10.0, 2.0), Vec3::new(0.0, 0.0, 2.0), 60.0, 16.0 / 9.0);
        let (above, _) = project(cam.clip_from_world, Vec3::new(0.0, 0.0, 4.0));
        let (below, _) = project(cam.clip_from_world, Vec3::new(0.0, 0.0, 0.0));
        let (right, _) = project(cam.clip_from_world, Vec3::new(2.0, 0.0, 2.0));
        assert!(above.y < 0.5 && below.y > 0.5, "v grows downward: above {above}, below {below}");
        assert!(right.x > 0.5, "+X is to the right when looking along +Y");
        let (centre, depth) = project(cam.clip_from_world, Vec3::new(0.0, 0.0, 2.0));
        assert!((centre - glam::Vec2::splat(0.5)).length() < 1e-5 && (0.0..1.0).contains(&depth));
    }

    #[test]
    fn splits_grow_and_end_at_the_shadow_distance() {
        let s = cascade_splits(4, 80.0, 0.75);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert!((s[3] - 80.0).abs() < 1e-3);
        assert!(s[0] < 80.0 / 4.0, "log-weighted first split is nearer than uniform: {s:?}");
    }

    #[test]
    fn every_point_of_a_slice_falls_inside_its_cascade() {
        let cam = CameraView::new(Vec3::new(3.0, -20.0, 5.0), Vec3::new(0.0, 10.0, 0.0), 55.0, 1.5);
        let cascades = sun_cascades(&cam, Vec3::new(0.3, -0.4, 0.8).normalize(), 2048, 96.0);
        let mut near = CAMERA_NEAR_M;
        for c in &cascades {
            for p in cam.slice_corners(near, c.far_m) {
                let (uv, z) = project(c.clip_from_world, p);
                assert!(uv.min_element() >= 0.0 && uv.max_element() <= 1.0, "{p} -> {uv}");
                assert!((0.0..=1.0).contains(&z), "{p} depth {z}");
            }
            near = c.far_m;
        }
    }

    #[test]
    fn casters_toward_the_sun_are_nearer_in_the_cascade() {
        let cam = CameraView::new(Vec3::new(0.0, -10.0, 2.0), Vec3::ZERO, 60.0, 1.0);
        let sun = Vec3::new(0.0, 0.0, 1.0);
        let c = sun_cascades(&cam, sun, 1024, SUN_SHADOW_DISTANCE_M)[0];
        let (_, ground) = project(c.clip_from_world, Vec3::new(0.0, -9.0, 0.0));
        let (_, roof) = project(c.clip_from_world, Vec3::new(0.0, -9.0, 3.0));
        assert!(roof < ground, "a roof above the ground is closer to the sun: {roof} vs {ground}");
    }

    #[test]
    fn cascades_do_not_shimmer_when_the_camera_slides_by_less_than_a_texel() {
        let a = CameraView::new(Vec3::new(0.0, -10.0, 2.0), Vec3::new(0.0, 0.0, 2.0), 60.0, 1.5);
        let b = CameraView::new(Vec3::new(0.001, -10.0, 2.0), Vec3::new(0.001, 0.0, 2.0), 60.0, 1.5);
        let sun = Vec3::new(0.2, 0.3, 0.9).normalize();
        let (ca, cb) = (sun_cascades(&a, sun, 2048, 80.0), sun_cascades(&b, sun, 2048, 80.0));
        for (x, y) in ca.iter().zip(&cb) {
            let (ua, _) = project(x.clip_from_world, Vec3::new(1.0, 2.0, 0.0));
            let (ub, _) = project(y.clip_from_world, Vec3::new(1.0, 2.0, 0.0));
            let texels = (ua - ub).abs().max_element() * 2048.0;
            assert!(texels < 1e-3 || (texels - 1.0).abs() < 1e-2, "moved {texels} texels");
        }
    }

    #[test]
    fn cascades_reach_the_fog_range_within_their_bounds() {
        assert_eq!(sun_shadow_distance_m(None), SUN_SHADOW_DISTANCE_M);
        assert_eq!(sun_shadow_distance_m(Some(16.0)), SUN_SHADOW_DISTANCE_M);
        assert_eq!(sun_shadow_distance_m(Some(96.0)), 96.0);
        assert_eq!(sun_shadow_distance_m(Some(1024.0)), SUN_SHADOW_MAX_DISTANCE_M);
        assert_eq!(sun_shadow_distance_m(Some(f32::NAN)), SUN_SHADOW_DISTANCE_M);
        let cam = CameraView::new(Vec3::ZERO, Vec3::Y, 60.0, 1.5);
        let cascades = sun_cascades(&cam, Vec3::Z, 2048, sun_shadow_distance_m(Some(96.0)));
        assert!((cascades[CASCADES - 1].far_m - 96.0).abs() < 1e-3);
        let (uv, z) = project(cascades[CASCADES - 1].clip_from_world, Vec3::new(0.0, 95.0, 1.0));
        assert!(uv.min_element() >= 0.0 && uv.max_element() <= 1.0 && (0.0..=1.0).contains(&z));
    }

    #[test]
    fn point_faces_cover_their_axis() {
        let faces = point_faces(Vec3::new(1.0, 2.0, 3.0), 10.0);
        let dirs = [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
        for (m, d) in faces.iter().zip(dirs) {
            let (uv, z) = project(*m, Vec3::new(1.0, 2.0, 3.0) + d * 5.0);
            assert!((uv - glam::Vec2::splat(0.5)).length() < 1e-4 && (0.0..1.0).contains(&z));
        }
    }
}
