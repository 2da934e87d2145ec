//! LSL import of creator-style scripts (`testdata/lsl/*.lsl`): every expected value below is read
//! off the script's own literals (or worked out by hand from them), never from the importer's output.

use glam::{Vec2, Vec3, Vec4};
use particles::lsl::{import, LinkTarget, LslCall};
use particles::types::{blend, pattern, PartFlags, SysFlags};
use particles::{PartSysData, Uuid};

fn script(name: &str) -> String {
    let path = format!("{}/testdata/lsl/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

fn calls(name: &str) -> Vec<LslCall> {
    import(&script(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// 1-based line of the `nth` (0-based) line containing `needle`, found by plain text search.
fn line_of(src: &str, needle: &str, nth: usize) -> u32 {
    let idx = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(nth)
        .unwrap_or_else(|| panic!("{needle:?} #{nth} not in script"))
        .0;
    u32::try_from(idx + 1).expect("small")
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

fn rules_unresolved(c: &LslCall) -> Vec<&str> {
    c.unresolved.iter().map(|u| u.rule.as_str()).collect()
}

#[test]
fn fog_machine_globals_and_flag_or() {
    let src = script("fog_machine.lsl");
    let c = calls("fog_machine.lsl");
    assert_eq!(c.len(), 1, "the call inside the string is text, not a call");
    let c = &c[0];
    assert_eq!(c.line, line_of(&src, "llParticleSystem([", 0));
    assert_eq!(c.function, "llParticleSystem");
    assert_eq!(c.link, None);
    assert!(!c.empty);
    let s = &c.system;
    assert_eq!(s.part.flags.0, 0x1 | 0x2 | 0x8);
    assert_eq!(s.pattern, pattern::EXPLODE);
    assert_eq!(s.part.start_color, Vec4::new(0.85, 0.85, 0.9, 0.4));
    assert_eq!(s.part.end_color, Vec4::new(1.0, 1.0, 1.0, 0.0));
    assert_eq!(s.part.start_scale, Vec2::new(2.0, 2.0));
    assert_eq!(s.part.end_scale, Vec2::new(4.0, 4.0));
    assert_eq!(s.part.max_age, 12.0);
    assert_eq!(s.burst_rate, 0.5);
    assert_eq!(s.burst_part_count, 5);
    assert_eq!(s.burst_radius, 1.5);
    assert_eq!((s.burst_speed_min, s.burst_speed_max), (0.05, 0.2));
    assert_eq!(s.part_accel, Vec3::new(0.0, 0.0, -0.02));
    assert_eq!(c.texture.as_deref(), Some("fog_soft"));
    assert!(s.part_image_id.is_nil(), "an inventory name leaves the id nil");
    // Rules the script does not name keep the LL defaults.
    let d = PartSysData::default();
    assert_eq!((s.max_age, s.inner_angle, s.outer_angle), (0.0, 0.0, 0.0));
    assert_eq!(
        (s.part.blend_func_source, s.part.blend_func_dest),
        (blend::SOURCE_ALPHA, blend::ONE_MINUS_SOURCE_ALPHA)
    );
    assert_eq!(s.angular_velocity, d.angular_velocity);
    assert!(c.unresolved.is_empty() && c.warnings.is_empty(), "{:?} {:?}", c.unresolved, c.warnings);
}

#[test]
fn linkset_targets_by_constant_number_and_expression() {
    let src = script("linkset.lsl");
    let c = calls("linkset.lsl");
    assert_eq!(c.len(), 5);
    assert!(c.iter().all(|c| c.function == "llLinkParticleSystem"));
    assert_eq!(c[0].link, Some(LinkTarget::Named("LINK_SET".into())));
    assert!(c[0].empty);
    assert_eq!(c[1].link, Some(LinkTarget::Number(3)));
    assert_eq!(c[1].line, line_of(&src, "llLinkParticleSystem(CHIMNEY", 0));
    assert_eq!(c[1].system.pattern, pattern::ANGLE_CONE);
    assert_eq!(c[1].texture.as_deref(), Some("5e120ba1-5805-dc57-66b7-f5ac4bd18f86"));
    let id: Uuid = "5e120ba1-5805-dc57-66b7-f5ac4bd18f86".parse().expect("uuid");
    assert_eq!(c[1].system.part_image_id, id);
    assert_eq!(c[1].system.part.flags.0, PartFlags::EMISSIVE | PartFlags::FOLLOW_VELOCITY);
    assert_eq!(c[1].system.burst_part_count, 10);
    assert_eq!(c[2].link, Some(LinkTarget::Named("LINK_THIS".into())));
    assert_eq!(
        (c[2].system.part.blend_func_source, c[2].system.part.blend_func_dest),
        (blend::ONE, blend::ONE_MINUS_SOURCE_ALPHA)
    );
    assert_eq!(c[2].system.part.start_glow, 0.2);
    assert_eq!(c[3].link, Some(LinkTarget::Number(4)));
    assert_eq!(c[3].system.part.max_age, 3.0, "an integer is accepted by a float rule");
    assert_eq!(c[4].link, None, "a detected link number is only known at run time");
    assert_eq!(rules_unresolved(&c[4]), vec!["link"]);
    assert!(c[4].unresolved[0].reason.contains("llDetectedLinkNumber"));
    assert_eq!(c[4].system.part.max_age, 1.0);
}

#[test]
fn campfire_several_systems_in_functions_and_states() {
    let c = calls("campfire.lsl");
    assert_eq!(c.len(), 4);
    let links: Vec<_> = c.iter().map(|c| c.link.clone()).collect();
    assert_eq!(
        links,
        vec![
            Some(LinkTarget::Named("LINK_ROOT".into())),
            Some(LinkTarget::Number(2)),
            Some(LinkTarget::Number(3)),
            Some(LinkTarget::Named("LINK_SET".into())),
        ]
    );
    let fire = &c[0].system;
    assert_eq!(fire.part.flags.0, 0x100 | 0x1 | 0x2);
    assert_eq!(fire.pattern, pattern::ANGLE_CONE);
    assert!(fire.flags.contains(SysFlags::USE_NEW_ANGLE));
    assert_eq!((fire.inner_angle, fire.outer_angle), (0.0, 0.3));
    assert_eq!(fire.part.start_color, Vec4::new(1.0, 0.8, 0.2, 1.0));
    assert_eq!(fire.part.end_color, Vec4::new(1.0, 0.1, 0.0, 1.0));
    assert_eq!(fire.part.start_scale, Vec2::new(0.4, 0.6));
    assert_eq!(fire.part.max_age, 1.2);
    assert_eq!((fire.burst_rate, fire.burst_part_count), (0.05, 4));
    assert_eq!(fire.part_accel, Vec3::new(0.0, 0.0, 0.8));
    assert_eq!((fire.part.blend_func_source, fire.part.blend_func_dest), (blend::SOURCE_ALPHA, blend::ONE));
    let smoke = &c[1].system;
    assert_eq!(smoke.part.flags.0, 0x1 | 0x2 | 0x8);
    assert_eq!(smoke.part.start_color, Vec4::new(0.3, 0.3, 0.3, 0.6));
    assert_eq!(smoke.part.end_color, Vec4::new(0.5, 0.5, 0.5, 0.0));
    assert_eq!(smoke.part.end_scale, Vec2::new(3.0, 3.0));
    assert_eq!(smoke.pattern, pattern::DROP, "omitted pattern is DROP");
    let sparks = &c[2].system;
    assert_eq!(sparks.pattern, pattern::EXPLODE);
    assert_eq!(sparks.part.flags.0, 0x100 | 0x4);
    assert_eq!(sparks.part.start_color, Vec4::new(1.0, 0.6, 0.1, 1.0));
    assert_eq!(sparks.part_accel, Vec3::new(0.0, 0.0, -9.8));
    assert_eq!((sparks.part.start_glow, sparks.part.end_glow), (0.3, 0.0));
    assert!(c[3].empty);
    assert!(c.iter().all(|c| c.unresolved.is_empty() && c.warnings.is_empty()));
}

#[test]
fn list_variables_and_plus_joins() {
    let c = calls("rules_list.lsl");
    assert_eq!(c.len(), 3);
    let a = &c[0].system;
    assert_eq!((a.part.flags.0, a.pattern, a.part.max_age), (PartFlags::INTERP_COLOR, pattern::DROP, 2.0));
    assert_eq!((a.part.start_glow, a.part.end_glow), (0.5, 0.1));
    assert_eq!(c[1].system.part.max_age, 4.0, "the later duplicate wins");
    assert_eq!(c[1].system.part.flags.0, PartFlags::INTERP_COLOR);
    let r = &c[2];
    assert_eq!((r.system.burst_part_count, r.system.burst_rate), (20, 0.25), "`+=` on a local list");
    assert_eq!(r.system.part.max_age, 2.0);
    assert_eq!(rules_unresolved(r), vec!["(list segment)"]);
    assert!(r.unresolved[0].reason.contains("llGetPrimitiveParams"));
    assert_eq!(r.system.part.start_color.w, 0.5, "pairs after the run-time segment still apply");
}

#[test]
fn legacy_inner_outer_angles_and_sl_clamps() {
    let c = calls("legacy_angles.lsl");
    assert_eq!(c.len(), 1);
    let s = &c[0].system;
    assert_eq!(s.pattern, pattern::ANGLE);
    assert_eq!((s.inner_angle, s.outer_angle), (0.1, 0.5));
    assert!(!s.flags.contains(SysFlags::USE_NEW_ANGLE));
    assert_eq!(s.burst_speed_min, 0.0, "-2 m/s encodes as 0");
    assert_eq!(s.burst_speed_max, 100.0, "150 m/s clamps to 100");
    assert_eq!(s.part.start_scale, Vec2::new(4.0, 0.02), "SL caps scale at 4 m, no lower clamp");
    assert_eq!(s.part.max_age, 30.0);
    assert_eq!(s.burst_part_count, 255);
    assert_eq!(s.part_accel, Vec3::new(0.0, 0.0, -100.0));
    let w = c[0].warnings.join("\n");
    for rule in [
        "BURST_SPEED_MIN",
        "BURST_SPEED_MAX",
        "START_SCALE",
        "PSYS_PART_MAX_AGE",
        "BURST_PART_COUNT",
        "ACCEL",
    ] {
        assert!(w.contains(rule), "no warning for {rule}: {w}");
    }
}

#[test]
fn angle_begin_end_set_the_new_angle_flag_and_legacy_rule_clears_it() {
    let c = calls("angle_begin_end.lsl");
    assert_eq!(c.len(), 2);
    let s = &c[0].system;
    assert_eq!(s.flags.0, SysFlags::USE_NEW_ANGLE);
    assert_eq!((s.inner_angle, s.outer_angle), (1.0, 1.2));
    assert_eq!(s.angular_velocity, Vec3::new(0.0, 0.0, 1.5));
    assert_eq!(s.burst_radius, 50.0, "75 m clamps to 50");
    assert_eq!(s.max_age, 5.0);
    let t = &c[1].system;
    assert_eq!((t.inner_angle, t.outer_angle), (0.2, 0.7));
    assert!(!t.flags.contains(SysFlags::USE_NEW_ANGLE), "OUTERANGLE came last");
}

#[test]
fn pi_and_degree_arithmetic() {
    use std::f32::consts::PI;
    let c = calls("pi_arithmetic.lsl");
    assert_eq!(c.len(), 1);
    let s = &c[0].system;
    assert!(close(s.inner_angle, PI / 3.0), "{}", s.inner_angle);
    assert!(close(s.outer_angle, 2.0 * PI / 3.0), "{}", s.outer_angle);
    assert!(close(s.angular_velocity.z, PI / 2.0));
    assert_eq!(s.burst_part_count, 7, "(integer)7.9 truncates");
    assert_eq!(s.part.max_age, 3.0);
    assert_eq!(s.burst_rate, 0.1);
    assert_eq!((s.burst_speed_min, s.burst_speed_max), (1.5, 3.0));
    assert!(close(s.part.start_scale.x, PI / 4.0) && s.part.start_scale.y == 0.5);
    assert_eq!(s.part_accel, Vec3::new(0.0, 0.0, -0.5));
    assert!(close(s.part.start_color.y, 128.0 / 255.0) && s.part.start_color.x == 1.0);
    assert!(close(s.part.end_color.w, 90.0 * 180.0 / PI / 8100.0));
    assert!(c[0].unresolved.is_empty() && c[0].warnings.is_empty(), "{:?}", c[0].warnings);
}

#[test]
fn run_time_values_are_reported_and_take_defaults() {
    let src = script("runtime_values.lsl");
    let c = calls("runtime_values.lsl");
    assert_eq!(c.len(), 4);
    let d = PartSysData::default();
    // burst(float size, integer n): parameters, passed run-time values.
    assert_eq!(c[0].line, line_of(&src, "llParticleSystem(", 0));
    assert_eq!(rules_unresolved(&c[0]), vec!["PSYS_PART_START_SCALE", "PSYS_SRC_BURST_PART_COUNT"]);
    assert!(c[0].unresolved[0].reason.contains("llFrand"), "{:?}", c[0].unresolved[0]);
    assert_eq!(c[0].system.part.start_scale, d.part.start_scale);
    assert_eq!(c[0].system.burst_part_count, d.burst_part_count);
    assert_eq!(c[0].system.burst_rate, 0.2, "an unchanged global is known");
    assert_eq!(c[0].system.pattern, pattern::EXPLODE);
    // llGetKey / llFrand / inventory lookups.
    assert_eq!(
        rules_unresolved(&c[1]),
        vec!["PSYS_SRC_TARGET_KEY", "PSYS_SRC_BURST_RATE", "PSYS_SRC_TEXTURE"]
    );
    assert!(c[1].unresolved[1].reason.contains("llFrand"));
    assert_eq!(c[1].system.burst_rate, d.burst_rate);
    assert_eq!(c[1].texture, None);
    assert_eq!(c[1].system.part.flags.0, PartFlags::TARGET_POS);
    assert_eq!(c[1].system.part.max_age, 5.0);
    // A local from llFrand, and a global assigned in another handler.
    assert_eq!(rules_unresolved(&c[2]), vec!["PSYS_PART_START_ALPHA", "PSYS_SRC_TARGET_KEY"]);
    assert!(c[2].unresolved[0].reason.contains("llFrand"));
    assert_eq!(c[2].system.part.start_color.w, 1.0);
    assert_eq!(c[2].system.part.end_color.w, 0.5);
    // The whole list from a notecard line.
    assert_eq!(rules_unresolved(&c[3]), vec!["(rule list)"]);
    assert_eq!(c[3].system, d);
    assert!(!c[3].empty);
}

#[test]
fn states_user_functions_locals_and_branches() {
    let c = calls("states_functions.lsl");
    assert_eq!(c.len(), 3, "calls inside strings and comments are not calls");
    let s = &c[0].system;
    assert_eq!(s.part.max_age, 6.0, "local float");
    assert_eq!(s.part.start_scale, Vec2::new(0.25, 0.25), "local vector");
    assert_eq!(s.part.start_color, Vec4::new(0.2, 0.6, 1.0, 1.0));
    assert!(c[0].unresolved.is_empty(), "{:?}", c[0].unresolved);
    assert_eq!(s.burst_part_count, 10, "clampi(50, 1, 10) returns its upper bound");
    assert!(c[1].empty);
    assert_eq!(c[2].system.part.flags.0, PartFlags::FOLLOW_SRC);
    assert!(c[2].unresolved.is_empty(), "{:?}", c[2].unresolved);
    assert_eq!(c[2].system.burst_speed_max, 2.0, "assigned earlier in the same branch");
}

#[test]
fn empty_list_switches_off() {
    let c = calls("switch_off.lsl");
    assert_eq!(c.len(), 3);
    assert!(!c[0].empty);
    assert_eq!((c[0].system.part.flags.0, c[0].system.pattern, c[0].system.burst_part_count), (0, 1, 3));
    assert!(c[1].empty && c[2].empty, "literal [] and an empty list global");
}

#[test]
fn syntax_error_has_line_and_column() {
    let src = script("syntax_error.lsl");
    let e = import(&src).expect_err("mismatched bracket");
    let line = line_of(&src, "2.0);", 0);
    let col = src.lines().nth(line as usize - 1).and_then(|l| l.find(");")).expect("paren") + 1;
    assert_eq!((e.line, e.column as usize), (line, col));
    assert!(e.to_string().contains(&format!("line {line}")));
}

#[test]
fn invalid_values_are_per_rule_warnings() {
    let c = calls("invalid_values.lsl");
    assert_eq!(c.len(), 1);
    let s = &c[0].system;
    assert_eq!(s.part.blend_func_source, blend::SOURCE_ALPHA, "6 is not valid for scripts");
    assert_eq!(s.part.blend_func_dest, blend::ZERO);
    assert_eq!(s.part.start_color, Vec4::ONE, "the mistyped colour keeps its default");
    assert_eq!(s.pattern, pattern::ANGLE, "4.7 truncates to 4");
    assert_eq!(s.part.max_age, 7.0);
    assert_eq!(s.part.end_color, Vec4::new(1.0, 0.0, 0.5, 1.0));
    assert_eq!(s.part.end_glow, 1.0);
    assert!(s.target_uuid.is_nil());
    let id: Uuid = "5e120ba1-5805-dc57-66b7-f5ac4bd18f86".parse().expect("uuid");
    assert_eq!(s.part_image_id, id);
    let w = c[0].warnings.join("\n");
    for needle in [
        "BLEND_FUNC_SOURCE",
        "START_COLOR: wrong value type",
        "unknown rule code 14",
        "END_GLOW",
        "END_COLOR",
    ] {
        assert!(w.contains(needle), "no warning {needle:?}: {w}");
    }
    assert!(c[0].unresolved.is_empty());
}

#[test]
fn globals_assigned_by_called_functions_reach_the_particle_call() {
    let src = script("set_particles.lsl");
    let c = calls("set_particles.lsl");
    assert_eq!(c.len(), 5, "{:#?}", c.iter().map(|c| (c.line, &c.unresolved)).collect::<Vec<_>>());
    assert!(c[0].empty);
    // SetParticles(); Faster(); SetParticles(); llParticleSystem(Particles);
    let s = &c[1].system;
    assert_eq!(c[1].line, line_of(&src, "llParticleSystem(Particles);", 0));
    assert_eq!(s.part.flags.0, PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE);
    assert_eq!(s.part.start_color, Vec4::new(0.3, 0.3, 0.3, 0.8), "DEBUG is FALSE: no red");
    assert_eq!(s.part.end_color.w, 0.0);
    assert_eq!((s.part.start_scale, s.part.end_scale), (Vec2::new(0.5, 0.5), Vec2::new(2.5, 2.5)));
    assert_eq!(s.part.max_age, 6.0);
    assert_eq!(s.burst_rate, 0.25, "Rate 1.0 divided by 4 in Faster() before the second SetParticles()");
    assert_eq!(s.burst_speed_max, 0.4, "MaxSpeed is assigned in SetParticles before the list");
    assert_eq!(s.part_accel, Vec3::new(0.0, 0.0, 0.2), "the else branch of `if (DEBUG)`");
    assert_eq!(c[1].texture.as_deref(), Some("smoke_puff"));
    assert!(c[1].unresolved.is_empty() && c[1].warnings.is_empty(), "{:?}", c[1].unresolved);
    assert_eq!(c[1].via, vec!["default.state_entry"]);
    // A later handler sees what state_entry left: nothing else assigns Particles.
    assert_eq!(c[2].line, line_of(&src, "llParticleSystem(Particles);", 1));
    assert_eq!(c[2].system, c[1].system);
    assert!(c[3].empty);
    // Sparks() returns early when gLit is set, which link_message changes: the assignment after the
    // return may not run, so the list is a run-time value there.
    assert_eq!(c[4].line, line_of(&src, "llParticleSystem(SparkList);", 0));
    assert_eq!(rules_unresolved(&c[4]), vec!["(rule list)"]);
}

#[test]
fn firestorm_preprocessor_macros_conditionals_and_an_unresolved_include() {
    let src = script("preprocessor.lsl");
    let imported = particles::lsl::import_script(&src).expect("imports");
    let c = &imported.calls;
    assert_eq!(c.len(), 2);
    let s = &c[0].system;
    assert_eq!(s.part.flags.0, PartFlags::EMISSIVE | PartFlags::INTERP_SCALE);
    assert_eq!(s.burst_rate, 0.05, "#ifdef TRACERGRID");
    assert_eq!(s.part.start_color, Vec4::new(1.0, 0.8, 0.2, 1.0), "#ifndef COLOR1, continued line");
    assert_eq!(s.part.start_glow, 0.2, "#elif defined(TRACERGRID) && !defined NOGLOW");
    assert_eq!(rules_unresolved(&c[0]), vec!["PSYS_PART_END_COLOR"]);
    let reason = &c[0].unresolved[0].reason;
    assert!(reason.contains("COLOR_WHITE") && reason.contains("#include"), "{reason}");
    assert_eq!(c[1].system.burst_rate, 2.0, "#undef and a new #define apply from their line on");
    let notes: Vec<(u32, &str)> = imported.notes.iter().map(|n| (n.line, n.message.as_str())).collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(notes[0].0, line_of(&src, "#include", 0));
    assert!(notes[0].1.contains("LIB\\lib.lsl"));
    assert_eq!(notes[1].0, line_of(&src, "#define SAY", 0));
    assert!(notes[1].1.contains("SAY"));
}

#[test]
fn preprocessed_scripts_keep_their_lines_for_syntax_errors() {
    let src = "#define A 1\n#ifdef A\n#else\nthis line is not lexed: # $\n#endif\n\
               default { state_entry() { llParticleSystem([A, 2.0); } }";
    let e = import(src).expect_err("mismatched bracket");
    assert_eq!((e.line, e.column), (6, 51), "{e}"); // the `)` after `2.0`
    let e = import("#if 1\n#error no viewer would compile this\n#endif").expect_err("#error");
    assert_eq!(e.line, 2);
    let e = import("default {\n#ifdef X\n}").expect_err("open #ifdef");
    assert_eq!(e.line, 2);
}

#[test]
fn firestorm_switch_statements_import_with_their_cases_as_branches() {
    let src = "integer kind = 2;\nfloat age = 1.0;\ndefault { state_entry() {\n\
               switch (kind) {\n case 1: { age = 3.0; break; }\n case 2: llParticleSystem([PSYS_PART_MAX_AGE, 5.0]); break;\n\
               default: llParticleSystem([PSYS_PART_MAX_AGE, age]);\n }\n} }";
    let c = import(src).expect("imports");
    assert_eq!(c.len(), 2);
    assert_eq!((c[0].line, c[0].system.part.max_age), (6, 5.0));
    assert_eq!(c[1].line, 7);
    assert_eq!(rules_unresolved(&c[1]), vec!["PSYS_PART_MAX_AGE"], "age may be set by case 1");
}

#[test]
fn flags_built_by_branches_on_toggles_and_keys_compared_with_strings_resolve() {
    let c = calls("mask_toggles.lsl");
    assert_eq!(c.len(), 2);
    // emissive and interp_size are TRUE, the two colours differ; the target stays "" (no TARGET_POS).
    let want = PartFlags::EMISSIVE | PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE;
    assert_eq!(c[0].system.part.flags.0, want, "{:?}", c[0].unresolved);
    assert!(c[0].unresolved.is_empty(), "{:?}", c[0].unresolved);
    assert_eq!(c[0].system.part.max_age, 8.0);
    assert_eq!(c[0].system.target_uuid, Uuid::default());
    // touch_start: the target becomes llGetOwner(), a run-time key that is never empty, so the
    // `target != ""` branch is taken; the key itself is reported as a run-time value.
    assert_eq!(c[1].system.part.flags.0, want | PartFlags::TARGET_POS, "{:?}", c[1].unresolved);
    assert_eq!(rules_unresolved(&c[1]), vec!["PSYS_SRC_TARGET_KEY"]);
    assert!(c[1].unresolved[0].reason.contains("llGetOwner"), "{:?}", c[1].unresolved[0]);
}

#[test]
fn values_take_their_variables_types_and_constant_arguments_reach_parameters() {
    let c = calls("typed_values.lsl");
    assert_eq!(c.len(), 2, "{:#?}", c.iter().map(|c| &c.unresolved).collect::<Vec<_>>());
    // state_entry: MakeSmoke(3, 1, "smoke_puff", FALSE), every value worked out by hand.
    let s = &c[0].system;
    assert!(c[0].unresolved.is_empty(), "{:?}", c[0].unresolved);
    assert_eq!(s.part.flags.0, PartFlags::INTERP_SCALE);
    assert_eq!(s.part.start_scale, Vec2::new(1.5, 1.5), "3 passed to a float parameter, halved");
    assert_eq!(s.part.end_scale, Vec2::new(3.0, 3.0));
    assert_eq!(s.burst_rate, 0.25, "1 passed to a float parameter divides as a float");
    assert_eq!(s.part.max_age, 1.5, "a float global initialised with 3");
    assert_eq!(s.burst_part_count, 1, "integer division stays integer");
    assert_eq!(c[0].texture.as_deref(), Some("smoke_puff"));
    assert_eq!(c[0].via, vec!["default.state_entry", "MakeSmoke"]);
    // touch_start: a run-time size; the rest still known, gLife assigned 5 just before.
    let t = &c[1];
    assert_eq!(rules_unresolved(t), vec!["PSYS_PART_START_SCALE", "PSYS_PART_END_SCALE"]);
    assert_eq!(t.system.part.max_age, 2.5, "a float global assigned 5, halved");
    assert!(t.unresolved[0].reason.contains("llFrand"), "{:?}", t.unresolved[0]);
    assert_eq!(t.system.part.flags.0, PartFlags::INTERP_SCALE | PartFlags::EMISSIVE);
    assert_eq!(t.system.burst_rate, 0.25);
}

#[test]
fn a_byte_order_mark_before_the_script_is_not_part_of_it() {
    // Public scripts saved by Windows editors start with U+FEFF.
    let plain = script("fog_machine.lsl");
    let marked = format!("\u{feff}{plain}");
    assert_eq!(import(&marked).expect("imports"), calls("fog_machine.lsl"));
    // Positions are as an editor shows them, without the mark.
    let bad = format!("\u{feff}{}", script("syntax_error.lsl"));
    let (a, b) =
        (import(&bad).expect_err("still an error"), import(&script("syntax_error.lsl")).expect_err("error"));
    assert_eq!((a.line, a.column), (b.line, b.column));
    // Anywhere else it is still a character no script may hold.
    assert!(import("default { state_entry() { \u{feff} } }").is_err());
}

#[test]
fn rule_lists_returned_by_user_functions_are_the_calls_values() {
    let c = calls("returned_lists.lsl");
    assert_eq!(c.len(), 4, "{:#?}", c.iter().map(|c| &c.unresolved).collect::<Vec<_>>());
    // state_entry: Smoke(4, 5), every value worked out by hand from Smoke's literals.
    let s = &c[0].system;
    assert!(c[0].unresolved.is_empty(), "{:?}", c[0].unresolved);
    assert_eq!(s.part.flags.0, PartFlags::INTERP_SCALE | PartFlags::INTERP_COLOR);
    assert_eq!(s.part.start_scale, Vec2::new(2.0, 2.0), "4 passed to a float parameter, halved");
    assert_eq!(s.part.end_scale, Vec2::new(4.0, 4.0));
    assert_eq!(s.part.start_color, Vec4::new(0.5, 0.5, 0.5, 1.0), "Grey(0.5) inside the list");
    assert_eq!(s.burst_part_count, 5);
    assert_eq!(s.part.max_age, 20.0, "size 4 takes the `size > 3.0` branch");
    assert_eq!(c[0].texture.as_deref(), Some("smoke_puff"));
    // touch_start: Steam(0.25), stored in a local first: its early return is never taken, and it
    // returns Smoke(2, 3) with the burst rate appended.
    let t = &c[1];
    assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
    assert_eq!(t.system.part.start_scale, Vec2::new(1.0, 1.0));
    assert_eq!(t.system.part.end_scale, Vec2::new(2.0, 2.0));
    assert_eq!(t.system.burst_part_count, 3);
    assert_eq!(t.system.part.max_age, 8.0, "size 2 takes the else branch");
    assert_eq!(t.system.burst_rate, 0.25);
    // timer: with a run-time rate Steam may return early, so its value is a run-time value.
    assert_eq!(rules_unresolved(&c[2]), vec!["(rule list)"]);
    assert!(c[2].unresolved[0].reason.contains("Steam"), "{:?}", c[2].unresolved[0]);
    // Two calls, one of which assigns a global: their order could matter, so nothing is read.
    assert_eq!(rules_unresolved(&c[3]), vec!["(rule list)"]);
    assert!(c[3].unresolved[0].reason.contains("Smoke"), "{:?}", c[3].unresolved[0]);
}

#[test]
fn a_branch_on_a_run_time_condition_sees_what_it_assigned() {
    let c = calls("branch_values.lsl");
    let lines: Vec<u32> = c.iter().map(|c| c.line).collect();
    assert_eq!(c.len(), 6, "{lines:?}");
    // Emit(), reached from the owner's branch through Steam(3): that branch set the age and size.
    let emit = &c[0];
    assert!(emit.unresolved.is_empty(), "{:?}", emit.unresolved);
    assert_eq!(emit.system.part.max_age, 12.0);
    assert_eq!(emit.system.part.start_scale, Vec2::new(3.0, 3.0), "3 passed to a float parameter");
    assert_eq!(emit.system.part.start_color, Vec4::new(1.0, 1.0, 1.0, 1.0));
    assert_eq!(emit.texture.as_deref(), Some("puff"));
    assert_eq!(emit.via, vec!["default.touch_start", "Steam", "Emit"]);
    // After the if: both branches set the age to 12; only one changed the colour.
    assert_eq!(c[1].system.part.max_age, 12.0);
    assert_eq!(rules_unresolved(&c[1]), vec!["PSYS_PART_START_COLOR"]);
    assert!(c[1].unresolved[0].reason.contains("`color` is assigned in a branch"), "{:?}", c[1].unresolved);
    // listen: the branch that clears the texture always returns, so the call after it sees "puff".
    assert!(c[2].empty);
    assert!(c[3].unresolved.is_empty(), "{:?}", c[3].unresolved);
    assert_eq!((c[3].texture.as_deref(), c[3].system.part.max_age), (Some("puff"), 2.0));
    // timer: one pass of the loop body runs as a whole (size is 2 there); the link number changes
    // every pass, and what the loop assigns is unknown after it (it may not run at all).
    assert_eq!(rules_unresolved(&c[4]), vec!["link"]);
    assert_eq!(c[4].system.part.start_scale, Vec2::new(2.0, 2.0));
    assert_eq!(rules_unresolved(&c[5]), vec!["PSYS_PART_START_SCALE"]);
    assert!(c[5].unresolved[0].reason.contains("loop"), "{:?}", c[5].unresolved);
}

#[test]
fn a_global_set_in_a_branch_that_returns_is_unknown_to_the_caller() {
    // Setup() may set gAge to 9 and return: after the call gAge is 4 or 9. Inside Setup, the call
    // after the `if` runs only when the branch did not, so it sees 4 and a size of 1.
    let src = "float gAge = 4.0;\n\
               Setup(integer quick) {\n\
                float size = 1.0;\n\
                if (quick) { gAge = 9.0; size = 3.0; return; }\n\
                llParticleSystem([PSYS_PART_START_SCALE, <size, size, 0.0>, PSYS_PART_MAX_AGE, gAge]);\n\
               }\n\
               default { state_entry() {\n\
                Setup((integer)llFrand(2.0));\n\
                llParticleSystem([PSYS_PART_MAX_AGE, gAge]);\n\
               } }";
    let c = import(src).expect("imports");
    assert_eq!(c.len(), 2);
    assert_eq!(c[0].system.part.start_scale, Vec2::new(1.0, 1.0));
    assert_eq!(c[0].system.part.max_age, 4.0);
    assert!(c[0].unresolved.is_empty(), "{:?}", c[0].unresolved);
    assert_eq!(rules_unresolved(&c[1]), vec!["PSYS_PART_MAX_AGE"], "4 or 9 after Setup()");
    assert!(c[1].unresolved[0].reason.contains("where Setup returns"), "{:?}", c[1].unresolved);
}
