//! The creator report: JSON shape, one-shot weights, texture policies, text table.

use fog::classify::factors::{SOFTNESS_HI, SOFTNESS_LO};
use fog::classify::TextureVerdict;
use fog::report::{assess_all, report_json, report_table, ReportInput, UnknownTexturePolicy};
use fog::FogError;
use glam::{Vec2, Vec4};
use particles::types::{blend, pattern, PartSysData, Uuid};
use settings::Settings;

const MIST_TEX: &str = "aaaaaaaa-0000-0000-0000-000000000001";

fn mist() -> PartSysData {
    let mut s = PartSysData {
        pattern: pattern::DROP,
        burst_rate: 1.0,
        burst_part_count: 2,
        part_image_id: MIST_TEX.parse().expect("uuid"),
        ..Default::default()
    };
    s.part.max_age = 15.0;
    s.part.start_scale = Vec2::splat(3.0);
    s.part.start_color = Vec4::new(0.8, 0.8, 0.8, 0.2);
    s
}

fn input(source: &str, system: PartSysData, texture: &str) -> ReportInput {
    ReportInput {
        source: source.into(),
        system,
        texture: texture.into(),
        attachment: false,
        hud: false,
        key: fog::SystemKey::from_name(source),
        override_in_force: fog::Override::Auto,
    }
}

/// A soft texture; its factor is smoothstep(SOFTNESS_LO, SOFTNESS_HI, softness).
fn soft(softness: f32) -> TextureVerdict {
    TextureVerdict {
        softness,
        shape_is_soft: true,
        mean_alpha: 0.3,
        is_default_texture: false,
        rotationally_symmetric: true,
    }
}

fn fog_on() -> Settings {
    Settings { particle_fog: true, ..Settings::default() }
}

#[test]
fn json_report_lists_verdicts_weights_exclusions_and_factors() {
    let mut additive = mist();
    additive.part.blend_func_dest = blend::ONE;
    let inputs = [
        input("mist.lsl:3", mist(), MIST_TEX),
        input("glow.lsl:9", additive, MIST_TEX),
        input("half.lsl:1", mist(), "half"),
    ];
    // Softness 55 % up the soft ramp -> t = 0.55 -> score 3t^2 - 2t^3 = 0.57475, inside the band
    // [0.5, 0.7) -> weight (0.57475 - 0.5) / 0.2 = 0.37375.
    let half = SOFTNESS_LO + 0.55 * (SOFTNESS_HI - SOFTNESS_LO);
    let lookup = |name: &str| match name {
        MIST_TEX => Some(soft(0.9)),
        "half" => Some(soft(half)),
        _ => None,
    };
    let rows = assess_all(&inputs, lookup, UnknownTexturePolicy::Unknown, &fog_on());
    let v = report_json(&rows);
    let systems = v["systems"].as_array().expect("systems array");
    assert_eq!(systems.len(), 3);
    assert_eq!(systems[0]["source"], "mist.lsl:3");
    assert_eq!(systems[0]["verdict"], "fog");
    assert_eq!(systems[0]["weight"], 1.0);
    assert_eq!(systems[0]["score"], 1.0);
    assert_eq!(systems[0]["exclusions"].as_array().map(Vec::len), Some(0));
    assert_eq!(systems[1]["verdict"], "billboard");
    assert_eq!(systems[1]["weight"], 0.0);
    assert_eq!(systems[1]["exclusions"][0], "additive_blend");
    assert_eq!(systems[1]["factors"]["normal_blend"], 0.0);
    assert!(systems[1]["reasons"][0].as_str().is_some_and(|r| r.contains("(7, 0)")));
    assert_eq!(systems[2]["verdict"], "billboard", "below the threshold");
    let w = systems[2]["weight"].as_f64().expect("weight");
    assert!((w - 0.37375).abs() < 2e-3, "linear blend inside the band, got {w}");
    for key in ["big", "faint", "slow", "long_lived", "normal_blend", "soft", "alive"] {
        assert!(systems[0]["factors"][key].is_number(), "factor {key}");
    }
}

#[test]
fn unknown_texture_policy_decides_textures_without_statistics() {
    let inputs = [input("a", mist(), "no-such-texture")];
    let verdict = |policy| {
        let rows = assess_all(&inputs, |_| None, policy, &fog_on());
        let e = &rows[0].explanation;
        (e.verdict.as_str(), e.exclusions.iter().map(|n| n.id).collect::<Vec<_>>())
    };
    assert_eq!(verdict(UnknownTexturePolicy::Unknown), ("billboard", vec!["unknown_texture"]));
    assert_eq!(verdict(UnknownTexturePolicy::Soft), ("fog", vec![]));
    assert_eq!(verdict(UnknownTexturePolicy::Shaped), ("billboard", vec!["shaped_texture"]));
    assert_eq!("Soft".parse(), Ok(UnknownTexturePolicy::Soft));
    assert_eq!("fuzzy".parse::<UnknownTexturePolicy>(), Err(FogError::UnknownTexturePolicy("fuzzy".into())));
}

#[test]
fn the_default_texture_is_soft_only_when_large() {
    let mut big = mist();
    big.part_image_id = Uuid::NIL;
    big.part.start_scale = Vec2::splat(4.0);
    let mut small = big;
    small.part.start_scale = Vec2::splat(0.8);
    let inputs = [input("big", big, ""), input("small", small, "")];
    let rows = assess_all(&inputs, |_| None, UnknownTexturePolicy::Unknown, &fog_on());
    assert_eq!(rows[0].explanation.verdict.as_str(), "fog");
    assert_eq!(rows[0].explanation.factors.soft, 1.0);
    assert_eq!(rows[1].explanation.factors.soft, 0.0, "0.8 m pixies still look like sparkles");
    assert_eq!(rows[1].explanation.verdict.as_str(), "billboard");
}

#[test]
fn text_table_names_each_system_and_its_reasons() {
    let mut tiny = mist();
    tiny.part.start_scale = Vec2::splat(0.2);
    let inputs = [input("scene/fog.toml#machine", mist(), MIST_TEX), input("tiny.lsl:12", tiny, MIST_TEX)];
    let rows = assess_all(&inputs, |_| Some(soft(0.9)), UnknownTexturePolicy::Unknown, &fog_on());
    let text = report_table(&rows);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("source"));
    assert!(lines[1].starts_with("scene/fog.toml#machine") && lines[1].contains("fog"));
    assert!(lines[2].starts_with("    why: ") && lines[3].starts_with("    to change: "), "{text}");
    let tiny_row = lines.iter().position(|l| l.starts_with("tiny.lsl:12")).expect("tiny row");
    assert!(lines[tiny_row].contains("too_small"));
    let why = lines[tiny_row + 1];
    assert!(
        why.starts_with("    why: ")
            && why.contains("particles are 0.20 m: smaller than the 0.5 m the design converts"),
        "{why}"
    );
    assert!(lines[tiny_row + 2].contains("make the particles at least 0.5 m across"), "{text}");
}
