//! What [`super::encode`] will change in a descriptor, and what it must not write.
//!
//! [`encode`](super::encode) never fails: out-of-range values are clamped to their wire field
//! (see [`super::fixed`]) and the DATA_GLOW/DATA_BLEND bits are rewritten to match the tails. A
//! user who hand-writes a descriptor (`particle-fog psys encode`) must hear about each such change,
//! and must not get a block that means something other than a particle system. [`check`] says both:
//!
//! * **Refused** ([`Refusal`]): a CRC of 0 (the viewer reads the block as "no particle system",
//!   `LLPartSysData::isNullPS`) and a blend factor a simulator never sends (LL's `validBlendFunc`:
//!   0..=9 except 6 and 8; the viewer casts the byte straight into its blend table, and above 10
//!   reads out of its bounds: the table in `llrender.cpp` ends at 10).
//! * **Warned** (one text per value): every value outside its field's range (clamped: negative
//!   ages, rates, radii and speeds to 0; scales and angles to 7.96875; omega and acceleration to
//!   -256..=255.99; colours and glow to 0..=1), DATA_GLOW/DATA_BLEND bits cleared for a tail that is
//!   not written, and a pattern byte that is not one pattern (kept; the viewer tests its bits in
//!   priority order in `LLViewerPartSourceScript::update`).
//!
//! Quantisation to the field's step (0.1 s -> 0.09765625 s) is not a change worth a warning: every
//! value goes through it, and `psys decode` shows the result.

use glam::Vec4;

use super::encode::{color_byte, glow_byte};
use super::fixed::{Fixed, S8_7, U3_5, U8_8};
use crate::types::{blend, pattern, PartFlags, PartSysData, PatternKind};

/// Why a descriptor is not encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The CRC word is 0.
    #[error(
        "system.crc is 0: the viewer reads such a block as \"no particle system\"; use 1, as simulators do"
    )]
    CrcZero,
    /// A blend factor outside the script set.
    #[error("{field} is {value}: not a blend factor a simulator sends (0..=9 except 6 and 8; the viewer uses the byte unchecked as a GL blend-table index)")]
    BlendFactor {
        /// `particle.blend_func_source` or `particle.blend_func_dest`.
        field: &'static str,
        /// The value given.
        value: u8,
    },
}

/// The warnings for what [`super::encode`] changes in `sys`, or why it must not be encoded.
pub fn check(sys: &PartSysData) -> Result<Vec<String>, Refusal> {
    refuse(sys)?;
    let mut w = Vec::new();
    let p = &sys.part;
    let fields: [(&str, Fixed, &[f32]); 13] = [
        ("system.max_age", U8_8, &[sys.max_age]),
        ("system.start_age", U8_8, &[sys.start_age]),
        ("system.inner_angle", U3_5, &[sys.inner_angle]),
        ("system.outer_angle", U3_5, &[sys.outer_angle]),
        ("system.burst_rate", U8_8, &[sys.burst_rate]),
        ("system.burst_radius", U8_8, &[sys.burst_radius]),
        ("system.burst_speed_min", U8_8, &[sys.burst_speed_min]),
        ("system.burst_speed_max", U8_8, &[sys.burst_speed_max]),
        ("system.angular_velocity", S8_7, &sys.angular_velocity.to_array()),
        ("system.part_accel", S8_7, &sys.part_accel.to_array()),
        ("particle.max_age", U8_8, &[p.max_age]),
        ("particle.start_scale", U3_5, &p.start_scale.to_array()),
        ("particle.end_scale", U3_5, &p.end_scale.to_array()),
    ];
    for (name, format, values) in fields {
        w.extend(fixed(name, format, values));
    }
    unit(&mut w, "particle.start_color", p.start_color, color_byte);
    unit(&mut w, "particle.end_color", p.end_color, color_byte);
    unit(&mut w, "particle.start_glow", Vec4::splat(p.start_glow), glow_byte);
    unit(&mut w, "particle.end_glow", Vec4::splat(p.end_glow), glow_byte);
    w.extend(unknown_pattern(sys.pattern).map(|why| format!("system.pattern: {why}")));
    w.extend(tail_flag_warning(sys));
    Ok(w)
}

/// The refusals alone: for a decoded block, whose values are in range by construction.
pub fn refuse(sys: &PartSysData) -> Result<(), Refusal> {
    if sys.crc == 0 {
        return Err(Refusal::CrcZero);
    }
    let p = &sys.part;
    for (field, value) in
        [("particle.blend_func_source", p.blend_func_source), ("particle.blend_func_dest", p.blend_func_dest)]
    {
        if !blend::is_valid_for_scripts(value) {
            return Err(Refusal::BlendFactor { field, value });
        }
    }
    Ok(())
}

/// Warns (once per field) when a value lies outside `format`'s range: the encoder clamps it.
fn fixed(name: &str, format: Fixed, values: &[f32]) -> Option<String> {
    let (lo, hi) = (format.min_value(), format.max_value());
    let x = values.iter().copied().find(|x| *x < lo || *x > hi)?;
    Some(format!("{name}: {x} is outside {lo}..={hi}; written as {}", x.clamp(lo, hi)))
}

/// Warns once per field when a 0..1 channel is outside 0..=1 (`byte` is the encoder's conversion).
fn unit(w: &mut Vec<String>, name: &str, v: Vec4, byte: fn(f32) -> u8) {
    if let Some(x) = v.to_array().into_iter().find(|x| !(0.0..=1.0).contains(x)) {
        let to = f32::from(byte(x)) / 255.0;
        w.push(format!("{name}: {x} is outside 0..=1; written as {to}"));
    }
}

/// Why a pattern byte is worth a warning: it is not one of the five patterns (0 aside: OpenSim's
/// default, drawn as DROP); says what the viewer draws instead. Shared by `psys encode` and the LSL
/// importer.
pub(crate) fn unknown_pattern(byte: u8) -> Option<String> {
    let known =
        [0, pattern::DROP, pattern::EXPLODE, pattern::ANGLE, pattern::ANGLE_CONE, pattern::ANGLE_CONE_EMPTY];
    if known.contains(&byte) {
        return None;
    }
    let probe = PartSysData { pattern: byte, ..PartSysData::default() };
    let kind = match probe.pattern_kind() {
        PatternKind::Drop => "DROP",
        PatternKind::Explode => "EXPLODE",
        PatternKind::Angle => "ANGLE",
        PatternKind::AngleCone => "ANGLE_CONE",
    };
    Some(format!(
        "{byte} ({byte:#04x}) is not one pattern (1 DROP, 2 EXPLODE, 4 ANGLE, 8 ANGLE_CONE, \
         16 ANGLE_CONE_EMPTY); kept, and the viewer draws it as {kind}"
    ))
}

/// DATA_GLOW / DATA_BLEND bits set for a tail that is not written: the extended layout clears them
/// (bits it adds for the tails it writes are expected, not a change worth a warning).
fn tail_flag_warning(sys: &PartSysData) -> Option<String> {
    let p = &sys.part;
    let has_glow = glow_byte(p.start_glow) != 0 || glow_byte(p.end_glow) != 0;
    let has_blend = !p.is_normal_alpha_blend();
    if !(has_glow || has_blend) {
        return None;
    }
    let wanted =
        if has_glow { PartFlags::DATA_GLOW } else { 0 } | if has_blend { PartFlags::DATA_BLEND } else { 0 };
    let stray = p.flags.0 & (PartFlags::DATA_GLOW | PartFlags::DATA_BLEND) & !wanted;
    (stray != 0).then(|| {
        format!("particle.flags: tail bit(s) {stray:#x} cleared: the block carries no such glow/blend pair")
    })
}
