//! Text helpers for the `particle-fog settings list|get|set` command and `--set NAME=VALUE`
//! overrides. They return strings and typed errors; printing and exit codes belong to the binary.

use crate::table::{find, find_or_err, SettingType, SETTINGS};
use crate::{Llsd, Settings, SettingsError, SettingsFile};

/// One line per setting: name, value (marked `*` when it differs from the default), type, range,
/// default, and the comment on an indented second line.
pub fn list_text(file: &SettingsFile) -> String {
    let width = SETTINGS.iter().map(|d| d.name.len()).max().unwrap_or(0);
    let mut out = format!("# {}\n", file.path().display());
    for desc in SETTINGS {
        let Ok(value) = file.settings.get(desc.name) else {
            continue;
        };
        let changed = if value == desc.default { ' ' } else { '*' };
        let saved = if desc.persist { "" } else { ", not saved" };
        let range = match desc.ty {
            SettingType::Boolean => String::new(),
            _ => format!(", {}", desc.range_text()),
        };
        out.push_str(&format!(
            "{:width$} = {value}{changed} ({}{range}, default {}{saved})\n    {}\n",
            desc.name,
            desc.ty.as_str(),
            desc.default,
            desc.comment,
        ));
    }
    out
}

/// The value of one setting as text (`true`, `0.7`, `4096`).
pub fn get_text(settings: &Settings, name: &str) -> Result<String, SettingsError> {
    settings.get(name).map(|v| v.to_string())
}

/// `settings get NAME`: the value of one of our settings (`0.7`), or the value a key of the viewer's
/// that this crate does not own has in the file, marked as foreign:
/// `300 (foreign S32 setting, shown as stored; particle-fog does not use it)`.
pub fn get_in_file(file: &SettingsFile, name: &str) -> Result<String, SettingsError> {
    match (find(name), file.foreign(name)) {
        (None, Some(entry)) => Ok(foreign_text(entry)),
        // Ours, or the unknown-setting error with its "did you mean".
        _ => get_text(&file.settings, name),
    }
}

/// A foreign entry's stored value and type, marked as foreign.
fn foreign_text(entry: &Llsd) -> String {
    let note = "shown as stored; particle-fog does not use it";
    match (entry.get("Value"), entry.get("Type")) {
        (Some(value), Some(Llsd::String(ty))) => {
            format!("{} (foreign {ty} setting, {note})", value.compact_text())
        }
        (Some(value), _) => format!("{} (foreign setting, {note})", value.compact_text()),
        (None, _) => format!("{} (foreign entry, {note})", entry.compact_text()),
    }
}

/// `settings set NAME VALUE`: checks the value, sets it in `file` (so the next save writes only this
/// key's `Value`) and returns the line to print, `NAME = VALUE`. A `Persist` 0 setting is refused
/// with [`SettingsError::NotSaved`] (saving it would keep nothing), and a key of the viewer's the
/// file holds with [`SettingsError::Foreign`] (it is not this crate's to change).
pub fn set_in_file(file: &mut SettingsFile, name: &str, value_text: &str) -> Result<String, SettingsError> {
    if find(name).is_none() && file.foreign(name).is_some() {
        return Err(SettingsError::Foreign { name: name.to_owned() });
    }
    let desc = find_or_err(name)?;
    let value = desc.parse_text(value_text)?;
    if !desc.persist {
        return Err(SettingsError::NotSaved { setting: desc.name, value: value_text.trim().to_owned() });
    }
    file.set(desc.name, value)?;
    Ok(format!("{} = {value}", desc.name))
}

/// Sets one setting from text; the error names the setting and its accepted type or range.
pub fn set_text(settings: &mut Settings, name: &str, value_text: &str) -> Result<(), SettingsError> {
    settings.set_text(name, value_text)
}

/// Applies `NAME=VALUE` overrides in order (a later one wins). Stops at the first bad one and
/// leaves `settings` unchanged in that case.
pub fn apply_overrides(settings: &mut Settings, overrides: &[String]) -> Result<(), SettingsError> {
    let mut next = settings.clone();
    for text in overrides {
        let (name, value) =
            text.split_once('=').ok_or_else(|| SettingsError::BadOverride { text: text.clone() })?;
        let name = name.trim();
        find_or_err(name)?;
        next.set_text(name, value)?;
    }
    *settings = next;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn overrides_apply_in_order() {
        let mut s = Settings::default();
        let o = strings(&["RenderVKParticleFog=1", "RenderMaxPartCount=100", "RenderMaxPartCount=200"]);
        apply_overrides(&mut s, &o).expect("valid overrides");
        assert!(s.particle_fog);
        assert_eq!(s.max_part_count, 200);
    }

    #[test]
    fn a_bad_override_changes_nothing_and_says_why() {
        let mut s = Settings::default();
        let o = strings(&["RenderVKParticleFog=1", "RenderVKParticleFogThreshold=3.5"]);
        let err = apply_overrides(&mut s, &o).expect_err("3.5 out of range");
        assert_eq!(err.to_string(), "RenderVKParticleFogThreshold: 3.5 is outside 0.2..=1");
        assert_eq!(s, Settings::default());
    }

    #[test]
    fn malformed_overrides_are_named() {
        let mut s = Settings::default();
        let err = apply_overrides(&mut s, &strings(&["RenderVKParticleFog"])).expect_err("no =");
        assert!(err.to_string().contains("NAME=VALUE"), "{err}");
        let err = apply_overrides(&mut s, &strings(&["RenderVKParticleFg=1"])).expect_err("typo");
        assert_eq!(err.to_string(), "unknown setting RenderVKParticleFg (did you mean RenderVKParticleFog?)");
        let err = set_text(&mut s, "RenderVKParticleFog", "maybe").expect_err("not a bool");
        assert!(err.to_string().contains("Boolean (0, 1, true or false)"), "{err}");
        let err = set_text(&mut s, "RenderVKParticleFogBrickBudgetMB", "-5").expect_err("U32");
        assert!(err.to_string().contains("U32 integer in 16..=2048"), "{err}");
        let err = set_text(&mut s, "RenderVKParticleFogStrength", "NaN").expect_err("finite");
        assert!(err.to_string().contains("finite F32"), "{err}");
    }

    #[test]
    fn get_prints_shortest_forms() {
        let s = Settings::default();
        assert_eq!(get_text(&s, "RenderVKParticleFogThreshold").ok().as_deref(), Some("0.7"));
        assert_eq!(get_text(&s, "RenderVKVolumetricFog").ok().as_deref(), Some("true"));
        assert_eq!(get_text(&s, "RenderVKParticleFogVoxelSize").ok().as_deref(), Some("0.075"));
    }

    #[test]
    fn list_marks_changed_settings_and_shows_every_setting() {
        let mut file = SettingsFile::new("settings.xml");
        file.settings.particle_fog = true;
        let text = list_text(&file);
        for desc in SETTINGS {
            assert!(text.contains(desc.name), "{} missing from list", desc.name);
        }
        let fog_line = text.lines().find(|l| l.starts_with("RenderVKParticleFog ")).unwrap_or("");
        assert!(fog_line.contains("= true*"), "{fog_line}");
        let vol_line = text.lines().find(|l| l.starts_with("RenderVKVolumetricFog ")).unwrap_or("");
        assert!(vol_line.contains("= true  (Boolean, default true)"), "{vol_line}");
        let t_line = text.lines().find(|l| l.starts_with("RenderVKParticleFogThreshold ")).unwrap_or("");
        assert!(t_line.contains("= 0.7  (F32, 0.2..=1, default 0.7)"), "{t_line}");
        let d_line = text.lines().find(|l| l.starts_with("RenderVKParticleFogDebug ")).unwrap_or("");
        assert!(d_line.ends_with("not saved)"), "{d_line}");
    }
}
