//! [`Classifier`]: per-system fog decisions with hysteresis, smooth cross-fades and dirty tracking.
//!
//! * **Hysteresis**: a system converts when its decision score reaches
//!   `RenderVKParticleFogThreshold`, reverts when it falls below threshold - 0.2
//!   ([`HYSTERESIS_BAND`]), and keeps its previous state in between; a new system starts as a
//!   billboard. A score wandering inside the band therefore never flips a system.
//! * **Overrides**: a person's [`Override`] per system ([`Classifier::set_override`]) decides over
//!   the hysteresis, which keeps running beneath it: a change of override moves the decision at
//!   once (no re-classification) and the weight cross-fades like any other change; back at
//!   [`Override::Auto`] the system takes the automatic decision it would have had.
//! * **Cross-fade**: the blend weight moves toward its target (1 converted, 0 not) at
//!   [`CROSSFADE_PER_S`] per second, so a full cross-fade takes 1 s and no frame changes the weight
//!   by more than `dt * CROSSFADE_PER_S`.
//! * **Dirty tracking**: a system is re-evaluated only when its descriptor changes (every field
//!   compared by its bits), its context changes (attachment, HUD, texture verdict arriving or changing), its
//!   live count changes band of the `alive` ramp ([`alive_band`]), or the settings version moves.
//!   A clean system costs nothing per frame; only systems still fading are touched.
//! * **Determinism**: each system's state depends only on its own inputs and the frame sequence;
//!   no randomness, no dependence on map iteration order.

use std::collections::hash_map::Entry as MapEntry;
use std::collections::HashMap;
use std::hash::Hash;

use particles::types::PartSysData;
use settings::Settings;

use super::assess::{classify, Assessment, Explanation, Verdict, HYSTERESIS_BAND};
use super::factors::alive_band;
use super::overrides::Override;
use super::{SystemContext, TextureVerdict};

/// Cross-fade rate of the blend weight, 1/s: a full fade from billboard to fog takes 1 s.
pub const CROSSFADE_PER_S: f32 = 1.0;

/// What decides whether a system must be re-evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct InputKey {
    descriptor: [u32; DESCRIPTOR_WORDS],
    attachment: bool,
    hud: bool,
    texture: Option<[u32; 4]>,
    alive_band: Option<u8>,
}

impl InputKey {
    fn new(sys: &PartSysData, ctx: &SystemContext) -> InputKey {
        InputKey {
            descriptor: descriptor_words(sys),
            attachment: ctx.attachment,
            hud: ctx.hud,
            texture: ctx.texture.as_ref().map(texture_bits),
            alive_band: ctx.live_count.map(alive_band),
        }
    }
}

/// State of one system.
#[derive(Debug, Clone)]
struct System {
    sys: PartSysData,
    ctx: SystemContext,
    key: InputKey,
    assessment: Option<Assessment>,
    /// The hysteresis' decision, whatever the override.
    auto_converted: bool,
    override_: Override,
    /// The decision in force: `auto_converted` under the override.
    converted: bool,
    weight: f32,
    dirty: bool,
    fading: bool,
}

/// Per-system fog decisions with hysteresis (module docs). `K` identifies a system (e.g. the
/// source object's id).
#[derive(Debug, Clone)]
pub struct Classifier<K> {
    systems: HashMap<K, System>,
    dirty: Vec<K>,
    fading: Vec<K>,
    /// The systems whose weight the last [`Classifier::update`] moved.
    moved: Vec<K>,
    settings_version: Option<u64>,
    threshold: f32,
    evaluations: u64,
}

impl<K: Eq + Hash + Clone> Default for Classifier<K> {
    fn default() -> Self {
        Classifier::new()
    }
}

impl<K: Eq + Hash + Clone> Classifier<K> {
    /// An empty classifier; the first [`Classifier::update`] takes its settings.
    pub fn new() -> Self {
        Classifier {
            systems: HashMap::new(),
            dirty: Vec::new(),
            fading: Vec::new(),
            moved: Vec::new(),
            settings_version: None,
            threshold: Settings::default().particle_fog_threshold,
            evaluations: 0,
        }
    }

    /// Adds a system or refreshes its inputs; marks it for re-evaluation only when they changed.
    pub fn upsert(&mut self, id: K, sys: &PartSysData, ctx: SystemContext) {
        let key = InputKey::new(sys, &ctx);
        match self.systems.entry(id.clone()) {
            MapEntry::Occupied(mut slot) => {
                let s = slot.get_mut();
                s.ctx.live_count = ctx.live_count;
                if s.key == key {
                    return;
                }
                s.sys = *sys;
                s.ctx = ctx;
                s.key = key;
                if !s.dirty {
                    s.dirty = true;
                    self.dirty.push(id);
                }
            }
            MapEntry::Vacant(slot) => {
                slot.insert(System {
                    sys: *sys,
                    ctx,
                    key,
                    assessment: None,
                    auto_converted: false,
                    override_: Override::Auto,
                    converted: false,
                    weight: 0.0,
                    dirty: true,
                    fading: false,
                });
                self.dirty.push(id);
            }
        }
    }

    /// Forgets a system (its billboards are the caller's to draw or drop).
    pub fn remove(&mut self, id: &K) {
        if self.systems.remove(id).is_some() {
            self.dirty.retain(|k| k != id);
            self.fading.retain(|k| k != id);
            self.moved.retain(|k| k != id);
        }
    }

    /// Once per frame: re-evaluates the dirty systems (all of them when `settings_version` moved)
    /// and advances the fading weights by `dt_s` seconds.
    pub fn update(&mut self, settings: &Settings, settings_version: u64, dt_s: f32) {
        if self.settings_version != Some(settings_version) {
            self.settings_version = Some(settings_version);
            self.threshold = settings.particle_fog_threshold;
            self.dirty.clear();
            for (id, s) in self.systems.iter_mut() {
                s.dirty = true;
                self.dirty.push(id.clone());
            }
        }
        for id in std::mem::take(&mut self.dirty) {
            let Some(s) = self.systems.get_mut(&id) else {
                continue;
            };
            if !s.dirty {
                continue;
            }
            s.dirty = false;
            let a = classify(&s.sys, &s.ctx, settings);
            self.evaluations += 1;
            let score = a.decision_score();
            if score >= self.threshold {
                s.auto_converted = true;
            } else if score < self.threshold - HYSTERESIS_BAND {
                s.auto_converted = false;
            }
            s.converted = s.override_.decide(s.auto_converted, a.exclusions);
            s.assessment = Some(a);
            if s.weight != target(s.converted) && !s.fading {
                s.fading = true;
                self.fading.push(id);
            }
        }
        self.advance(dt_s);
    }

    /// Sets a system's per-object override; returns false for an unknown system. The decision
    /// moves at once (from the latest assessment, or at the next [`Classifier::update`] before the
    /// first) and the weight cross-fades toward it from the next update on, at
    /// [`CROSSFADE_PER_S`].
    pub fn set_override(&mut self, id: &K, o: Override) -> bool {
        let Some(s) = self.systems.get_mut(id) else {
            return false;
        };
        if s.override_ == o {
            return true;
        }
        s.override_ = o;
        if let Some(a) = &s.assessment {
            s.converted = o.decide(s.auto_converted, a.exclusions);
            if s.weight != target(s.converted) && !s.fading {
                s.fading = true;
                self.fading.push(id.clone());
            }
        }
        true
    }

    /// A system's per-object override ([`Override::Auto`] for an unknown system).
    pub fn override_of(&self, id: &K) -> Override {
        self.systems.get(id).map_or(Override::Auto, |s| s.override_)
    }

    /// Moves every fading weight toward its target by at most `dt_s * CROSSFADE_PER_S`, and
    /// notes the weights that moved.
    fn advance(&mut self, dt_s: f32) {
        let step = if dt_s.is_finite() { dt_s.max(0.0) * CROSSFADE_PER_S } else { 0.0 };
        let systems = &mut self.systems;
        let moved = &mut self.moved;
        moved.clear();
        self.fading.retain(|id| {
            let Some(s) = systems.get_mut(id) else {
                return false;
            };
            let goal = target(s.converted);
            let weight =
                if s.weight < goal { (s.weight + step).min(goal) } else { (s.weight - step).max(goal) };
            if weight != s.weight {
                s.weight = weight;
                moved.push(id.clone());
            }
            s.fading = s.weight != goal;
            s.fading
        });
    }

    /// The blend weight toward fog, 0..1 (0 for an unknown system).
    pub fn weight(&self, id: &K) -> f32 {
        self.systems.get(id).map_or(0.0, |s| s.weight)
    }

    /// The systems whose weight the last [`Classifier::update`] moved, each once: a caller that
    /// keeps the weights of many systems refreshes these and no others.
    pub fn moved(&self) -> &[K] {
        &self.moved
    }

    /// True when the system's current decision is fog (its weight may still be fading in).
    pub fn is_converted(&self, id: &K) -> bool {
        self.systems.get(id).is_some_and(|s| s.converted)
    }

    /// The latest assessment of a system, `None` before its first update.
    pub fn assessment(&self, id: &K) -> Option<&Assessment> {
        self.systems.get(id).and_then(|s| s.assessment.as_ref())
    }

    /// Why the system is (or is not) fog, from its latest assessment.
    pub fn explain(&self, id: &K) -> Option<Explanation> {
        let s = self.systems.get(id)?;
        let a = s.assessment.as_ref()?;
        let verdict = if s.converted { Verdict::Fog } else { Verdict::Billboard };
        Some(Explanation::with_override(&s.sys, a, verdict, s.weight, s.override_))
    }

    /// How many times a system has been classified since creation (for tests and profiling).
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    /// Number of systems tracked.
    pub fn len(&self) -> usize {
        self.systems.len()
    }

    /// True when no system is tracked.
    pub fn is_empty(&self) -> bool {
        self.systems.is_empty()
    }
}

/// The weight a system fades toward.
fn target(converted: bool) -> f32 {
    if converted {
        1.0
    } else {
        0.0
    }
}

/// The bits of a texture verdict, for exact change detection.
fn texture_bits(t: &TextureVerdict) -> [u32; 4] {
    let flags = u32::from(t.shape_is_soft)
        | u32::from(t.is_default_texture) << 1
        | u32::from(t.rotationally_symmetric) << 2;
    [t.softness.to_bits(), t.mean_alpha.to_bits(), flags, 0]
}

/// Number of 32-bit words in [`descriptor_words`].
pub const DESCRIPTOR_WORDS: usize = 41;

/// Every field of the descriptor as raw 32-bit words (floats by bit pattern, so a NaN equals
/// itself): two descriptors are the same content exactly when their words are equal.
pub fn descriptor_words(sys: &PartSysData) -> [u32; DESCRIPTOR_WORDS] {
    let p = &sys.part;
    let av = sys.angular_velocity;
    let ac = sys.part_accel;
    let (c0, c1) = (p.start_color, p.end_color);
    let (s0, s1) = (p.start_scale, p.end_scale);
    let packed =
        u32::from_le_bytes([sys.pattern, sys.burst_part_count, p.blend_func_source, p.blend_func_dest]);
    let floats = [
        sys.max_age,
        sys.start_age,
        sys.inner_angle,
        sys.outer_angle,
        sys.burst_rate,
        sys.burst_radius,
        sys.burst_speed_min,
        sys.burst_speed_max,
        av.x,
        av.y,
        av.z,
        ac.x,
        ac.y,
        ac.z,
        p.max_age,
        c0.x,
        c0.y,
        c0.z,
        c0.w,
        c1.x,
        c1.y,
        c1.z,
        c1.w,
        s0.x,
        s0.y,
        s1.x,
        s1.y,
        p.start_glow,
        p.end_glow,
    ];
    let mut words = [0u32; DESCRIPTOR_WORDS];
    for (w, f) in words.iter_mut().zip(floats) {
        *w = f.to_bits();
    }
    let ints = [sys.crc, sys.flags.0, p.flags.0, packed];
    words[floats.len()..floats.len() + ints.len()].copy_from_slice(&ints);
    let ids = sys.part_image_id.0.chunks_exact(4).chain(sys.target_uuid.0.chunks_exact(4));
    for (w, chunk) in words[floats.len() + ints.len()..].iter_mut().zip(ids) {
        *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    words
}
