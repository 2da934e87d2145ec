//! Properties of the LSL importer over generated input: it never panics, and whatever a rule list
//! says, the descriptor it produces respects the Second Life clamps
//! (LL's setters in `llpartdata.cpp`, the `lsl-definitions` ranges).

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

/// `count` globals, each the previous one joined with itself, after `first`; the script's line of
/// global `name{k}` is `k + 2` (line 1 declares the first, line 2 is `name0 = first`).
fn doubling_globals(ty: &str, first: &str, count: usize) -> String {
    let mut src = format!("{ty} X = {first};\n{ty} X0 = X;\n");
    for k in 1..=count {
        src.push_str(&format!("{ty} X{k} = X{} + X{};\n", k - 1, k - 1));
    }
    src + "default { state_entry() { llParticleSystem([]); } }\n"
}

#[test]
fn a_list_larger_than_a_scripts_memory_is_an_error_at_its_line() {
    // 8 integers are 32 bytes; X11 = 32 * 2^11 = 65,536 bytes still fits the 64 KiB of a script,
    // X12 (131,072 bytes, on line 14) does not.
    let src = doubling_globals("list", "[1, 2, 3, 4, 5, 6, 7, 8]", 14);
    let e = import(&src).expect_err("X12 does not fit");
    assert_eq!((e.line, e.column), (14, 12), "{e}"); // `list X12 = ` is 11 characters
    assert!(e.message.contains("Stack-Heap Collision") && e.message.contains("list"), "{e}");
    // Thirty doublings (32 GiB if nothing stopped them) end at the same line, quickly.
    let start = std::time::Instant::now();
    let e = import(&doubling_globals("list", "[1, 2, 3, 4, 5, 6, 7, 8]", 30)).expect_err("too big");
    assert_eq!(e.line, 14);
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
}

#[test]
fn a_string_larger_than_a_scripts_memory_is_an_error_at_its_line() {
    // 16 characters are 32 bytes in UTF-16: the same arithmetic as the list of 8 integers.
    let e = import(&doubling_globals("string", "\"0123456789abcdef\"", 30)).expect_err("too big");
    assert_eq!(e.line, 14, "{e}");
    assert!(e.message.contains("string"), "{e}");
}

#[test]
fn a_list_doubled_in_a_handler_fails_at_the_statement_that_overflows() {
    // [1] is 4 bytes; after k doublings 4 * 2^k: k = 14 is 65,536 bytes, k = 15 does not fit.
    let mut src = "default {\n state_entry() {\n  list a = [1];\n".to_owned();
    for _ in 0..30 {
        src.push_str("  a = a + a;\n");
    }
    src.push_str("  llParticleSystem(a);\n }\n}\n");
    let e = import(&src).expect_err("too big");
    assert_eq!(e.line, 3 + 15, "{e}");
}

#[test]
fn copying_a_large_list_many_times_spends_a_bounded_budget() {
    // X13 is 4 * 2^13 = 32 KiB; 3,000 copies are 96 MiB of values, past the 64 MiB budget.
    let mut src = doubling_globals("list", "[1]", 13).replace("default {", "default {\n");
    let body: String = (0..3000).map(|_| "x = X13; ").collect();
    src = src.replace("llParticleSystem([]);", &format!("list x; {body} llParticleSystem(x);"));
    let e = import(&src).expect_err("budget");
    assert!(e.message.contains("too large to import"), "{e}");
}

#[test]
fn saving_large_variables_around_many_branches_spends_the_bounded_budget() {
    // Each `if` on a run-time condition saves what it may assign (X13, 32 KiB, through Touch())
    // and the value its first branch left: 64 KiB an `if`, 192 MiB for 3,000, past the budget.
    let mut src = doubling_globals("list", "[1]", 13)
        .replace("default {", "Touch() { if (FALSE) X13 = []; }\ndefault {");
    let body: String = (0..3000).map(|_| "if (llFrand(1.0) > 0.5) Touch();\n").collect();
    src = src.replace("llParticleSystem([]);", &format!("{body} llParticleSystem([]);"));
    let e = import(&src).expect_err("budget");
    assert!(e.message.contains("too large to import"), "{e}");
    // 900 are 56 MiB, within it with the globals (64 KiB).
    let few: String = (0..900).map(|_| "if (llFrand(1.0) > 0.5) Touch();\n").collect();
    let src = src.replace(&body, &few);
    assert!(import(&src).is_ok());
}

#[test]
fn nan_and_infinity_from_a_script_become_what_the_wire_carries() {
    let src = r#"default { state_entry() {
        vector c = <(float)"nan", 0.5, (float)"inf">;
        llParticleSystem([PSYS_PART_START_COLOR, c,
            PSYS_SRC_ACCEL, <(float)"-inf", (float)"NaN", 1.0>,
            PSYS_PART_MAX_AGE, (float)"nan",
            PSYS_SRC_BURST_SPEED_MAX, (float)"infinity",
            PSYS_PART_START_GLOW, (float)"nan"]);
    } }"#;
    let calls = import(src).expect("imports");
    let s = &calls[0].system;
    // NaN is 0 on the wire; an infinity is its rule's range end (colour 1, accel -100, speed 100).
    assert_eq!(s.part.start_color.truncate(), glam::Vec3::new(0.0, 0.5, 1.0));
    assert_eq!(s.part_accel, glam::Vec3::new(-100.0, 0.0, 1.0));
    assert_eq!((s.part.max_age, s.burst_speed_max, s.part.start_glow), (0.0, 100.0, 0.0));
    let nan_warnings = calls[0].warnings.iter().filter(|w| w.contains("NaN")).count();
    assert_eq!(nan_warnings, 4, "{:?}", calls[0].warnings);
    // The report holds numbers only, `psys encode` accepts its descriptor, and the block decodes
    // to the same values (these are exact on the wire).
    let report = particles::lsl::import_report(src).expect("report");
    let descriptor = &report["calls"][0]["descriptor"];
    let text = serde_json::to_string(descriptor).expect("json");
    assert!(!text.contains("null"), "{text}");
    let hex = particles::json::encode_from_json(&text).expect("encodes");
    assert_eq!(hex, report["calls"][0]["hex"].as_str().expect("hex"));
    let bytes = particles::codec::parse_hex(&hex).expect("hex");
    let particles::codec::Decoded::System(d) = particles::codec::decode(&bytes) else {
        panic!("not a system")
    };
    assert_eq!(d.part_accel, s.part_accel);
    assert_eq!((d.part.max_age, d.burst_speed_max, d.part.start_color.x), (0.0, 100.0, 0.0));
}

#[test]
fn a_pattern_no_viewer_has_is_kept_with_a_warning_saying_what_is_drawn() {
    let src = "default { state_entry() {
        llParticleSystem([PSYS_SRC_PATTERN, 99]);
        llParticleSystem([PSYS_SRC_PATTERN, 6]);
        llParticleSystem([PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_ANGLE_CONE]);
    } }";
    let calls = import(src).expect("imports");
    // 99 = 0x63 has the DROP bit (the viewer tests DROP first); 6 = EXPLODE | ANGLE is drawn as EXPLODE.
    assert_eq!(calls[0].system.pattern, 99, "kept raw, as the wire carries it");
    let warned = |i: usize, kind: &str| {
        calls[i]
            .warnings
            .iter()
            .any(|w| w.contains("PSYS_SRC_PATTERN") && w.contains("99") == (i == 0) && w.ends_with(kind))
    };
    assert!(warned(0, "DROP"), "{:?}", calls[0].warnings);
    assert_eq!(calls[1].system.pattern, 6);
    assert!(warned(1, "EXPLODE"), "{:?}", calls[1].warnings);
    assert!(calls[2].warnings.is_empty(), "a real pattern is no warning: {:?}", calls[2].warnings);
}
