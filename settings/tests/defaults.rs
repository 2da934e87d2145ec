//! The documentation cannot drift: `Default`, the `SETTINGS` table, the field doc comments and the
//! README table all state the same defaults, ranges and types, and every field is in the table.

use settings::{find, FogDebugMode, SettingType, SettingValue, Settings, SETTINGS};

/// Checks one field's default against the table and records that it was checked.
fn check(seen: &mut Vec<&'static str>, name: &'static str, value: SettingValue) {
    let desc = find(name).unwrap_or_else(|| panic!("field for {name} is not in SETTINGS"));
    assert_eq!(value, desc.default, "{name}: Default::default() disagrees with SETTINGS");
    seen.push(name);
}

#[test]
fn every_field_default_matches_the_table_and_every_table_row_is_a_field() {
    use SettingValue::{Boolean, F32, S32, U32};
    // Exhaustive destructuring: adding a field without listing it here does not compile.
    let Settings {
        volumetric_fog,
        particle_fog,
        particle_fog_strength,
        particle_fog_threshold,
        particle_fog_density,
        particle_fog_billow,
        particle_fog_billow_scale_m,
        particle_fog_billow_speed_m_per_s,
        particle_fog_debug,
        particle_fog_brick_budget_mb,
        particle_fog_voxel_size_m,
        particle_fog_range_m,
        particle_fog_march_divisor,
        particle_fog_attachments,
        max_part_count,
        froxel_grid_x,
        froxel_grid_y,
        froxel_grid_z,
        froxel_history_weight,
        froxel_range_m,
        volumetric_fog_reference,
        particle_capacity,
    } = Settings::default();
    let mut seen = Vec::new();
    let s = &mut seen;
    check(s, "RenderVKVolumetricFog", Boolean(volumetric_fog));
    check(s, "RenderVKParticleFog", Boolean(particle_fog));
    check(s, "RenderVKParticleFogStrength", F32(particle_fog_strength));
    check(s, "RenderVKParticleFogThreshold", F32(particle_fog_threshold));
    check(s, "RenderVKParticleFogDensity", F32(particle_fog_density));
    check(s, "RenderVKParticleFogBillow", F32(particle_fog_billow));
    check(s, "RenderVKParticleFogBillowScale", F32(particle_fog_billow_scale_m));
    check(s, "RenderVKParticleFogBillowSpeed", F32(particle_fog_billow_speed_m_per_s));
    check(s, "RenderVKParticleFogDebug", S32(particle_fog_debug.as_i32()));
    check(s, "RenderVKParticleFogBrickBudgetMB", U32(particle_fog_brick_budget_mb));
    check(s, "RenderVKParticleFogVoxelSize", F32(particle_fog_voxel_size_m));
    check(s, "RenderVKParticleFogRange", F32(particle_fog_range_m));
    check(s, "RenderVKParticleFogMarchDivisor", U32(particle_fog_march_divisor));
    check(s, "RenderVKParticleFogAttachments", Boolean(particle_fog_attachments));
    check(s, "RenderMaxPartCount", S32(max_part_count));
    check(s, "RenderVKVolumetricFogGridX", U32(froxel_grid_x));
    check(s, "RenderVKVolumetricFogGridY", U32(froxel_grid_y));
    check(s, "RenderVKVolumetricFogGridZ", U32(froxel_grid_z));
    check(s, "RenderVKVolumetricFogHistoryWeight", F32(froxel_history_weight));
    check(s, "RenderVKVolumetricFogRange", F32(froxel_range_m));
    check(s, "RenderVKVolumetricFogReference", Boolean(volumetric_fog_reference));
    check(s, "RenderVKParticleCapacity", U32(particle_capacity));
    let mut table: Vec<&str> = SETTINGS.iter().map(|d| d.name).collect();
    seen.sort_unstable();
    table.sort_unstable();
    assert_eq!(seen, table, "fields and SETTINGS rows differ");
}

#[test]
fn the_briefs_stated_defaults_hold() {
    // Values fixed by the design brief and the viewer, stated independently of the table.
    let d = Settings::default();
    assert!(d.volumetric_fog);
    assert!(!d.particle_fog, "particle fog is off by default");
    assert!(!d.particle_fog_attachments, "worn attachments stay billboards by default");
    assert_eq!(d.particle_fog_strength, 1.0);
    assert_eq!(d.particle_fog_threshold, 0.7);
    assert_eq!(d.particle_fog_voxel_size_m, 0.075);
    assert_eq!(d.particle_fog_debug, FogDebugMode::Off);
    assert_eq!(d.max_part_count, 4096, "viewer default RenderMaxPartCount");
    assert_eq!((d.froxel_grid_x, d.froxel_grid_y, d.froxel_grid_z), (160, 90, 64));
    assert_eq!(d.froxel_history_weight, 0.9);
    assert_eq!(d.froxel_range_m, 96.0);
    assert_eq!(d.particle_capacity, 8192);
    let max_parts = find("RenderMaxPartCount").map(|d| d.max);
    assert_eq!(max_parts, Some(SettingValue::S32(8192)), "viewer hard cap LL_MAX_PARTICLE_COUNT");
    let capacity = find("RenderVKParticleCapacity").map(|d| d.max);
    assert_eq!(capacity, Some(SettingValue::U32(4_000_000)));
    let history = find("RenderVKVolumetricFogHistoryWeight").map(|d| d.max);
    assert_eq!(history, Some(SettingValue::F32(0.98)));
    assert!(!find("RenderVKParticleFogDebug").is_some_and(|d| d.persist), "debug is not saved");
}

#[test]
fn table_rows_are_consistent() {
    for (i, desc) in SETTINGS.iter().enumerate() {
        assert!(SETTINGS[..i].iter().all(|d| d.name != desc.name), "{} twice", desc.name);
        for v in [desc.default, desc.min, desc.max] {
            assert_eq!(v.ty(), desc.ty, "{}: {v:?} has the wrong type", desc.name);
        }
        assert!(desc.min.as_f64() <= desc.default.as_f64(), "{}: default < min", desc.name);
        assert!(desc.default.as_f64() <= desc.max.as_f64(), "{}: default > max", desc.name);
        assert!(!desc.comment.is_empty() && !desc.comment.contains('\n'), "{}", desc.name);
    }
}

#[test]
fn get_and_set_reach_every_setting() {
    for desc in SETTINGS {
        let mut s = Settings::default();
        assert_eq!(s.get(desc.name).ok(), Some(desc.default), "{}", desc.name);
        for bound in [desc.min, desc.max] {
            s.set(desc.name, bound).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(s.get(desc.name).ok(), Some(bound), "{}", desc.name);
        }
        // The other settings were not touched.
        for other in SETTINGS.iter().filter(|o| o.name != desc.name) {
            assert_eq!(s.get(other.name).ok(), Some(other.default), "{} leaked", other.name);
        }
    }
}

#[test]
fn debug_mode_round_trips_through_its_integer() {
    for i in 0..=5 {
        let mode = FogDebugMode::from_i32(i).expect("0..=5 are modes");
        assert_eq!(mode.as_i32(), i);
        assert_eq!(mode.tints(), i <= 3 && i & 1 == 1, "bit 0 of 0..=3 is tint");
        assert_eq!(mode.draws_bounds(), i <= 3 && i & 2 == 2, "bit 1 of 0..=3 is bounds");
        assert_eq!(mode.writes_transmittance(), i == 4);
        assert_eq!(mode.writes_coverage(), i == 5);
    }
    assert_eq!(FogDebugMode::from_i32(6), None);
    assert_eq!(FogDebugMode::from_i32(-1), None);
}

/// The doc-comment block above each `pub` field of `Settings` in src/model.rs, keyed by the
/// setting name it starts with.
fn field_docs() -> Vec<(String, String)> {
    let source = include_str!("../src/model.rs");
    let body = source.split("pub struct Settings {").nth(1).expect("struct Settings in model.rs");
    let mut docs = Vec::new();
    let mut block = String::new();
    for line in body.lines().map(str::trim) {
        if let Some(doc) = line.strip_prefix("///") {
            block.push_str(doc);
            block.push(' ');
        } else if line.starts_with("pub ") {
            let name = between(&block, "`", "`").expect("doc starts with `Name`");
            docs.push((name.to_owned(), std::mem::take(&mut block)));
        } else if line == "}" {
            break;
        }
    }
    docs
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let rest = &text[text.find(start)? + start.len()..];
    Some(&rest[..rest.find(end)?])
}

#[test]
fn field_doc_comments_state_the_tables_default_and_range() {
    let docs = field_docs();
    assert_eq!(docs.len(), SETTINGS.len(), "one documented field per setting");
    for (name, doc) in docs {
        let desc = find(&name).unwrap_or_else(|| panic!("doc names unknown setting {name}"));
        let stated = between(&doc, "Default: `", "`");
        assert_eq!(stated, Some(desc.default.to_string().as_str()), "{name} doc default");
        if desc.ty != SettingType::Boolean {
            let range = between(&doc, "Range: `", "`");
            assert_eq!(range, Some(desc.range_text().as_str()), "{name} doc range");
        }
    }
}

#[test]
fn readme_table_states_the_tables_type_default_range_and_persistence() {
    let readme = include_str!("../README.md");
    let rows: Vec<Vec<&str>> = readme
        .lines()
        .filter(|l| l.starts_with("| `Render"))
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), SETTINGS.len(), "one README row per setting");
    for row in rows {
        // | `Name` | Type | `default` | `range` | persist | meaning |
        let name = row[1].trim_matches('`');
        let desc = find(name).unwrap_or_else(|| panic!("README names unknown setting {name}"));
        assert_eq!(row[2], desc.ty.as_str(), "{name} README type");
        assert_eq!(row[3].trim_matches('`'), desc.default.to_string(), "{name} README default");
        let range = if desc.ty == SettingType::Boolean { "-".to_owned() } else { desc.range_text() };
        assert_eq!(row[4].trim_matches('`'), range, "{name} README range");
        assert_eq!(row[5], if desc.persist { "yes" } else { "no" }, "{name} README persist");
    }
}
