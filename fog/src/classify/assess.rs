//! The pure per-system classification ([`classify()`]) and its creator-facing [`Explanation`].
//!
//! `classify` measures the effect, evaluates the hard exclusions and the soft factors, and returns
//! an [`Assessment`]: the score (the product of the factors), the exclusions, and an emission term.
//! The score that drives decisions ([`Assessment::decision_score`]) is 0 when any exclusion fired.
//!
//! Emission: fullbright (`EMISSIVE`) particles keep their unlit look as an in-scattered emission
//! term of [`EMISSION_GAIN`] times their mean luminance; other particles brighter than
//! [`BRIGHT_LUMINANCE_LO`] get a share of it ramping to full at luminance 1, so bright white mist
//! glows faintly instead of going grey in shadow.

use particles::types::{PartFlags, PartSysData};
use settings::Settings;

use super::exclusion::{Exclusion, ExclusionSet};
use super::factors::{smoothstep, Factors};
use super::measure::{measure, Measures};
use super::overrides::{blocking, Override};
use super::SystemContext;

/// Width of the hysteresis band: a converted system reverts below threshold minus this.
pub const HYSTERESIS_BAND: f32 = 0.2;
/// In-scattered emission per unit of mean particle luminance for fullbright particles (0..1 scale
/// of the renderer's emission term).
pub const EMISSION_GAIN: f32 = 0.25;
/// Mean luminance at which non-fullbright particles start to add emission.
pub const BRIGHT_LUMINANCE_LO: f32 = 0.8;

/// Fog or billboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Converted into volumetric fog.
    Fog,
    /// Kept as billboards.
    Billboard,
}

impl Verdict {
    /// `"fog"` or `"billboard"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Fog => "fog",
            Verdict::Billboard => "billboard",
        }
    }
}

/// The result of classifying one system once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Assessment {
    /// The measured effect.
    pub measures: Measures,
    /// Each factor of the score.
    pub factors: Factors,
    /// The soft score (product of the factors), whatever the exclusions.
    pub score: f32,
    /// Hard exclusions that fired.
    pub exclusions: ExclusionSet,
    /// In-scattered emission term for the renderer, 0..[`EMISSION_GAIN`].
    pub emission: f32,
}

impl Assessment {
    /// The score that drives decisions: [`Assessment::score`], or 0 when any exclusion fired.
    pub fn decision_score(&self) -> f32 {
        if self.exclusions.is_empty() {
            self.score
        } else {
            0.0
        }
    }
}

/// Classifies one system (pure; the same inputs always give the same result).
pub fn classify(sys: &PartSysData, ctx: &SystemContext, settings: &Settings) -> Assessment {
    let measures = measure(sys, ctx, settings);
    let factors = Factors::compute(&measures, sys.is_normal_alpha_blend(), ctx.texture.as_ref());
    let exclusions = ExclusionSet::evaluate(sys, ctx, settings, &measures);
    let emissive = sys.part.flags.contains(PartFlags::EMISSIVE);
    let bright = if emissive { 1.0 } else { smoothstep(BRIGHT_LUMINANCE_LO, 1.0, measures.luminance) };
    Assessment {
        measures,
        factors,
        score: factors.score(),
        exclusions,
        emission: EMISSION_GAIN * measures.luminance * bright,
    }
}

/// The weight of a one-shot classification (no history): 1 at or above the threshold, 0 below
/// threshold - [`HYSTERESIS_BAND`], linear in between (the blend a system in the band would settle
/// between its two states), and 0 when excluded.
pub fn one_shot_weight(a: &Assessment, settings: &Settings) -> f32 {
    one_shot_weight_with(a, settings, Override::Auto)
}

/// [`one_shot_weight`] under a per-object override: 1 for [`Override::Fog`] unless an exclusion no
/// override passes fired, 0 for [`Override::Billboards`].
pub fn one_shot_weight_with(a: &Assessment, settings: &Settings, o: Override) -> f32 {
    match o {
        Override::Auto => {}
        Override::Fog => return if o.decide(false, a.exclusions) { 1.0 } else { 0.0 },
        Override::Billboards => return 0.0,
    }
    let hi = settings.particle_fog_threshold;
    let lo = hi - HYSTERESIS_BAND;
    let s = a.decision_score();
    if s >= hi {
        1.0
    } else if s < lo {
        0.0
    } else {
        ((s - lo) / HYSTERESIS_BAND).clamp(0.0, 1.0)
    }
}

/// One fired exclusion, for creators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExclusionNote {
    /// Stable short id (`additive_blend`, `too_fast` ...).
    pub id: &'static str,
    /// A sentence with the measured value and the limit.
    pub sentence: String,
}

/// The rule id of an explanation when a person's override decided ([`Explanation::rule`]).
pub const RULE_OVERRIDE: &str = "override";
/// The rule id of an explanation when the soft score decided ([`Explanation::rule`]).
pub const RULE_SCORE: &str = "score";

/// Why a system does or does not become fog.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// Fog or billboard.
    pub verdict: Verdict,
    /// The soft score, 0..1.
    pub score: f32,
    /// The blend weight toward fog, 0..1.
    pub weight: f32,
    /// Every exclusion that fired, in a fixed order.
    pub exclusions: Vec<ExclusionNote>,
    /// Each factor's value.
    pub factors: Factors,
    /// The measured effect.
    pub measures: Measures,
    /// The emission term.
    pub emission: f32,
    /// The deciding reason in plain words (the first exclusion, else the weakest factor).
    pub decision: String,
    /// What would change the verdict, for the creator.
    pub to_change: String,
    /// What decided: the deciding exclusion's id ([`Exclusion::id`]), [`RULE_SCORE`] or
    /// [`RULE_OVERRIDE`].
    pub rule: &'static str,
    /// The per-object override in force.
    pub override_in_force: Override,
}

impl Explanation {
    /// Builds the explanation of an assessment with a given verdict and weight, no override.
    pub fn new(sys: &PartSysData, a: &Assessment, verdict: Verdict, weight: f32) -> Explanation {
        Explanation::with_override(sys, a, verdict, weight, Override::Auto)
    }

    /// Builds the explanation of an assessment with a given verdict and weight under the override
    /// `o`: which rule decided, in plain words, and the way out (changing the content, or an
    /// override where one applies).
    pub fn with_override(
        sys: &PartSysData,
        a: &Assessment,
        verdict: Verdict,
        weight: f32,
        o: Override,
    ) -> Explanation {
        let exclusions: Vec<ExclusionNote> = a
            .exclusions
            .iter()
            .map(|e| ExclusionNote { id: e.id(), sentence: e.sentence(sys, &a.measures) })
            .collect();
        let (rule, decision, to_change) = decide_words(sys, a, verdict, o, &exclusions);
        Explanation {
            verdict,
            score: a.score,
            weight,
            exclusions,
            factors: a.factors,
            measures: a.measures,
            emission: a.emission,
            decision,
            to_change,
            rule,
            override_in_force: o,
        }
    }

    /// The explanation of a one-shot classification: fog when the decision score reaches the
    /// threshold, with [`one_shot_weight`].
    pub fn one_shot(sys: &PartSysData, a: &Assessment, settings: &Settings) -> Explanation {
        Explanation::one_shot_with(sys, a, settings, Override::Auto)
    }

    /// [`Explanation::one_shot`] under the override `o` ([`one_shot_weight_with`]).
    pub fn one_shot_with(sys: &PartSysData, a: &Assessment, settings: &Settings, o: Override) -> Explanation {
        let auto = a.decision_score() >= settings.particle_fog_threshold;
        let verdict = if o.decide(auto, a.exclusions) { Verdict::Fog } else { Verdict::Billboard };
        Explanation::with_override(sys, a, verdict, one_shot_weight_with(a, settings, o), o)
    }
}

/// The way out a per-object override gives after an exclusion's remedy.
fn override_way_out(e: Exclusion) -> &'static str {
    if e.overridable() {
        "; or, to make it fog as it is, set its per-object override to fog"
    } else {
        "; no per-object override makes it fog"
    }
}

/// The deciding rule, the decision and what would change it, under the override `o`.
fn decide_words(
    sys: &PartSysData,
    a: &Assessment,
    verdict: Verdict,
    o: Override,
    notes: &[ExclusionNote],
) -> (&'static str, String, String) {
    const BACK_TO_AUTO: &str = "set its per-object override back to auto to let the classifier decide";
    match o {
        Override::Billboards => (
            RULE_OVERRIDE,
            "a person set this system to billboards (per-object override: never fog)".to_owned(),
            BACK_TO_AUTO.to_owned(),
        ),
        Override::Fog => match blocking(a.exclusions) {
            Some(e) => (
                e.id(),
                format!(
                    "{}; the per-object override to fog does not apply: ribbons, targeted particles, HUD \
                     particles and switched-off settings are never fog",
                    e.sentence(sys, &a.measures)
                ),
                e.remedy().to_owned(),
            ),
            None => {
                let skipped = if notes.is_empty() {
                    format!("it skips the score ({:.2})", a.score)
                } else {
                    let ids: Vec<&str> = notes.iter().map(|n| n.id).collect();
                    format!(
                        "it skips the design's exclusions ({}) and the score ({:.2})",
                        ids.join(", "),
                        a.score
                    )
                };
                (
                    RULE_OVERRIDE,
                    format!("a person set this system to always fog (per-object override); {skipped}"),
                    BACK_TO_AUTO.to_owned(),
                )
            }
        },
        Override::Auto => match (a.exclusions.iter().next(), notes.first()) {
            (Some(e), Some(note)) => {
                (e.id(), note.sentence.clone(), format!("{}{}", e.remedy(), override_way_out(e)))
            }
            _ => {
                let (decision, mut to_change) = super::advice::from_factors(&a.factors, verdict);
                if verdict == Verdict::Billboard {
                    to_change.push_str("; or set its per-object override to fog");
                }
                (RULE_SCORE, decision, to_change)
            }
        },
    }
}
