//! The `particle-fog classify` report: one-shot verdicts for a list of systems, as a JSON value
//! and as a text table, so creators can see why a build does or does not become fog.
//!
//! Each system is classified once with [`crate::classify()`] under the settings as given (the CLI
//! chooses its defaults); there is no history, so the weight is [`crate::classify::one_shot_weight`]: 1 at or above
//! the threshold, 0 below threshold - 0.2, linear in between.

use std::fmt::Write as _;
use std::str::FromStr;

use particles::types::PartSysData;
use serde_json::{json, Map, Value};
use settings::Settings;

use crate::classify::{classify, Explanation, Override, SystemContext, SystemKey, TextureVerdict};
use crate::overrides_file::OverridesFile;
use crate::FogError;

mod inputs;

pub use inputs::{input_from_hex, inputs_from_lsl};

/// What to assume for a texture whose statistics the lookup cannot provide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnknownTexturePolicy {
    /// Leave it unknown: the system stays a billboard (`unknown_texture`), as in the viewer.
    #[default]
    Unknown,
    /// Assume a soft puff ([`TextureVerdict::ASSUMED_SOFT`]).
    Soft,
    /// Assume a shaped sprite ([`TextureVerdict::ASSUMED_SHAPED`]).
    Shaped,
}

impl UnknownTexturePolicy {
    /// The verdict this policy assumes, `None` for [`UnknownTexturePolicy::Unknown`].
    pub fn assumed(self) -> Option<TextureVerdict> {
        match self {
            UnknownTexturePolicy::Unknown => None,
            UnknownTexturePolicy::Soft => Some(TextureVerdict::ASSUMED_SOFT),
            UnknownTexturePolicy::Shaped => Some(TextureVerdict::ASSUMED_SHAPED),
        }
    }
}

impl FromStr for UnknownTexturePolicy {
    type Err = FogError;

    fn from_str(s: &str) -> Result<Self, FogError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "unknown" => Ok(UnknownTexturePolicy::Unknown),
            "soft" => Ok(UnknownTexturePolicy::Soft),
            "shaped" => Ok(UnknownTexturePolicy::Shaped),
            _ => Err(FogError::UnknownTexturePolicy(s.to_owned())),
        }
    }
}

/// One system to report on.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportInput {
    /// Where it came from (`file:line` or a scene name).
    pub source: String,
    /// The descriptor.
    pub system: PartSysData,
    /// The texture as the user named it (UUID text, inventory name or file name); empty for the
    /// viewer's default texture.
    pub texture: String,
    /// Worn on an avatar.
    pub attachment: bool,
    /// A HUD attachment.
    pub hud: bool,
    /// The system's object id and link number, which its per-object override is stored under.
    pub key: SystemKey,
    /// The per-object override in force.
    pub override_in_force: Override,
}

/// One reported system.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportRow {
    /// Where it came from.
    pub source: String,
    /// The texture as named.
    pub texture: String,
    /// The system's object id and link number.
    pub key: SystemKey,
    /// The one-shot explanation.
    pub explanation: Explanation,
}

/// Classifies every input once. `lookup` maps a texture name to its verdict; when it has none,
/// a system using the viewer's default texture (no texture named, or the nil UUID) gets
/// [`TextureVerdict::viewer_default`] and any other gets what `policy` assumes.
pub fn assess_all<F>(
    inputs: &[ReportInput],
    lookup: F,
    policy: UnknownTexturePolicy,
    settings: &Settings,
) -> Vec<ReportRow>
where
    F: Fn(&str) -> Option<TextureVerdict>,
{
    inputs
        .iter()
        .map(|input| {
            let texture = texture_context(input, &lookup, policy);
            let ctx =
                SystemContext { attachment: input.attachment, hud: input.hud, texture, live_count: None };
            let a = classify(&input.system, &ctx, settings);
            let explanation =
                Explanation::one_shot_with(&input.system, &a, settings, input.override_in_force);
            ReportRow {
                source: input.source.clone(),
                texture: input.texture.clone(),
                key: input.key,
                explanation,
            }
        })
        .collect()
}

/// Applies per-object overrides to `inputs` (over each input's own, e.g. a scene's): first those
/// `file` holds for their keys (the file holds only fog and billboards), then each
/// `ID=MODE` of `given` (later wins), where ID is a system's key (`OBJECT` or `OBJECT#LINK`, as the
/// report lists it) or its source name, and MODE `auto`, `fog` or `billboards`. An ID that names
/// no input is an error listing the names.
pub fn apply_overrides(
    inputs: &mut [ReportInput],
    file: Option<&OverridesFile>,
    given: &[String],
) -> Result<(), FogError> {
    if let Some(file) = file {
        for input in inputs.iter_mut() {
            let stored = file.get(&input.key);
            if stored != Override::Auto {
                input.override_in_force = stored;
            }
        }
    }
    for text in given {
        let (id, mode) = parse_assignment(text)?;
        let by_key = id.parse::<SystemKey>().ok();
        let mut matched = false;
        for input in inputs.iter_mut() {
            if by_key.map_or(input.source == id, |k| k == input.key) {
                input.override_in_force = mode;
                matched = true;
            }
        }
        if !matched {
            let names: Vec<String> = inputs.iter().map(|i| format!("{} ({})", i.source, i.key)).collect();
            return Err(FogError::BadOverride {
                text: text.clone(),
                reason: format!("no system has that id or name; the systems: {}", names.join(", ")),
            });
        }
    }
    Ok(())
}

/// `ID=MODE` as (ID, the override).
pub fn parse_assignment(text: &str) -> Result<(&str, Override), FogError> {
    let (id, mode) = text.rsplit_once('=').ok_or_else(|| FogError::BadOverride {
        text: text.to_owned(),
        reason: "not of the form ID=fog|billboards|auto".to_owned(),
    })?;
    let mode = mode.parse::<Override>().map_err(|_| FogError::BadOverride {
        text: text.to_owned(),
        reason: format!("{mode:?} is not fog, billboards or auto"),
    })?;
    Ok((id.trim(), mode))
}

/// The texture verdict of `input`: `lookup`'s for its texture name; when it has none, the
/// viewer's default texture's for a system that uses it, else what `policy` assumes. The renderer
/// resolves its systems' textures with this too, so it converts what this report says.
pub fn texture_context<F>(
    input: &ReportInput,
    lookup: F,
    policy: UnknownTexturePolicy,
) -> Option<TextureVerdict>
where
    F: Fn(&str) -> Option<TextureVerdict>,
{
    lookup(&input.texture).or_else(|| {
        if names_default_texture(input) {
            Some(TextureVerdict::viewer_default())
        } else {
            policy.assumed()
        }
    })
}

/// True when the input uses the viewer's default texture: no texture id, and no name or the nil
/// UUID as its name (an inventory name leaves the id nil too, but is not the default texture).
fn names_default_texture(input: &ReportInput) -> bool {
    let nil_name = input.texture.parse::<particles::Uuid>().is_ok_and(|id| id.is_nil());
    input.system.uses_default_texture() && (input.texture.trim().is_empty() || nil_name)
}

/// Decimal places kept for scores, factors and measures in the JSON report.
const JSON_DECIMALS: i32 = 4;

/// Rounds to [`JSON_DECIMALS`] places; non-finite values become `null`.
fn num(x: f32) -> Value {
    let scale = 10f64.powi(JSON_DECIMALS);
    let r = (f64::from(x) * scale).round() / scale;
    serde_json::Number::from_f64(r).map_or(Value::Null, Value::Number)
}

/// The JSON report: `{"systems":[{"source","id","texture","verdict","score","weight","emission",
/// "rule","override","exclusions":[ids],"reasons":[sentences],"decision","to_change",
/// "factors":{..},"measures":{..}}]}`; `rule` is what decided (an exclusion's id, `score` or
/// `override`), `override` the per-object override in force (`auto`, `fog`, `billboards`).
pub fn report_json(rows: &[ReportRow]) -> Value {
    let systems: Vec<Value> = rows.iter().map(row_json).collect();
    json!({ "systems": systems })
}

/// One system of the JSON report.
fn row_json(row: &ReportRow) -> Value {
    let e = &row.explanation;
    let factors: Map<String, Value> =
        e.factors.named().iter().map(|(k, v)| ((*k).to_owned(), num(*v))).collect();
    let m = &e.measures;
    json!({
        "source": row.source,
        "id": row.key.to_string(),
        "texture": row.texture,
        "verdict": e.verdict.as_str(),
        "score": num(e.score),
        "weight": num(e.weight),
        "emission": num(e.emission),
        "rule": e.rule,
        "override": e.override_in_force.as_str(),
        "exclusions": e.exclusions.iter().map(|n| n.id).collect::<Vec<_>>(),
        "reasons": e.exclusions.iter().map(|n| n.sentence.as_str()).collect::<Vec<_>>(),
        "decision": e.decision,
        "to_change": e.to_change,
        "factors": factors,
        "measures": {
            "size_m": num(m.size_m),
            "speed_m_per_s": num(m.speed_m_per_s),
            "ballistic_speed_m_per_s": num(m.ballistic_speed_m_per_s),
            "sizes_per_s": num(m.sizes_per_s),
            "stream_continuity": num(m.stream_continuity),
            "life_s": num(m.life_s),
            "alive": num(m.alive),
            "spacing_m": num(m.spacing_m()),
            "overlap": num(m.overlap),
            "spreading": num(m.spreading),
            "alpha": num(m.alpha),
        },
    })
}

/// The human text table: one line per system (source, verdict, score, weight, the factors, the
/// exclusion ids), then indented lines: why, what would change it, every further exclusion's
/// sentence, and the system's id with its per-object override.
pub fn report_table(rows: &[ReportRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<32} {:<9} {:>5} {:>6}  {:>4} {:>5} {:>4} {:>4} {:>5} {:>4} {:>5}  exclusions",
        "source", "verdict", "score", "weight", "big", "faint", "slow", "long", "blend", "soft", "alive"
    );
    for row in rows {
        let e = &row.explanation;
        let f = &e.factors;
        let ids: Vec<&str> = e.exclusions.iter().map(|n| n.id).collect();
        let _ = writeln!(
            out,
            "{:<32} {:<9} {:>5.2} {:>6.2}  {:>4.2} {:>5.2} {:>4.2} {:>4.2} {:>5.2} {:>4.2} {:>5.2}  {}",
            truncate(&row.source, 32),
            e.verdict.as_str(),
            e.score,
            e.weight,
            f.big,
            f.faint,
            f.slow,
            f.long_lived,
            f.normal_blend,
            f.soft,
            f.alive,
            if ids.is_empty() { "-".to_owned() } else { ids.join(",") }
        );
        let _ = writeln!(out, "    why: {}", e.decision);
        if !e.to_change.is_empty() {
            let _ = writeln!(out, "    to change: {}", e.to_change);
        }
        for note in e.exclusions.iter().skip(1) {
            let _ = writeln!(out, "    also {}: {}", note.id, note.sentence);
        }
        let _ = writeln!(out, "    id {}, override {} (rule: {})", row.key, e.override_in_force, e.rule);
    }
    out
}

/// The last `n` characters of `s` (file paths keep their informative end).
fn truncate(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count <= n {
        s.to_owned()
    } else {
        let tail: String = s.chars().skip(count - (n - 1)).collect();
        format!("~{tail}")
    }
}
