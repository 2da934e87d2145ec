//! The viewer's particle budget (`LLViewerPartSim`, `updatePartBurstRate`, in `llviewerpartsim.cpp`).
//!
//! * `RenderMaxPartCount` (default 4096) is min'd with the hard cap `MAX_PART_COUNT` = 8192.
//! * A source stops bursting for the rest of the frame once the live count is **above** the maximum
//!   (`aboveParticleLimit`), and a new particle is refused once the live count has reached the hard
//!   cap (`addPart`).
//! * A global burst-rate share (starting at 0.5) is updated at the end of every 16th frame
//!   (`updatePartBurstRate`, `llviewerpartsim.cpp`): at the hard cap it drops to 0; with no
//!   particles it creeps up by 0.00125; otherwise it moves half-way toward
//!   `clamp(0.9 * max / (count / share), 0, 1)` with the step limited to
//!   `min(0.1, 0.1 * max(target, share))`. Each emission candidate is dropped with probability
//!   `1 - share`, the draw coming from the hashed stream (draw index [`super::emit::DRAW_SHARE`]).
//!
//! * The adaptive reference rate used by distance throttling (starting at 0.0625) is doubled at
//!   the end of every 16th frame when the live count is above 87.5 % of the maximum (up to 2),
//!   and halved when it is below 50 % (down to 0.03125). Without a budget it stays at 0.0625.

/// `RenderMaxPartCount` default (viewer `settings.xml`).
pub const DEFAULT_MAX_PARTICLES: u32 = 4096;
/// `MAX_PART_COUNT`: the hard cap; the setting is min'd with it.
pub const HARD_MAX_PARTICLES: u32 = 8192;
/// The burst-rate share a fresh viewer starts with.
pub const INITIAL_BURST_SHARE: f32 = 0.5;
/// The share is re-estimated on frames whose index is a multiple of this.
pub const SHARE_UPDATE_PERIOD_FRAMES: u64 = 16;
/// Initial adaptive reference rate (`sParticleAdaptiveRate`).
pub const INITIAL_REF_RATE: f32 = 0.0625;
/// The reference rate is doubled only while below this.
const MAX_REF_RATE: f32 = 2.0;
/// The reference rate is halved only while above this.
const MIN_REF_RATE: f32 = 0.031_25;
/// Factor applied per adaptation.
const REF_RATE_FACTOR: f32 = 2.0;
/// Live fraction of the maximum above which the reference rate doubles.
const REF_RATE_HIGH_FILL: f32 = 0.875;
/// Live fraction of the maximum below which the reference rate halves.
const REF_RATE_LOW_FILL: f32 = 0.5;
/// Share added per update while no particle is alive.
const SHARE_CREEP_EMPTY: f32 = 0.001_25;
/// Share added per update when the share has collapsed to (almost) zero.
const SHARE_CREEP_COLLAPSED: f32 = 1.0e-7;
/// Fraction of the maximum the share aims to fill.
const SHARE_TARGET_FILL: f32 = 0.9;
/// Largest share step, absolute and relative.
const SHARE_MAX_STEP: f32 = 0.1;
/// Fraction of the (limited) distance to the target moved per update.
const SHARE_GAIN: f32 = 0.5;

/// Decides, during emission, whether bursts and candidates go ahead.
pub(crate) trait EmitGate {
    /// True when the source must stop bursting for the rest of the frame.
    fn above_limit(&self) -> bool;
    /// Whether a candidate with random draw `unit` in `[0, 1)` survives the share and the
    /// distance-limited drop probability `limited`.
    fn keep_candidate(&self, unit: f32, limited: f32) -> bool;
    /// Admits one new particle (counting it) or refuses it at the hard cap.
    fn admit(&mut self) -> bool;
}

/// No budget at all (`SimConfig::max_particles = None`), for parity tests.
pub(crate) struct Unlimited;

impl EmitGate for Unlimited {
    fn above_limit(&self) -> bool {
        false
    }
    fn keep_candidate(&self, unit: f32, limited: f32) -> bool {
        unit >= limited
    }
    fn admit(&mut self) -> bool {
        true
    }
}

/// The viewer's budget state that lives across frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// `min(RenderMaxPartCount, 8192)`.
    pub max_count: u32,
    /// The global burst-rate share in `[0, 1]`.
    pub share: f32,
    /// The adaptive reference rate of distance throttling.
    pub ref_rate: f32,
}

impl Budget {
    /// A budget for the `RenderMaxPartCount` setting `setting`.
    pub fn new(setting: u32) -> Self {
        Budget {
            max_count: setting.min(HARD_MAX_PARTICLES),
            share: INITIAL_BURST_SHARE,
            ref_rate: INITIAL_REF_RATE,
        }
    }

    /// The end-of-frame updates (reference rate, then `updatePartBurstRate`), with the live count.
    pub fn end_frame(&mut self, frame: u64, live: u32) {
        if !frame.is_multiple_of(SHARE_UPDATE_PERIOD_FRAMES) {
            return;
        }
        let (live_f, max_f) = (live as f32, self.max_count as f32);
        if live_f > REF_RATE_HIGH_FILL * max_f && self.ref_rate < MAX_REF_RATE {
            self.ref_rate *= REF_RATE_FACTOR;
        } else if live_f < REF_RATE_LOW_FILL * max_f && self.ref_rate > MIN_REF_RATE {
            self.ref_rate /= REF_RATE_FACTOR;
        }
        if live >= HARD_MAX_PARTICLES {
            self.share = 0.0;
        } else if live == 0 {
            self.share += SHARE_CREEP_EMPTY;
        } else if self.share > SHARE_CREEP_COLLAPSED {
            let estimated_total = live as f32 / self.share;
            let target = (SHARE_TARGET_FILL * self.max_count as f32 / estimated_total).clamp(0.0, 1.0);
            let limit = (SHARE_MAX_STEP * target.max(self.share)).min(SHARE_MAX_STEP);
            let step = (target - self.share).clamp(-limit, limit);
            self.share = (self.share + SHARE_GAIN * step).clamp(0.0, 1.0);
        } else {
            self.share += SHARE_CREEP_COLLAPSED;
        }
    }
}

/// The per-frame gate over a [`Budget`], tracking the live count as particles are admitted.
pub(crate) struct BudgetGate {
    /// Live particles, including those admitted so far this frame.
    pub live: u32,
    /// `min(RenderMaxPartCount, 8192)`.
    pub max_count: u32,
    /// The share at the start of this frame.
    pub share: f32,
}

impl EmitGate for BudgetGate {
    fn above_limit(&self) -> bool {
        self.live > self.max_count
    }
    fn keep_candidate(&self, unit: f32, limited: f32) -> bool {
        unit >= (1.0 - self.share).max(limited)
    }
    fn admit(&mut self) -> bool {
        if self.live >= HARD_MAX_PARTICLES {
            return false;
        }
        self.live += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_is_capped_at_the_hard_maximum() {
        assert_eq!(Budget::new(20_000).max_count, HARD_MAX_PARTICLES);
        assert_eq!(Budget::new(1024).max_count, 1024);
    }

    #[test]
    fn share_moves_only_every_sixteenth_frame() {
        let mut b = Budget::new(DEFAULT_MAX_PARTICLES);
        b.end_frame(5, 0);
        assert_eq!(b.share, INITIAL_BURST_SHARE);
        b.end_frame(16, 0);
        assert_eq!(b.share, INITIAL_BURST_SHARE + SHARE_CREEP_EMPTY);
    }

    #[test]
    fn share_rises_by_half_a_tenth_when_far_below_the_maximum_and_collapses_at_the_cap() {
        let mut b = Budget::new(DEFAULT_MAX_PARTICLES);
        // 10 live at share 0.5: target clamps to 1, step limited to 0.1, half of it applied.
        b.end_frame(0, 10);
        assert!((b.share - 0.55).abs() < 1e-6, "share {}", b.share);
        // Far above 0.9*max: estimated total 4000/0.55, target = 0.9*4096*0.55/4000 = 0.5069.
        b.end_frame(16, 4000);
        let target = 0.9 * 4096.0 * 0.55 / 4000.0;
        let expected = 0.55 + 0.5 * (target - 0.55f32).max(-0.055);
        assert!((b.share - expected).abs() < 1e-5, "share {} expected {expected}", b.share);
        b.end_frame(32, HARD_MAX_PARTICLES);
        assert_eq!(b.share, 0.0);
    }

    #[test]
    fn gate_stops_above_the_maximum_and_refuses_at_the_hard_cap() {
        let mut g = BudgetGate { live: 100, max_count: 100, share: 1.0 };
        assert!(!g.above_limit());
        assert!(g.admit());
        assert!(g.above_limit());
        let mut full = BudgetGate { live: HARD_MAX_PARTICLES, max_count: HARD_MAX_PARTICLES, share: 1.0 };
        assert!(!full.admit());
        assert_eq!(full.live, HARD_MAX_PARTICLES);
        assert!(g.keep_candidate(0.0, 0.0), "share 1 keeps everything");
        assert!(!g.keep_candidate(0.2, 0.25), "the distance rate still drops");
        let half = BudgetGate { live: 0, max_count: 10, share: 0.5 };
        assert!(!half.keep_candidate(0.49, 0.0) && half.keep_candidate(0.5, 0.0));
    }

    #[test]
    fn reference_rate_doubles_when_nearly_full_and_halves_when_half_empty() {
        let mut b = Budget::new(100);
        b.end_frame(0, 90);
        assert_eq!(b.ref_rate, 0.125, "90 > 87.5 % of 100");
        b.end_frame(3, 90);
        assert_eq!(b.ref_rate, 0.125, "only every 16th frame");
        b.end_frame(16, 70);
        assert_eq!(b.ref_rate, 0.125, "between 50 % and 87.5 %: unchanged");
        b.end_frame(32, 40);
        b.end_frame(48, 40);
        assert_eq!(b.ref_rate, 0.031_25);
        b.end_frame(64, 40);
        assert_eq!(b.ref_rate, 0.031_25, "floor");
    }
}
