//! Report inputs from LSL scripts and hex PSYS blocks, classified end to end.

use fog::classify::TextureVerdict;
use fog::report::{assess_all, input_from_hex, inputs_from_lsl, UnknownTexturePolicy};
use fog::FogError;
use glam::{Vec2, Vec4};
use particles::codec::{encode, to_hex};
use particles::types::{blend, pattern, PartSysData};
use settings::Settings;

const FOG_MACHINE_LSL: &str = r#"default
{
    state_entry()
    {
        llParticleSystem([
            PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_EXPLODE,
            PSYS_SRC_BURST_RADIUS, 1.5,
            PSYS_SRC_BURST_SPEED_MIN, 0.05, PSYS_SRC_BURST_SPEED_MAX, 0.1,
            PSYS_SRC_BURST_RATE, 0.5, PSYS_SRC_BURST_PART_COUNT, 4,
            PSYS_PART_MAX_AGE, 12.0,
            PSYS_PART_START_SCALE, <4.0, 4.0, 0.0>,
            PSYS_PART_START_ALPHA, 0.25,
            PSYS_SRC_TEXTURE, "fog puff"
        ]);
    }
    touch_start(integer n)
    {
        llParticleSystem([]);
    }
}
"#;

fn fog_on() -> Settings {
    Settings { particle_fog: true, ..Settings::default() }
}

fn soft(name: &str) -> Option<TextureVerdict> {
    (name == "fog puff").then_some(TextureVerdict::ASSUMED_SOFT)
}

#[test]
fn an_lsl_fog_machine_is_reported_as_fog_with_its_line() {
    let inputs = inputs_from_lsl("machine.lsl", FOG_MACHINE_LSL).expect("parses");
    assert_eq!(inputs.len(), 1, "the switch-off call is not a system");
    assert_eq!(inputs[0].source, "machine.lsl:5");
    assert_eq!(inputs[0].texture, "fog puff");
    assert_eq!(inputs[0].system.pattern, pattern::EXPLODE);
    let rows = assess_all(&inputs, soft, UnknownTexturePolicy::Unknown, &fog_on());
    assert_eq!(rows[0].explanation.verdict.as_str(), "fog", "{:?}", rows[0].explanation);
    // Without statistics for "fog puff" the inventory name is not the default texture.
    let rows = assess_all(&inputs, |_| None, UnknownTexturePolicy::Unknown, &fog_on());
    let ids: Vec<&str> = rows[0].explanation.exclusions.iter().map(|n| n.id).collect();
    assert_eq!(ids, ["unknown_texture"]);
}

#[test]
fn a_broken_script_names_the_file() {
    let err = inputs_from_lsl("bad.lsl", "default { state_entry() { llParticleSystem([ }")
        .expect_err("unbalanced brackets");
    assert!(matches!(&err, FogError::Lsl { label, .. } if label == "bad.lsl"));
    assert!(err.to_string().starts_with("bad.lsl: line "), "{err}");
}

#[test]
fn a_hex_block_round_trips_into_the_report() {
    let mut sys = PartSysData {
        pattern: pattern::DROP,
        burst_rate: 1.0,
        burst_part_count: 2,
        part_image_id: "aaaaaaaa-0000-0000-0000-000000000001".parse().expect("uuid"),
        ..Default::default()
    };
    sys.part.max_age = 15.0;
    sys.part.start_scale = Vec2::splat(3.0);
    sys.part.start_color = Vec4::new(0.8, 0.8, 0.8, 0.2);
    let input = input_from_hex("packet 17", &to_hex(&encode(&sys))).expect("decodes");
    assert_eq!(input.texture, "aaaaaaaa-0000-0000-0000-000000000001");
    assert_eq!(input.source, "packet 17");
    let lookup = |name: &str| (name == input.texture).then_some(TextureVerdict::ASSUMED_SOFT);
    let rows = assess_all(std::slice::from_ref(&input), lookup, UnknownTexturePolicy::Unknown, &fog_on());
    assert_eq!(rows[0].explanation.verdict.as_str(), "fog");

    sys.part.blend_func_dest = blend::ONE;
    let additive = input_from_hex("packet 18", &to_hex(&encode(&sys))).expect("decodes");
    let rows = assess_all(&[additive], lookup, UnknownTexturePolicy::Unknown, &fog_on());
    assert_eq!(rows[0].explanation.exclusions[0].id, "additive_blend");
}

#[test]
fn bad_hex_and_null_blocks_are_errors_not_panics() {
    assert!(matches!(input_from_hex("x", "zz"), Err(FogError::Hex { .. })));
    assert!(matches!(input_from_hex("x", "abc"), Err(FogError::Hex { .. })));
    assert!(matches!(input_from_hex("x", ""), Err(FogError::NotASystem { .. })));
    assert!(matches!(input_from_hex("x", "00ff"), Err(FogError::NotASystem { .. })));
}

#[test]
fn a_scripts_calls_share_its_object_id_and_take_their_link_number() {
    let script = "default { state_entry() {\n\
        llParticleSystem([PSYS_PART_MAX_AGE, 5.0]);\n\
        llLinkParticleSystem(3, [PSYS_PART_MAX_AGE, 5.0]);\n\
        llLinkParticleSystem(LINK_ROOT, [PSYS_PART_MAX_AGE, 5.0]);\n\
        llLinkParticleSystem(LINK_SET, [PSYS_PART_MAX_AGE, 5.0]);\n\
    } }";
    let inputs = inputs_from_lsl("chimney.lsl", script).expect("imports");
    let links: Vec<u32> = inputs.iter().map(|i| i.key.link).collect();
    assert_eq!(links, [0, 3, 1, 0], "own prim, link 3, the root, a set only the script knows");
    let object = fog::SystemKey::from_name("chimney.lsl").object;
    assert!(inputs.iter().all(|i| i.key.object == object), "one object");
}
