//! Which particle systems of a scene become fog this frame, and by how much: the classifier (crate
//! `fog`, with its hysteresis and cross-fade) driven by the live settings, times a distance fade
//! at `RenderVKParticleFogRange`, times a demotion fade when the brick budget would overflow.
//!
//! Per frame the CPU works per system only: the classifier re-evaluates a system when its inputs
//! or the settings change (never otherwise), the fades move at the classifier's cross-fade rate,
//! and one [`GpuFogSource`] per system goes to the GPU. With `RenderVKParticleFog` off every
//! weight is 0 (the classifier keeps running so a system switched back on fades in, never pops).

use assetstats::TextureStats;
use fog::classify::hysteresis::CROSSFADE_PER_S;
use fog::overrides_file::OverridesFile;
use fog::report::{texture_context, ReportInput, UnknownTexturePolicy};
use fog::{Classifier, Override, SystemContext, SystemKey};
use glam::Vec3;
use settings::Settings;

use crate::gpu_types::GpuFogSource;
use crate::particle_fog::pool::fog_source;
use crate::particle_fog::scene_inputs::{report_input, scene_texture_stats};
use crate::scene::Scene;

/// Width of the distance fade at the far end of `RenderVKParticleFogRange`, as a fraction of it.
pub const RANGE_FADE_FRACTION: f32 = 0.125;
/// Bricks in use above this fraction of the budget count as pressure (systems are demoted).
pub const PRESSURE_FRACTION: f32 = 0.85;
/// Below this fraction of the budget, a demoted system may come back...
pub const CALM_FRACTION: f32 = 0.5;
/// ...after this many calm frames in a row.
pub const CALM_FRAMES: u32 = 30;

/// One system's fixed inputs.
#[derive(Clone, Debug)]
struct SystemInputs {
    input: ReportInput,
    context: SystemContext,
    tex_mean_alpha: f32,
    tint: [f32; 3],
}

/// Last frame's brick use, as the demotion reads it.
#[derive(Clone, Copy, Debug, Default)]
pub struct BrickPressure {
    /// Bricks in use.
    pub used: u32,
    /// Bricks the budget holds.
    pub capacity: u32,
    /// Requests that found no free brick.
    pub failures: u32,
}

/// The fog state of every system, indexed by its particle pool slot: a scene's in
/// `scene.particles` order ([`FogSystems::for_scene`]), an embedding viewer's as it adds and
/// removes them ([`FogSystems::insert`], [`FogSystems::remove`]).
#[derive(Default)]
pub struct FogSystems {
    systems: Vec<Option<SystemInputs>>,
    classifier: Classifier<usize>,
    /// Each system's classifier weight, refreshed where the classifier moved it (a dense copy: the
    /// classifier's own per-system state is hundreds of bytes a system, out of cache each frame).
    classified: Vec<f32>,
    demoted: Vec<bool>,
    demotion: Vec<f32>,
    /// 1 while the system is present, fading to 0 once it is removed (its carriers fade out
    /// rather than pop).
    presence: Vec<f32>,
    removed: Vec<bool>,
    weights: Vec<f32>,
    /// Each system's [`billboard_match`] at its distance this frame.
    matches: Vec<f32>,
    settings: Option<Settings>,
    settings_version: u64,
    calm_frames: u32,
    /// The system drawn in its debug colour whatever the debug view (a viewer's selection).
    highlight: Option<usize>,
}

impl FogSystems {
    /// The systems of `scene`, with its textures' statistics (a texture that cannot be read
    /// leaves its systems billboards, as `classify --scene` reports).
    pub fn for_scene(scene: &Scene) -> FogSystems {
        let stats = scene_texture_stats(&scene.textures);
        let mut systems = FogSystems::default();
        for (i, p) in scene.particles.iter().enumerate() {
            let own = report_input(p);
            let measured = stats.get(&own.texture).cloned();
            let lookup = |name: &str| stats.get(name).map(fog::TextureVerdict::from);
            systems.insert_with(i, own, measured, p.texture.is_none(), lookup);
        }
        systems
    }

    /// Adds (or replaces) the system in slot `index`: its classification input and its texture's
    /// statistics (`None`: unknown, the system stays a billboard unless it uses the viewer's
    /// default texture). A replaced system keeps its fades and override (a new descriptor for the
    /// same object); a new one, or one in a slot that held a removed system, starts afresh with
    /// the input's override.
    pub fn insert(&mut self, index: usize, input: ReportInput, stats: Option<TextureStats>) {
        let verdict = stats.as_ref().map(fog::TextureVerdict::from);
        let uses_default = input.texture.is_empty();
        self.insert_with(index, input, stats, uses_default, move |_| verdict);
    }

    fn insert_with(
        &mut self,
        index: usize,
        input: ReportInput,
        measured: Option<TextureStats>,
        default_allowed: bool,
        lookup: impl Fn(&str) -> Option<fog::TextureVerdict>,
    ) {
        if index >= self.systems.len() {
            let n = index + 1;
            self.systems.resize_with(n, || None);
            self.classified.resize(n, 0.0);
            self.demoted.resize(n, false);
            self.demotion.resize(n, 1.0);
            self.presence.resize(n, 1.0);
            self.removed.resize(n, false);
            self.weights.resize(n, 0.0);
            self.matches.resize(n, 0.0);
        }
        let fresh = self.removed[index] || self.systems[index].is_none();
        if fresh {
            self.classifier.remove(&index);
            (self.classified[index], self.demoted[index], self.demotion[index]) = (0.0, false, 1.0);
            (self.presence[index], self.removed[index], self.weights[index]) = (1.0, false, 0.0);
        }
        let s = system_inputs(input, measured, default_allowed, lookup);
        self.classifier.upsert(index, &s.input.system, s.context);
        if fresh {
            // A replaced system keeps the override set on it.
            self.classifier.set_override(&index, s.input.override_in_force);
        }
        self.systems[index] = Some(s);
    }

    /// Removes the system in slot `index`: its weight fades to 0 at the cross-fade rate, so the
    /// fog its remaining carriers leave fades out. Returns false for an empty slot.
    pub fn remove(&mut self, index: usize) -> bool {
        match self.removed.get_mut(index) {
            Some(r) if self.systems[index].is_some() => {
                *r = true;
                true
            }
            _ => false,
        }
    }

    /// Slots that hold a system (removed ones still fading included).
    pub fn len(&self) -> usize {
        self.systems.iter().filter(|s| s.is_some()).count()
    }

    /// True when no slot holds a system.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a system that shows as fog this frame has its light eased toward its billboards'
    /// (its [`billboard_match`] above 0): `fog.carrier_light` runs only then.
    pub fn any_matched(&self) -> bool {
        self.weights.iter().zip(&self.matches).any(|(&w, &m)| w > 0.0 && m > 0.0)
    }

    /// System `index`'s weight this frame (0 for an empty slot).
    pub fn weight(&self, index: usize) -> f32 {
        self.weights.get(index).copied().unwrap_or(0.0)
    }

    /// Advances one frame of `dt_s`: classification (when something changed), cross-fades,
    /// distance fade from `camera` to each system's `positions`, demotion under `pressure`.
    pub fn update(
        &mut self,
        settings: &Settings,
        camera: Vec3,
        positions: &[Vec3],
        dt_s: f32,
        pressure: BrickPressure,
    ) {
        if self.settings.as_ref() != Some(settings) {
            self.settings = Some(settings.clone());
            self.settings_version += 1;
        }
        self.classifier.update(settings, self.settings_version, dt_s);
        for &i in self.classifier.moved() {
            self.classified[i] = self.classifier.weight(&i);
        }
        self.demote(pressure, camera, positions);
        for (i, d) in self.demotion.iter_mut().enumerate() {
            let target = if self.demoted[i] { 0.0 } else { 1.0 };
            *d = step_toward(*d, target, CROSSFADE_PER_S * dt_s);
        }
        for (p, &removed) in self.presence.iter_mut().zip(&self.removed) {
            *p = step_toward(*p, if removed { 0.0 } else { 1.0 }, CROSSFADE_PER_S * dt_s);
        }
        let range = settings.particle_fog_range_m;
        for (i, (w, m)) in self.weights.iter_mut().zip(&mut self.matches).enumerate() {
            let d = positions.get(i).map_or(f32::INFINITY, |p| p.distance(camera));
            let fade = range_fade(d, range);
            *m = billboard_match(d, range);
            let present = self.systems[i].is_some();
            *w = if settings.particle_fog && present {
                self.classified[i] * fade * self.demotion[i] * self.presence[i]
            } else {
                0.0
            };
        }
    }

    /// Demotes the farthest converted system when the bricks overflowed (or nearly did, once no
    /// demotion is still fading), and brings the nearest demoted one back after a calm spell.
    fn demote(&mut self, p: BrickPressure, camera: Vec3, positions: &[Vec3]) {
        let used = p.used as f32 / p.capacity.max(1) as f32;
        let settled = self.demotion.iter().zip(&self.demoted).all(|(&d, &x)| d == if x { 0.0 } else { 1.0 });
        let dist = |i: usize| positions.get(i).map_or(f32::INFINITY, |q| q.distance(camera));
        if p.failures > 0 || (used > PRESSURE_FRACTION && settled) {
            self.calm_frames = 0;
            let candidate = (0..self.weights.len())
                .filter(|&i| self.weights[i] > 0.0 && !self.demoted[i] && !self.removed[i])
                .max_by(|&a, &b| dist(a).total_cmp(&dist(b)));
            if let Some(i) = candidate {
                self.demoted[i] = true;
            }
        } else if used < CALM_FRACTION {
            self.calm_frames += 1;
            if self.calm_frames >= CALM_FRAMES {
                self.calm_frames = 0;
                let back = (0..self.demoted.len())
                    .filter(|&i| self.demoted[i])
                    .min_by(|&a, &b| dist(a).total_cmp(&dist(b)));
                if let Some(i) = back {
                    self.demoted[i] = false;
                }
            }
        }
    }

    /// Each system's blend weight this frame (0 billboard .. 1 fog).
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Systems with a weight above zero.
    pub fn converted(&self) -> u32 {
        self.weights.iter().filter(|&&w| w > 0.0).count() as u32
    }

    /// System `index`'s name (the scene's particle source name).
    pub fn name(&self, index: usize) -> Option<&str> {
        self.systems.get(index)?.as_ref().map(|s| s.input.source.as_str())
    }

    /// System `index`'s object id and link number, which its override is kept under.
    pub fn key(&self, index: usize) -> Option<SystemKey> {
        self.systems.get(index)?.as_ref().map(|s| s.input.key)
    }

    /// System `index`'s per-object override.
    pub fn override_of(&self, index: usize) -> Override {
        self.classifier.override_of(&index)
    }

    /// Sets system `index`'s per-object override; returns false for an index past the systems.
    /// The decision moves at once and the weight cross-fades toward it from the next
    /// [`FogSystems::update`] on, at the classifier's rate (no pop).
    pub fn set_override(&mut self, index: usize, o: Override) -> bool {
        self.classifier.set_override(&index, o)
    }

    /// Writes every system's override into `file` under its key (an automatic one removes what
    /// the file held), for a host that keeps them as the user's state ([`OverridesFile::save`]).
    pub fn store_overrides(&self, file: &mut OverridesFile) {
        for (i, s) in self.systems.iter().enumerate() {
            let Some(s) = s else { continue };
            file.set(s.input.key, self.override_of(i));
        }
    }

    /// Why system `index` is (or is not) fog, with the override in force; `None` before the
    /// first update.
    pub fn explain(&self, index: usize) -> Option<fog::Explanation> {
        self.classifier.explain(&index)
    }

    /// Draws system `index` (none: no system) in its debug colour ([`debug_hue`]) as the debug
    /// view "tint per system" draws every system: a viewer's selected system, found in the frame.
    pub fn set_highlight(&mut self, index: Option<usize>) {
        self.highlight = index;
    }

    /// Systems demoted by the brick budget.
    pub fn demoted(&self) -> u32 {
        self.demoted.iter().filter(|&&d| d).count() as u32
    }

    /// The GPU inputs of every system (`particles.fog_sources`), each with its
    /// [`billboard_match`].
    pub fn gpu_sources(&self, settings: &Settings) -> Vec<GpuFogSource> {
        let scale = settings.particle_fog_density * settings.particle_fog_strength;
        self.systems
            .iter()
            .zip(self.weights.iter().zip(&self.matches))
            .enumerate()
            .map(|(i, (s, (&w, &m)))| {
                let Some(s) = s else { return bytemuck::Zeroable::zeroed() };
                let mut src = if settings.particle_fog_debug.tints() || self.highlight == Some(i) {
                    let mut src = fog_source(w, s.tex_mean_alpha, scale, debug_hue(i));
                    src.tint[3] = 1.0;
                    src
                } else {
                    fog_source(w, s.tex_mean_alpha, scale, s.tint)
                };
                src.weight_mass[3] = m;
                src
            })
            .collect()
    }
}

/// The debug view's colour for the `index`-th system (`RenderVKParticleFogDebug` 1 and 3):
/// saturated hues a golden-ratio turn apart, so neighbouring indices differ most.
pub fn debug_hue(index: usize) -> [f32; 3] {
    const GOLDEN_TURN: f32 = 0.618_034;
    const SATURATION: f32 = 0.8;
    let h = (index as f32 * GOLDEN_TURN).fract() * 6.0;
    let channel = |offset: f32| {
        let k = (offset + h) % 6.0;
        1.0 - SATURATION * (k.min(4.0 - k).clamp(0.0, 1.0))
    };
    [channel(5.0), channel(3.0), channel(1.0)]
}

/// 1 inside `range - fade band`, 0 beyond `range`, smooth between.
pub fn range_fade(distance_m: f32, range_m: f32) -> f32 {
    let band = (range_m * RANGE_FADE_FRACTION).max(1e-3);
    1.0 - fog::classify::factors::smoothstep(range_m - band, range_m, distance_m)
}

/// How far the particle fog's light is eased toward the billboards' lighting model for a system
/// `distance_m` from the camera (0: the fog's own light, 1: the billboards'): 0 inside
/// `range - 2 bands`, 1 from `range - band` on (where [`range_fade`] begins), smooth between, so
/// that the fog fading out at the range is lit as the billboards fading in are and the cross-fade
/// does not pop. Per system, as the range fade: it goes to the GPU with the system's inputs, the
/// splat weights it by mass per brick and `fog.brick_light` eases each brick's light by it; voxels
/// of bricks that hold almost nothing take the same formula of their own distance
/// (`billboard_match` in `brick_march/light.comp`).
pub fn billboard_match(distance_m: f32, range_m: f32) -> f32 {
    let band = (range_m * RANGE_FADE_FRACTION).max(1e-3);
    fog::classify::factors::smoothstep(range_m - 2.0 * band, range_m - band, distance_m)
}

fn step_toward(x: f32, target: f32, max_step: f32) -> f32 {
    if x < target {
        (x + max_step).min(target)
    } else {
        (x - max_step).max(target)
    }
}

/// One system's fixed inputs: `measured` its texture's statistics when known (the viewer's
/// default texture's stand in when `default_allowed` and none are known), `lookup` the verdict
/// of a texture by name.
fn system_inputs(
    input: ReportInput,
    measured: Option<TextureStats>,
    default_allowed: bool,
    lookup: impl Fn(&str) -> Option<fog::TextureVerdict>,
) -> SystemInputs {
    let texture = texture_context(&input, lookup, UnknownTexturePolicy::Unknown);
    let measured = measured.or_else(|| default_allowed.then(assetstats::default_texture_stats));
    let (tex_mean_alpha, tint) = measured
        .map_or((1.0, [1.0; 3]), |s| (s.mean_alpha, s.mean_color.map(crate::textures::srgb_to_linear)));
    let context = SystemContext { attachment: input.attachment, hud: input.hud, texture, live_count: None };
    SystemInputs { input, context, tex_mean_alpha, tint }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::particle_fog::scene_inputs::with_stored_overrides;

    /// Two fog-machine-like systems, one near the camera and one far.
    fn two_systems() -> Scene {
        let system = "[particles.system]\npattern = \"angle_cone\"\nouter_angle = 0.3\nburst_rate = 0.2\n\
            burst_part_count = 6\nburst_speed_min = 0.3\nburst_speed_max = 0.5\npart_max_age = 12.0\n\
            part_flags = [\"interp_color\", \"interp_scale\"]\nstart_alpha = 0.15\nend_alpha = 0.0\n\
            start_scale = [2.0, 2.0]\nend_scale = [4.0, 4.0]\n";
        let toml = format!(
            "[camera]\nposition = [0.0, -5.0, 1.0]\ntarget = [0.0, 0.0, 1.0]\n\
             [[particles]]\nname = \"near\"\nposition = [0.0, 0.0, 0.2]\n{system}\
             [[particles]]\nname = \"far\"\nposition = [0.0, 30.0, 0.2]\n{system}"
        );
        crate::scene::parse(&toml, std::path::Path::new("two.toml")).expect("scene")
    }

    fn settings() -> Settings {
        Settings { particle_fog: true, ..Settings::default() }
    }

    const DT: f32 = 0.1;

    #[test]
    fn pressure_demotes_the_farthest_system_through_a_fade_and_calm_brings_it_back() {
        let scene = two_systems();
        let mut fs = FogSystems::for_scene(&scene);
        let camera = scene.camera.position;
        let positions: Vec<Vec3> = scene.particles.iter().map(|p| p.position_at(0.0)).collect();
        let s = settings();
        let calm = BrickPressure { used: 10, capacity: 100, failures: 0 };
        for _ in 0..20 {
            fs.update(&s, camera, &positions, DT, calm);
        }
        assert_eq!(fs.weights(), &[1.0, 1.0], "both converted");
        fs.update(&s, camera, &positions, DT, BrickPressure { used: 100, capacity: 100, failures: 7 });
        assert_eq!(fs.demoted(), 1);
        let w = fs.weights();
        assert_eq!(w[0], 1.0, "the near system keeps its fog");
        assert!(w[1] < 1.0 && w[1] > 0.8, "the far one starts fading, no pop: {}", w[1]);
        for _ in 0..9 {
            fs.update(&s, camera, &positions, DT, BrickPressure { used: 60, capacity: 100, failures: 0 });
        }
        assert_eq!(fs.weights()[1], 0.0, "demoted after the one-second cross-fade");
        for _ in 0..CALM_FRAMES {
            fs.update(&s, camera, &positions, DT, calm);
        }
        assert_eq!(fs.demoted(), 0, "calm brings it back");
        assert!(fs.weights()[1] > 0.0 && fs.weights()[1] < 1.0, "fading back in");
    }

    #[test]
    fn the_toggle_and_the_range_set_the_weights() {
        let scene = two_systems();
        let mut fs = FogSystems::for_scene(&scene);
        let camera = scene.camera.position;
        let positions: Vec<Vec3> = scene.particles.iter().map(|p| p.position_at(0.0)).collect();
        let short = Settings { particle_fog_range_m: 20.0, ..settings() };
        for _ in 0..20 {
            fs.update(&short, camera, &positions, DT, BrickPressure::default());
        }
        assert_eq!(fs.weights(), &[1.0, 0.0], "the far system is beyond the range");
        let off = Settings { particle_fog: false, ..short };
        fs.update(&off, camera, &positions, DT, BrickPressure::default());
        assert_eq!(fs.weights(), &[0.0, 0.0]);
        assert_eq!(range_fade(10.0, 64.0), 1.0);
        assert_eq!(range_fade(64.0, 64.0), 0.0);
        let mid = range_fade(60.0, 64.0);
        assert!(mid > 0.0 && mid < 1.0, "a fade band, not a cut: {mid}");
    }

    #[test]
    fn carriers_gather_their_billboards_light_only_while_a_showing_system_is_eased() {
        let scene = two_systems();
        let camera = scene.camera.position;
        let positions: Vec<Vec3> = scene.particles.iter().map(|p| p.position_at(0.0)).collect();
        let far = positions[1].distance(camera);
        let eased_at = |range_m: f32| {
            let mut fs = FogSystems::for_scene(&scene);
            let s = Settings { particle_fog_range_m: range_m, ..settings() };
            for _ in 0..20 {
                fs.update(&s, camera, &positions, DT, BrickPressure::default());
            }
            (fs.any_matched(), fs.weights().to_vec())
        };
        assert_eq!(eased_at(64.0), (false, vec![1.0, 1.0]), "both well inside the range");
        let (eased, w) = eased_at(far / 0.92);
        assert!(eased && w[1] > 0.0 && w[1] < 1.0, "the far one in the range fade: {w:?}");
        assert!(eased_at(far / 0.85).0, "and in the band before it");
        assert_eq!(eased_at(far / 1.2), (false, vec![1.0, 0.0]), "beyond the range it shows no fog");
    }

    #[test]
    fn the_billboard_match_eases_over_the_band_before_the_range_fade() {
        let range = 64.0;
        let band = range * RANGE_FADE_FRACTION;
        assert_eq!(billboard_match(0.0, range), 0.0, "the fog's own light well inside the range");
        assert_eq!(billboard_match(range - 2.0 * band, range), 0.0);
        assert_eq!(billboard_match(range - band, range), 1.0, "matched where the range fade begins");
        assert_eq!(range_fade(range - band, range), 1.0, "while the fog is still wholly fog");
        assert_eq!(billboard_match(range, range), 1.0);
        assert_eq!(billboard_match(1000.0, range), 1.0, "and beyond");
        let mid = billboard_match(range - 1.5 * band, range);
        assert!((mid - 0.5).abs() < 1e-6, "half way at the band's middle: {mid}");
        // Monotone, and continuous: no step between neighbouring distances, at the band's edges
        // included.
        let step_m = 1e-3;
        let mut last = billboard_match(0.0, range);
        for i in 1..=(range * 1.2 / step_m) as usize {
            let m = billboard_match(i as f32 * step_m, range);
            assert!(m >= last, "monotone at {} m: {last} -> {m}", i as f32 * step_m);
            assert!(m - last < 1e-3, "continuous at {} m: {last} -> {m}", i as f32 * step_m);
            last = m;
        }
    }

    #[test]
    fn an_override_fades_one_system_and_the_stored_file_takes_the_scenes_place() {
        let mut file = OverridesFile::new("particle_fog_overrides.xml");
        file.set(SystemKey::from_name("far"), Override::Billboards);
        let scene = with_stored_overrides(two_systems(), &file);
        let mut fs = FogSystems::for_scene(&scene);
        assert_eq!(fs.key(0), Some(SystemKey::from_name("near")));
        assert_eq!((fs.override_of(0), fs.override_of(1)), (Override::Auto, Override::Billboards));
        let camera = scene.camera.position;
        let positions: Vec<Vec3> = scene.particles.iter().map(|p| p.position_at(0.0)).collect();
        let s = settings();
        for _ in 0..20 {
            fs.update(&s, camera, &positions, DT, BrickPressure::default());
        }
        assert_eq!(fs.weights(), &[1.0, 0.0], "the stored override keeps the far one billboards");
        assert!(fs.set_override(0, Override::Billboards));
        assert!(!fs.set_override(2, Override::Fog), "no third system");
        let mut last = 1.0;
        for _ in 0..10 {
            fs.update(&s, camera, &positions, DT, BrickPressure::default());
            let w = fs.weights()[0];
            assert!(last - w <= CROSSFADE_PER_S * DT + 1e-6 && w <= last, "{last} -> {w}");
            last = w;
        }
        assert_eq!(fs.weights()[0], 0.0);
        assert_eq!(fs.explain(0).map(|e| e.rule), Some(fog::classify::RULE_OVERRIDE));
    }

    #[test]
    fn overrides_set_per_system_survive_a_save_and_load() {
        let dir = std::env::temp_dir().join(format!("pf-systems-overrides-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join(fog::overrides_file::FILE_NAME);
        let mut fs = FogSystems::for_scene(&two_systems());
        fs.set_override(1, Override::Billboards);
        let mut file = OverridesFile::new(&path);
        fs.store_overrides(&mut file);
        file.save(settings::SaveMode::Normal).expect("saves");
        let loaded = OverridesFile::load(&path).expect("loads");
        let again = FogSystems::for_scene(&with_stored_overrides(two_systems(), &loaded));
        assert_eq!((again.override_of(0), again.override_of(1)), (Override::Auto, Override::Billboards));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn systems_added_and_removed_by_slot_fade_in_and_out_and_keep_their_override() {
        let scene = two_systems();
        let inputs: Vec<ReportInput> = scene.particles.iter().map(report_input).collect();
        let mut fs = FogSystems::default();
        let soft = assetstats::default_texture_stats();
        fs.insert(3, inputs[0].clone(), Some(soft.clone()));
        assert_eq!((fs.len(), fs.weight(0), fs.weight(3)), (1, 0.0, 0.0), "slot 3 only, not faded in yet");
        let camera = scene.camera.position;
        let mut positions = vec![Vec3::splat(f32::INFINITY); 4];
        positions[3] = scene.particles[0].position_at(0.0);
        let s = settings();
        let mut last = 0.0;
        for _ in 0..12 {
            fs.update(&s, camera, &positions, DT, BrickPressure::default());
            assert!(
                fs.weight(3) - last <= CROSSFADE_PER_S * DT + 1e-6,
                "fades in: {last} -> {}",
                fs.weight(3)
            );
            last = fs.weight(3);
        }
        assert_eq!(fs.weight(3), 1.0, "converted");
        assert!(fs.set_override(3, Override::Billboards));
        fs.insert(3, inputs[0].clone(), Some(soft.clone()));
        assert_eq!(fs.override_of(3), Override::Billboards, "a new descriptor keeps the override");
        assert!(fs.set_override(3, Override::Auto));
        assert!(fs.remove(3) && !fs.remove(2), "slot 2 holds nothing");
        fs.update(&s, camera, &positions, DT, BrickPressure::default());
        let w = fs.weight(3);
        assert!(w < 1.0 && w > 0.8, "a removed system fades out, no pop: {w}");
        for _ in 0..10 {
            fs.update(&s, camera, &positions, DT, BrickPressure::default());
        }
        assert_eq!(fs.weight(3), 0.0);
        fs.insert(3, inputs[1].clone(), Some(soft));
        assert_eq!(fs.name(3), Some("far"), "the slot takes the next system afresh");
        assert_eq!(fs.override_of(3), Override::Auto);
        fs.update(&s, camera, &positions, DT, BrickPressure::default());
        assert!(fs.weight(3) <= CROSSFADE_PER_S * DT + 1e-6, "and fades it in from 0: {}", fs.weight(3));
    }

    #[test]
    fn a_highlighted_system_alone_takes_its_debug_hue() {
        let scene = two_systems();
        let mut fs = FogSystems::for_scene(&scene);
        let positions: Vec<Vec3> = scene.particles.iter().map(|p| p.position_at(0.0)).collect();
        let s = settings();
        fs.update(&s, scene.camera.position, &positions, DT, BrickPressure::default());
        let tinted = |fs: &FogSystems| fs.gpu_sources(&s).iter().map(|g| g.tint[3]).collect::<Vec<f32>>();
        assert_eq!(tinted(&fs), [0.0, 0.0], "no debug view, nothing selected");
        fs.set_highlight(Some(1));
        assert_eq!(tinted(&fs), [0.0, 1.0]);
        assert_eq!(fs.gpu_sources(&s)[1].tint[..3], debug_hue(1));
        fs.set_highlight(None);
        assert_eq!(tinted(&fs), [0.0, 0.0]);
    }

    #[test]
    fn debug_hues_are_saturated_and_distinct() {
        let hues: Vec<[f32; 3]> = (0..8).map(debug_hue).collect();
        for (i, a) in hues.iter().enumerate() {
            let (lo, hi) = a.iter().fold((1.0f32, 0.0f32), |(l, h), &c| (l.min(c), h.max(c)));
            assert!((hi - 1.0).abs() < 1e-6 && (lo - 0.2).abs() < 1e-6, "hue {i}: {a:?}");
            for (j, b) in hues.iter().enumerate().skip(i + 1) {
                let d: f32 = a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum();
                assert!(d > 0.15, "hues {i} and {j} alike: {a:?} {b:?}");
            }
        }
        // The first is red.
        let red = [1.0, 0.2, 0.2];
        assert!(hues[0].iter().zip(red).all(|(a, b)| (a - b).abs() < 1e-6), "{:?}", hues[0]);
    }
}
