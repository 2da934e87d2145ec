//! The viewer's camera and clock: follow the scene's camera path, or fly (W A S D forward, left,
//! back, right; Q E down, up; mouse look while the right button is held; the wheel scales the
//! speed); the scene's time runs, pauses and jumps. The world is Z-up, as the scenes are.

use std::collections::HashSet;

use glam::Vec3;

use super::script::Key;
use crate::scene::{Camera, Scene};

/// Fly speed when the viewer opens, m/s.
pub const DEFAULT_SPEED_M_S: f32 = 4.0;
/// Radians of turn per pixel of mouse movement.
const LOOK_RAD_PER_PX: f32 = 0.004;
/// Speed factor per wheel step.
const SPEED_STEP: f32 = 1.25;
/// Fly speed bounds, m/s.
const SPEED_RANGE_M_S: (f32, f32) = (0.05, 500.0);
/// Pitch bound, radians (just short of straight up or down).
const MAX_PITCH_RAD: f32 = 1.55;
/// Scene time moved by the Left / Right keys, s.
pub const SCRUB_STEP_S: f32 = 1.0;

/// A camera flown by hand: position, heading and pitch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlyCamera {
    /// Eye position, m.
    pub position: Vec3,
    /// Heading around +Z from +X, radians.
    pub yaw_rad: f32,
    /// Above the horizon, radians.
    pub pitch_rad: f32,
    /// Speed, m/s.
    pub speed_m_s: f32,
}

impl FlyCamera {
    /// The fly camera looking as `cam` looks.
    pub fn from_camera(cam: &Camera, speed_m_s: f32) -> FlyCamera {
        let d = (cam.target - cam.position).try_normalize().unwrap_or(Vec3::X);
        FlyCamera {
            position: cam.position,
            yaw_rad: d.y.atan2(d.x),
            pitch_rad: d.z.clamp(-1.0, 1.0).asin().clamp(-MAX_PITCH_RAD, MAX_PITCH_RAD),
            speed_m_s,
        }
    }

    /// The unit view direction.
    pub fn forward(&self) -> Vec3 {
        let (sy, cy) = self.yaw_rad.sin_cos();
        let (sp, cp) = self.pitch_rad.sin_cos();
        Vec3::new(cp * cy, cp * sy, sp)
    }

    /// The scene camera it is, with `like`'s field of view and exposure.
    pub fn camera(&self, like: &Camera) -> Camera {
        Camera { position: self.position, target: self.position + self.forward(), ..*like }
    }
}

/// Which camera the frame uses, the scene's clock, and the input held.
#[derive(Clone, Debug)]
pub struct CameraControl {
    /// Flying (`Some`) or following the scene's camera path.
    pub fly: Option<FlyCamera>,
    /// The scene's time, s.
    pub time_s: f32,
    /// Whether the time runs.
    pub playing: bool,
    /// Fly speed, m/s (kept while following).
    pub speed_m_s: f32,
    held: HashSet<Key>,
    looking: bool,
}

impl Default for CameraControl {
    fn default() -> Self {
        CameraControl {
            fly: None,
            time_s: 0.0,
            playing: true,
            speed_m_s: DEFAULT_SPEED_M_S,
            held: HashSet::new(),
            looking: false,
        }
    }
}

impl CameraControl {
    /// The camera of this frame: the fly camera, or the scene's at the current time.
    pub fn camera(&self, scene: &Scene) -> Camera {
        let path = scene.camera_at(self.time_s);
        match &self.fly {
            Some(fly) => fly.camera(&path),
            None => path,
        }
    }

    /// Whether the scene's camera path is followed.
    pub fn following(&self) -> bool {
        self.fly.is_none()
    }

    /// Follow the path (`true`), or fly from where the camera is now.
    pub fn set_follow(&mut self, follow: bool, scene: &Scene) {
        if follow {
            self.fly = None;
        } else if self.fly.is_none() {
            self.fly = Some(FlyCamera::from_camera(&self.camera(scene), self.speed_m_s));
        }
    }

    /// A key held (`true`) or released; keys that act once act on the press.
    pub fn key(&mut self, key: Key, down: bool, scene: &Scene) {
        if !down {
            self.held.remove(&key);
            return;
        }
        match key {
            Key::W | Key::A | Key::S | Key::D | Key::Q | Key::E => {
                self.held.insert(key);
            }
            Key::Space => self.playing = !self.playing,
            Key::F => self.set_follow(!self.following(), scene),
            Key::R => self.reset(),
            Key::Left => self.time_s = (self.time_s - SCRUB_STEP_S).max(0.0),
            Key::Right => self.time_s += SCRUB_STEP_S,
            Key::Tab | Key::Escape => {}
        }
    }

    /// Back to the scene's camera path, keys released.
    pub fn reset(&mut self) {
        self.fly = None;
        self.held.clear();
        self.looking = false;
    }

    /// Mouse look on (right button held) or off.
    pub fn set_looking(&mut self, looking: bool) {
        self.looking = looking;
    }

    /// Whether mouse look is on.
    pub fn looking(&self) -> bool {
        self.looking
    }

    /// The pointer moved by (dx, dy) pixels: turns the view while looking (leaving the path).
    pub fn look(&mut self, (dx, dy): (f32, f32), scene: &Scene) {
        if !self.looking || (dx == 0.0 && dy == 0.0) {
            return;
        }
        self.set_follow(false, scene);
        if let Some(fly) = self.fly.as_mut() {
            fly.yaw_rad -= dx * LOOK_RAD_PER_PX;
            fly.pitch_rad = (fly.pitch_rad - dy * LOOK_RAD_PER_PX).clamp(-MAX_PITCH_RAD, MAX_PITCH_RAD);
        }
    }

    /// Wheel steps: faster (up) or slower.
    pub fn scroll(&mut self, steps: f32) {
        let speed = self.speed_m_s * SPEED_STEP.powf(steps);
        self.speed_m_s = speed.clamp(SPEED_RANGE_M_S.0, SPEED_RANGE_M_S.1);
        if let Some(fly) = self.fly.as_mut() {
            fly.speed_m_s = self.speed_m_s;
        }
    }

    /// One frame of `dt_s`: moves the fly camera by the held keys (leaving the path when any is
    /// held) and runs the clock when playing.
    pub fn step(&mut self, dt_s: f32, scene: &Scene) {
        let axis = |plus: Key, minus: Key| {
            f32::from(self.held.contains(&plus)) - f32::from(self.held.contains(&minus))
        };
        let (ahead, right, up) = (axis(Key::W, Key::S), axis(Key::D, Key::A), axis(Key::E, Key::Q));
        if ahead != 0.0 || right != 0.0 || up != 0.0 {
            self.set_follow(false, scene);
        }
        if let Some(fly) = self.fly.as_mut() {
            let forward = fly.forward();
            let side = forward.cross(Vec3::Z).try_normalize().unwrap_or(Vec3::Y);
            let motion = forward * ahead + side * right + Vec3::Z * up;
            fly.position += motion * fly.speed_m_s * dt_s;
        }
        if self.playing {
            self.time_s += dt_s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene() -> Scene {
        let text = "[camera]\nposition = [0, 0, 2]\ntarget = [10, 0, 2]\n";
        crate::scene::parse(text, std::path::Path::new("test.toml")).expect("scene")
    }

    #[test]
    fn the_fly_camera_starts_where_the_scene_looks() {
        let s = scene();
        let fly = FlyCamera::from_camera(&s.camera, 1.0);
        assert!((fly.forward() - Vec3::X).length() < 1e-5);
        let cam = fly.camera(&s.camera);
        assert!((cam.target - Vec3::new(1.0, 0.0, 2.0)).length() < 1e-5);
    }

    #[test]
    fn keys_fly_forward_and_up_and_reset_returns_to_the_path() {
        let s = scene();
        let mut c = CameraControl::default();
        c.key(Key::W, true, &s);
        c.key(Key::E, true, &s);
        c.step(0.5, &s);
        let cam = c.camera(&s);
        let moved = DEFAULT_SPEED_M_S * 0.5;
        assert!((cam.position - Vec3::new(moved, 0.0, 2.0 + moved)).length() < 1e-4, "{cam:?}");
        assert!(!c.following());
        c.key(Key::R, true, &s);
        assert!(c.following());
        assert_eq!(c.camera(&s).position, s.camera.position);
    }

    #[test]
    fn mouse_look_turns_only_while_looking_and_the_wheel_scales_speed() {
        let s = scene();
        let mut c = CameraControl::default();
        c.look((100.0, 0.0), &s);
        assert!(c.following(), "no look without the button");
        c.set_looking(true);
        c.look((100.0, 0.0), &s);
        let yaw = c.fly.expect("flying").yaw_rad;
        assert!((yaw + 100.0 * LOOK_RAD_PER_PX).abs() < 1e-6, "{yaw}");
        c.scroll(2.0);
        assert!((c.speed_m_s - DEFAULT_SPEED_M_S * SPEED_STEP * SPEED_STEP).abs() < 1e-4);
    }

    #[test]
    fn the_clock_pauses_plays_and_scrubs() {
        let s = scene();
        let mut c = CameraControl::default();
        c.step(0.25, &s);
        c.key(Key::Space, true, &s);
        c.step(0.25, &s);
        assert_eq!(c.time_s, 0.25);
        c.key(Key::Right, true, &s);
        assert_eq!(c.time_s, 1.25);
        c.key(Key::Left, true, &s);
        c.key(Key::Left, true, &s);
        assert_eq!(c.time_s, 0.0, "never before 0");
    }
}
