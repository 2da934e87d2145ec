//! Properties of the LSL importer over generated input: it never panics, and whatever a rule list
//! says, the descriptor it produces respects the Second Life clamps (reference 4.2 and 8).

use particles::lsl::import;
use particles::types::blend;
use proptest::prelude::*;

/// Token soup from LSL's vocabulary, including the particle calls and unbalanced brackets.
fn token_soup() -> impl Strategy<Value = String> {
    let words = vec![
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "<",
        ">",
        ",",
        ";",
        "=",
        "+",
        "-",
        "*",
        "/",
        "|",
        ".",
        "++",
        "llParticleSystem",
        "llLinkParticleSystem",
        "PSYS_PART_MAX_AGE",
        "PSYS_SRC_ACCEL",
        "LINK_SET",
        "1",
        "2.5",
        ".5",
        "0x1F",
        "\"s\"",
        "default",
        "state",
        "state_entry",
        "integer",
        "list",
        "x",
        "llFrand",
        "PI",
        "//c\n",
        "/*c*/",
    ];
    prop::collection::vec(prop::sample::select(words), 0..80).prop_map(|w| w.join(" "))
}

/// One rule value of any LSL type, in and out of range.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        (-1000i32..1000).prop_map(|i| i.to_string()),
        (-500.0f64..500.0).prop_map(|f| format!("{f:.3}")),
        (-200.0f64..200.0, -200.0f64..200.0, -200.0f64..200.0)
            .prop_map(|(x, y, z)| format!("<{x:.2}, {y:.2}, {z:.2}>")),
        Just("\"name\"".to_owned()),
        Just("llFrand(1.0)".to_owned()),
    ]
}

fn rule_script() -> impl Strategy<Value = String> {
    prop::collection::vec((0i32..30, value()), 0..20).prop_map(|pairs| {
        let body: Vec<String> = pairs.iter().map(|(c, v)| format!("{c}, {v}")).collect();
        format!("default {{ state_entry() {{ llParticleSystem([{}]); }} }}", body.join(", "))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn never_panics_on_token_soup(src in token_soup()) {
        let _ = import(&src);
    }

    #[test]
    fn never_panics_on_arbitrary_text(src in "\\PC{0,200}") {
        let _ = import(&src);
    }

    #[test]
    fn clamps_always_hold(src in rule_script()) {
        let calls = import(&src).map_err(|e| TestCaseError::fail(format!("{e}: {src}")))?;
        prop_assert_eq!(calls.len(), 1);
        let s = &calls[0].system;
        let p = &s.part;
        for c in [p.start_color, p.end_color] {
            prop_assert!(c.min_element() >= 0.0 && c.max_element() <= 1.0, "{:?}", c);
        }
        for g in [p.start_glow, p.end_glow] {
            prop_assert!((0.0..=1.0).contains(&g));
        }
        for sc in [p.start_scale, p.end_scale] {
            prop_assert!(sc.min_element() >= 0.0 && sc.max_element() <= 4.0, "{:?}", sc);
        }
        prop_assert!((0.0..=30.0).contains(&p.max_age));
        prop_assert!((0.0..=50.0).contains(&s.burst_radius));
        prop_assert!((0.0..=100.0).contains(&s.burst_speed_min) && (0.0..=100.0).contains(&s.burst_speed_max));
        prop_assert!(s.part_accel.abs().max_element() <= 100.0);
        prop_assert!(blend::is_valid_for_scripts(p.blend_func_source) && blend::is_valid_for_scripts(p.blend_func_dest));
        prop_assert!((0.0..=7.96875).contains(&s.inner_angle) && (0.0..=7.96875).contains(&s.outer_angle));
    }
}

#[test]
fn damaged_creator_scripts_fail_cleanly_or_import() {
    let path = format!("{}/testdata/lsl/campfire.lsl", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).expect("campfire.lsl");
    let chars: Vec<char> = src.chars().collect();
    let mut errors = 0;
    // Delete each 7-character window in turn: every result is either calls or a located error.
    for start in (0..chars.len().saturating_sub(7)).step_by(13) {
        let damaged: String = chars[..start].iter().chain(&chars[start + 7..]).collect();
        if let Err(e) = import(&damaged) {
            assert!(e.line >= 1 && e.column >= 1, "{e}");
            errors += 1;
        }
    }
    assert!(errors > 0, "some deletions break the bracket structure");
}
