//! Distance throttling of bursts (`LLViewerPartSourceScript::update`, `llviewerpartsource.cpp`),
//! active only when the simulation has a [`Camera`].
//!
//! `max_short_side` is the largest "shorter side" of the start, end and mean particle size;
//! `max_dist = max_short_side * pixels_per_metre`. A burst is skipped when `max_dist < 0.25`
//! (sub-pixel particles). Beyond `max_dist`, with `travel = (dist - max_dist) * min(ref_rate, 1)`,
//! the burst is skipped when `travel > max_age - 0.2`, else each candidate is dropped with
//! probability at least `travel / max_age`. `ref_rate` is the viewer's adaptive reference rate
//! (see [`super::budget`]).

use glam::Vec3;

use crate::types::PartSysData;

/// Below this many pixels (at `max_dist`) particles are not worth emitting.
const SUB_PIXEL_MAX_DIST: f32 = 0.25;
/// Particles must be visible for at least this long, seconds.
const MIN_VISIBLE_S: f32 = 0.2;
/// The reference rate used is capped at this.
const MAX_TRAVEL_RATE: f32 = 1.0;

/// The viewer camera, for distance throttling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Camera position, region metres.
    pub position: Vec3,
    /// Pixels per metre at 1 m distance: `viewport_height / (2 tan(fov_y / 2))`.
    pub pixels_per_metre: f32,
}

impl Camera {
    /// A camera at `position` with a viewport `viewport_height_px` pixels high and a vertical
    /// field of view of `fov_y_rad` radians.
    pub fn from_viewport(position: Vec3, viewport_height_px: f32, fov_y_rad: f32) -> Self {
        Camera { position, pixels_per_metre: viewport_height_px / (2.0 * (0.5 * fov_y_rad).tan()) }
    }
}

/// What distance throttling allows for one burst.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Throttle {
    /// Skip this and the remaining bursts of the frame.
    Skip,
    /// Emit, dropping each candidate with at least this probability.
    DropAtLeast(f32),
}

/// The throttle for a burst of `sys` at `source` seen from `camera` (no camera: no throttle).
pub fn burst_throttle(sys: &PartSysData, source: Vec3, camera: Option<&Camera>, ref_rate: f32) -> Throttle {
    let Some(cam) = camera else {
        return Throttle::DropAtLeast(0.0);
    };
    let (s, e) = (sys.part.start_scale, sys.part.end_scale);
    let mean = 0.5 * (s + e);
    let max_short_side = s.min_element().max(e.min_element()).max(mean.min_element());
    let max_dist = max_short_side * cam.pixels_per_metre;
    if max_dist < SUB_PIXEL_MAX_DIST {
        return Throttle::Skip;
    }
    let beyond = (source - cam.position).length() - max_dist;
    if beyond <= 0.0 {
        return Throttle::DropAtLeast(0.0);
    }
    let travel = beyond * ref_rate.min(MAX_TRAVEL_RATE);
    let max_age = sys.part.max_age;
    if travel > max_age - MIN_VISIBLE_S {
        Throttle::Skip
    } else {
        Throttle::DropAtLeast(travel / max_age)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    fn sys(scale: f32, max_age: f32) -> PartSysData {
        let mut s = PartSysData::default();
        s.part.start_scale = Vec2::splat(scale);
        s.part.end_scale = Vec2::splat(scale);
        s.part.max_age = max_age;
        s
    }

    #[test]
    fn no_camera_no_throttle() {
        assert_eq!(burst_throttle(&sys(1.0, 10.0), Vec3::ZERO, None, 0.0625), Throttle::DropAtLeast(0.0));
    }

    #[test]
    fn near_sources_are_untouched_far_ones_thinned_then_skipped() {
        // 0.5 m particles at 100 px/m are visible out to 50 m.
        let cam = Camera { position: Vec3::ZERO, pixels_per_metre: 100.0 };
        let s = sys(0.5, 10.0);
        let at = |d: f32| burst_throttle(&s, Vec3::new(d, 0.0, 0.0), Some(&cam), 0.0625);
        assert_eq!(at(40.0), Throttle::DropAtLeast(0.0));
        // 80 m: 30 m beyond, travel 30 * 0.0625 = 1.875 s, drop 1.875 / 10.
        assert_eq!(at(80.0), Throttle::DropAtLeast(0.1875));
        // 250 m: travel 12.5 s exceeds 10 - 0.2 s: skip.
        assert_eq!(at(250.0), Throttle::Skip);
    }

    #[test]
    fn sub_pixel_particles_are_skipped() {
        let cam = Camera { position: Vec3::ZERO, pixels_per_metre: 10.0 };
        assert_eq!(burst_throttle(&sys(0.02, 10.0), Vec3::ZERO, Some(&cam), 0.0625), Throttle::Skip);
    }

    #[test]
    fn pixels_per_metre_follow_the_viewport() {
        let cam = Camera::from_viewport(Vec3::ZERO, 1000.0, std::f32::consts::FRAC_PI_2);
        assert!((cam.pixels_per_metre - 500.0).abs() < 1e-3);
    }
}
