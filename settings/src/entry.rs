//! The entry of one of our settings in `settings.xml`: reading its value, and writing a changed value
//! into the entry the file holds (only `Value` changes) or a new entry.
//!
//! A stored value is read the way the viewer reads it: Booleans from integers or booleans, S32 and
//! U32 from integers or whole reals (the viewer's own file has `AFKTimeout` as an S32 holding
//! `<real>300.0</real>`), F32 from finite reals or integers. A value outside the setting's range is
//! clamped for the run with a warning that names the stored text; a negative U32 is out of range
//! (it is not read as its 32-bit pattern: `-5` is reported as `-5`, not 4294967291). The file keeps
//! the stored value until the setting is set.

use std::path::Path;

use roxmltree::Node;

use crate::lines::LineIndex;
use crate::llsd::{element_children, line_of, Llsd, LlsdParseError};
use crate::table::{SettingDesc, SettingType, SettingValue};
use crate::SettingsError;

/// One of our entries as read: the entry map as the file holds it and the value the run uses.
pub(crate) struct Known {
    pub(crate) stored: Llsd,
    pub(crate) value: SettingValue,
}

/// Reads the entry of one of our settings: its `Type` must match and its `Value` must convert.
pub(crate) fn read_known(
    path: &Path,
    desc: &SettingDesc,
    node: Node<'_, '_>,
    lines: &LineIndex,
) -> Result<Known, SettingsError> {
    let wrong_type = |line: u32, found: String| SettingsError::WrongType {
        path: path.to_owned(),
        line,
        setting: desc.name.to_owned(),
        expected: desc.ty.as_str().to_owned(),
        found,
    };
    let entry = Llsd::from_xml(node).map_err(|e| malformed(path, e))?;
    if !matches!(entry, Llsd::Map(_)) {
        return Err(wrong_type(line_of(node), format!("<{}> instead of an entry <map>", entry.kind())));
    }
    match entry.get("Type") {
        Some(Llsd::String(t)) if t == desc.ty.as_str() => {}
        None => {}
        Some(other) => return Err(wrong_type(line_of(node), format!("Type {}", describe(other)))),
    }
    let Some(stored) = entry.get("Value") else {
        let reason = format!("{}: setting entry has no Value", desc.name);
        return Err(SettingsError::Malformed { path: path.to_owned(), line: line_of(node), reason });
    };
    let Some(number) = stored_number(desc.ty, stored) else {
        let line = value_line(node).unwrap_or_else(|| line_of(node));
        return Err(wrong_type(line, describe(stored)));
    };
    let (value, clamped) = from_number(desc, number);
    if clamped {
        let shown = stored_text(stored);
        tracing::warn!(
            "{}:{}: {}: the stored value {shown} is outside {}; using {value} (the file keeps {shown} \
             until this setting is set)",
            path.display(),
            lines.line_of(node),
            desc.name,
            desc.range_text(),
        );
    }
    Ok(Known { stored: entry, value })
}

/// The stored value as a number of the setting's type, before range checks; `None` when the value
/// cannot be read as that type (a string, a fractional S32, a NaN F32).
fn stored_number(ty: SettingType, value: &Llsd) -> Option<f64> {
    let whole = |r: f64| (r.is_finite() && r.fract() == 0.0).then_some(r);
    match (ty, value) {
        (SettingType::Boolean, Llsd::Boolean(b)) => Some(f64::from(u8::from(*b))),
        (SettingType::Boolean, Llsd::Integer(i)) => Some(f64::from(u8::from(*i != 0))),
        (SettingType::S32 | SettingType::U32, Llsd::Integer(i)) => Some(f64::from(*i)),
        (SettingType::S32 | SettingType::U32, Llsd::Real(r)) => whole(*r),
        // Through f32 first, so the range check sees the value the run will use.
        (SettingType::F32, Llsd::Real(r)) if r.is_finite() => Some(f64::from(*r as f32)),
        (SettingType::F32, Llsd::Integer(i)) => Some(f64::from(*i as f32)),
        _ => None,
    }
}

/// `number` clamped into the setting's range as a value of its type, and whether it was clamped.
fn from_number(desc: &SettingDesc, number: f64) -> (SettingValue, bool) {
    let clamped = number.clamp(desc.min.as_f64(), desc.max.as_f64());
    let value = match desc.ty {
        SettingType::Boolean => SettingValue::Boolean(clamped != 0.0),
        SettingType::S32 => SettingValue::S32(clamped as i32),
        SettingType::U32 => SettingValue::U32(clamped as u32),
        SettingType::F32 => SettingValue::F32(clamped as f32),
    };
    (value, clamped != number)
}

/// The line of the value after `<key>Value</key>` in an entry map.
fn value_line(entry: Node<'_, '_>) -> Option<u32> {
    let mut children = element_children(entry);
    while let Some(key) = children.next() {
        let value = children.next()?;
        if key.text() == Some("Value") {
            return Some(line_of(value));
        }
    }
    None
}

/// An LLSD value as a message shows it: `<string> "abc"`, `<real> nan`.
fn describe(value: &Llsd) -> String {
    match value {
        Llsd::String(s) => format!("<string> {s:?}"),
        Llsd::Integer(i) => format!("<integer> {i}"),
        Llsd::Real(r) => format!("<real> {r}"),
        other => format!("<{}>", other.kind()),
    }
}

/// A stored scalar as the file states it (`-5`, `300`, `true`).
fn stored_text(value: &Llsd) -> String {
    match value {
        Llsd::Boolean(b) => b.to_string(),
        Llsd::Integer(i) => i.to_string(),
        Llsd::Real(r) => r.to_string(),
        other => describe(other),
    }
}

/// `stored` (an entry map the file holds) with its `Value` replaced by `value`, written in the
/// LLSD kind the file used where that kind holds it exactly; every other field is kept.
pub(crate) fn with_value(stored: &Llsd, value: SettingValue) -> Llsd {
    let Llsd::Map(fields) = stored else {
        return stored.clone();
    };
    let mut fields = fields.clone();
    if let Some((_, old)) = fields.iter_mut().find(|(key, _)| key == "Value") {
        *old = value_llsd(value, Some(old));
    }
    Llsd::Map(fields)
}

/// The entry map the viewer writes for one of our settings the file does not hold yet.
pub(crate) fn new_entry(desc: &SettingDesc, value: SettingValue) -> Llsd {
    Llsd::Map(vec![
        ("Comment".to_owned(), Llsd::String(desc.comment.to_owned())),
        ("Persist".to_owned(), Llsd::Integer(i32::from(desc.persist))),
        ("Type".to_owned(), Llsd::String(desc.ty.as_str().to_owned())),
        ("Value".to_owned(), value_llsd(value, None)),
    ])
}

/// `value` as LLSD: like `like` where its kind holds the value exactly, else the viewer's form
/// (Booleans as `<integer>`, U32 as the 32-bit integer the viewer stores, F32 as `<real>`).
fn value_llsd(value: SettingValue, like: Option<&Llsd>) -> Llsd {
    let like_real = matches!(like, Some(Llsd::Real(_)));
    match value {
        SettingValue::Boolean(b) if matches!(like, Some(Llsd::Boolean(_))) => Llsd::Boolean(b),
        SettingValue::Boolean(b) => Llsd::Integer(i32::from(b)),
        SettingValue::S32(i) if like_real => Llsd::Real(f64::from(i)),
        SettingValue::S32(i) => Llsd::Integer(i),
        SettingValue::U32(u) if like_real => Llsd::Real(f64::from(u)),
        SettingValue::U32(u) => Llsd::Integer(u as i32),
        // Through the shortest decimal form, so 0.7f32 is written as 0.7, not 0.699999988079071.
        SettingValue::F32(x) => Llsd::Real(x.to_string().parse().unwrap_or(f64::from(x))),
    }
}

pub(crate) fn malformed(path: &Path, e: LlsdParseError) -> SettingsError {
    SettingsError::Malformed { path: path.to_owned(), line: e.line, reason: e.reason }
}
