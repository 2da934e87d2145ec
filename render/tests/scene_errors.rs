//! Every class of scene error, each located at the offending text: the bad scenes are written out
//! line by line so the expected line and column can be read off the test.

use std::path::{Path, PathBuf};

use render::scene::{parse, SceneError};

/// A scene file path inside `scenes/`, so `textures/soft.png` resolves.
fn origin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/test.toml")
}

/// The minimal valid head: line 1 `[camera]`, 2 position, 3 target.
const HEAD: &str = "[camera]\nposition = [0.0, -5.0, 1.0]\ntarget = [0.0, 0.0, 1.0]\n";

fn error_of(text: &str) -> SceneError {
    match parse(text, &origin()) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

/// Asserts a malformed-TOML error at `(line, column)`, its message containing `needle`.
fn assert_malformed(text: &str, line: u32, column: u32, needle: &str) {
    let e = error_of(text);
    assert!(matches!(e, SceneError::Malformed { .. }), "not Malformed: {e}");
    assert_eq!(e.location(), Some((line, column)), "{e}");
    assert!(e.to_string().contains(needle), "{e:?} lacks {needle:?}");
}

/// Asserts a semantic error at `(line, column)`, its message containing `needle`.
fn assert_invalid(text: &str, line: u32, column: u32, needle: &str) {
    let e = error_of(text);
    assert!(matches!(e, SceneError::Invalid { .. }), "not Invalid: {e}");
    assert_eq!(e.location(), Some((line, column)), "{e}");
    assert!(e.to_string().contains(needle), "{e:?} lacks {needle:?}");
    assert!(e.to_string().contains("test.toml:"), "{e} names the file");
}

#[test]
fn head_alone_is_valid() {
    let scene = parse(HEAD, &origin()).expect("minimal scene");
    assert!(scene.objects.is_empty() && scene.particles.is_empty());
}

#[test]
fn toml_syntax_error_points_at_the_bad_character() {
    // Line 2: `position = [` is 12 characters, so the second comma of `2.0,,` is column 22.
    let text = "[camera]\nposition = [1.0, 2.0,, 3.0]\ntarget = [0.0, 0.0, 1.0]\n";
    assert_malformed(text, 2, 22, "");
}

#[test]
fn unknown_key_points_at_the_key() {
    let text = format!("{HEAD}fov = 60.0\n");
    assert_malformed(&text, 4, 1, "unknown field `fov`");
    let text =
        format!("{HEAD}[[object]]\nshape = \"box\"\nsize = [1.0, 1.0, 1.0]\ncolour = [1.0, 0.0, 0.0]\n");
    assert_malformed(&text, 7, 1, "unknown field `colour`");
}

#[test]
fn wrong_type_points_at_the_value() {
    let text = format!("{HEAD}fov_y_deg = \"wide\"\n");
    assert_malformed(&text, 4, 13, "");
    let text = format!("{HEAD}[[light]]\nkind = \"point\"\nposition = [1.0, 2.0]\n");
    assert_malformed(&text, 6, 12, "");
}

#[test]
fn missing_required_field_points_at_its_table() {
    // [[light]] on line 4 lacks `position`.
    let text = format!("{HEAD}[[light]]\nkind = \"point\"\n");
    let e = error_of(&text);
    assert!(matches!(e, SceneError::Malformed { .. }), "{e}");
    assert!(e.to_string().contains("missing field `position`"), "{e}");
    assert_eq!(e.location(), Some((4, 1)), "at the table header: {e}");
    // No [camera] at all.
    let e = error_of("wind = [1.0, 0.0, 0.0]\n");
    assert!(e.to_string().contains("missing field `camera`"), "{e}");
}

#[test]
fn negative_radius_points_at_the_value() {
    let text = format!("{HEAD}[[object]]\nshape = \"sphere\"\nradius = -1.0\n");
    assert_invalid(&text, 6, 10, "radius must be > 0");
}

#[test]
fn zero_length_direction_points_at_the_vector() {
    let text = format!("{HEAD}[sun]\ndirection = [0.0, 0.0, 0.0]\n");
    assert_invalid(&text, 5, 13, "zero-length");
    let text = format!(
        "{HEAD}[[light]]\nkind = \"spot\"\nposition = [0.0, 0.0, 3.0]\ndirection = [0.0, 0.0, 0.0]\n"
    );
    assert_invalid(&text, 7, 13, "zero-length");
}

#[test]
fn fov_outside_open_interval_is_rejected() {
    for bad in ["0.0", "180.0", "-10.0", "200.0"] {
        let text = format!("{HEAD}fov_y_deg = {bad}\n");
        assert_invalid(&text, 4, 13, "inside (0, 180)");
    }
    let text = format!("{HEAD}fov_y_deg = 179.5\n");
    assert!(parse(&text, &origin()).is_ok());
}

#[test]
fn unknown_texture_name_points_at_the_reference() {
    let text = format!(
        "{HEAD}[textures]\nsoft = \"textures/soft.png\"\n[[light]]\nkind = \"projector\"\nposition = [0.0, 0.0, 3.0]\ndirection = [0.0, 1.0, 0.0]\ntexture = \"gobo\"\n"
    );
    assert_invalid(&text, 10, 11, "unknown texture \"gobo\"");
    let text = format!(
        "{HEAD}[[particles]]\nname = \"p\"\nposition = [0.0, 0.0, 0.0]\ntexture = \"nope\"\n[particles.system]\npattern = \"drop\"\n"
    );
    assert_invalid(&text, 7, 11, "unknown texture \"nope\"");
}

#[test]
fn missing_texture_file_points_at_the_path() {
    let text = format!("{HEAD}[textures]\nghost = \"textures/no_such_file.png\"\n");
    assert_invalid(&text, 5, 9, "does not exist");
}

#[test]
fn more_than_one_system_form_points_at_the_second() {
    let text = format!(
        "{HEAD}[[particles]]\nname = \"p\"\nposition = [0.0, 0.0, 0.0]\nlsl = '''[PSYS_PART_MAX_AGE, 2.0]'''\nhex = \"00\"\n"
    );
    assert_invalid(&text, 8, 7, "exactly one of");
    let text = format!(
        "{HEAD}[[particles]]\nname = \"p\"\nposition = [0.0, 0.0, 0.0]\nhex = \"00\"\n[particles.system]\npattern = \"drop\"\n"
    );
    let e = error_of(&text);
    assert!(e.to_string().contains("exactly one of"), "{e}");
}

#[test]
fn hex_without_a_system_names_the_source() {
    // Empty block: "no particle system".
    let text =
        format!("{HEAD}[[particles]]\nname = \"off switch\"\nposition = [0.0, 0.0, 0.0]\nhex = \"\"\n");
    assert_invalid(&text, 7, 7, "\"off switch\": no particle system");
    // Ten bytes: too short for any layout, rejected.
    let text = format!(
        "{HEAD}[[particles]]\nname = \"stub\"\nposition = [0.0, 0.0, 0.0]\nhex = \"00112233445566778899\"\n"
    );
    assert_invalid(&text, 7, 7, "\"stub\": PSYS block rejected");
    let text = format!("{HEAD}[[particles]]\nname = \"typo\"\nposition = [0.0, 0.0, 0.0]\nhex = \"0g\"\n");
    assert_invalid(&text, 7, 7, "invalid hex character");
}

#[test]
fn bad_lsl_list_is_an_error_at_the_list() {
    let text = format!(
        "{HEAD}[[particles]]\nname = \"broken\"\nposition = [0.0, 0.0, 0.0]\nlsl = '''[PSYS_PART_MAX_AGE, 2.0'''\n"
    );
    assert_invalid(&text, 7, 7, "\"broken\": LSL list");
    // File line 9 is `  PSYS_SRC_ACCEL, <0.0, 0.0, 0.2> $`: the stray `$` is column 35.
    let text = format!(
        "{HEAD}[[particles]]\nname = \"typo\"\nposition = [0.0, 0.0, 0.0]\nlsl = '''[\n  PSYS_PART_MAX_AGE, 2.0,\n  PSYS_SRC_ACCEL, <0.0, 0.0, 0.2> $\n]'''\n"
    );
    assert_invalid(&text, 9, 35, "\"typo\": LSL list");
    let text = format!("{HEAD}[[particles]]\nname = \"off\"\nposition = [0.0, 0.0, 0.0]\nlsl = '[]'\n");
    assert_invalid(&text, 7, 7, "empty rule list");
}

#[test]
fn shape_parameters_are_checked_against_the_shape() {
    let text = format!("{HEAD}[[object]]\nshape = \"box\"\nsize = [1.0, 1.0, 1.0]\nradius = 2.0\n");
    assert_invalid(&text, 7, 10, "`radius` does not apply to \"box\"");
    let text = format!("{HEAD}[[object]]\nshape = \"box\"\n");
    assert_invalid(&text, 5, 9, "\"box\" needs `size`");
    let text = format!("{HEAD}[[object]]\nshape = \"cube\"\n");
    assert_invalid(&text, 5, 9, "unknown shape \"cube\"");
    let text = format!("{HEAD}[[object]]\nshape = \"plane\"\nsize = [1.0, 1.0, 1.0]\n");
    assert_invalid(&text, 6, 8, "size must be 2 numbers");
    let text = format!("{HEAD}[[object]]\nshape = \"heightfield\"\nsize = [4.0, 4.0]\nresolution = 2\nheights = [0.0, 1.0, 2.0]\n");
    assert_invalid(&text, 8, 11, "resolution^2 = 4");
}

#[test]
fn particle_field_ranges_are_errors_not_clamps() {
    let sys = |line: &str| {
        format!("{HEAD}[[particles]]\nname = \"p\"\nposition = [0.0, 0.0, 0.0]\n[particles.system]\n{line}\n")
    };
    assert_invalid(&sys("burst_part_count = 300"), 8, 20, "burst_part_count must be in 0..=255");
    assert_invalid(&sys("part_max_age = 31.0"), 8, 16, "part_max_age must be in 0..=30");
    assert_invalid(&sys("start_scale = [5.0, 1.0]"), 8, 15, "start_scale");
    assert_invalid(&sys("start_alpha = 1.5"), 8, 15, "start_alpha");
    assert_invalid(&sys("blend_func_dest = 6"), 8, 19, "blend_func_dest");
    assert_invalid(&sys("pattern = \"spiral\""), 8, 11, "unknown pattern");
    assert_invalid(&sys("part_flags = [\"wind\", \"glitter\"]"), 8, 23, "unknown part flag \"glitter\"");
    assert_malformed(&sys("burst_rate = 1.0\nburst_ratio = 2.0"), 9, 1, "unknown field `burst_ratio`");
}

#[test]
fn semantic_errors_on_lights_camera_and_paths() {
    let text = "[camera]\nposition = [1.0, 2.0, 3.0]\ntarget = [1.0, 2.0, 3.0]\n";
    assert_invalid(text, 3, 10, "target equals its position");
    let text = format!("{HEAD}[[camera_path]]\ntime_s = 2.0\nposition = [0.0, 0.0, 0.0]\ntarget = [1.0, 0.0, 0.0]\n[[camera_path]]\ntime_s = 1.0\nposition = [0.0, 0.0, 0.0]\ntarget = [1.0, 0.0, 0.0]\n");
    assert_invalid(&text, 9, 10, "times must increase");
    let text = format!("{HEAD}[[light]]\nkind = \"spot\"\nposition = [0.0, 0.0, 3.0]\ndirection = [0.0, 0.0, -1.0]\ninner_deg = 40.0\nouter_deg = 30.0\n");
    assert_invalid(&text, 8, 13, "inner_deg must be in 0..=30");
    let text = format!("{HEAD}[[light]]\nkind = \"point\"\nposition = [0.0, 0.0, 3.0]\nfov_deg = 30.0\n");
    assert_invalid(&text, 7, 11, "`fov_deg` does not apply to \"point\"");
    let text = format!("{HEAD}[[light]]\nkind = \"laser\"\nposition = [0.0, 0.0, 3.0]\n");
    assert_invalid(&text, 5, 8, "unknown light kind");
    let text = format!(
        "{HEAD}[[object]]\nshape = \"box\"\nsize = [1.0, 1.0, 1.0]\nrotation = [0.0, 0.0, 0.0, 0.0]\n"
    );
    assert_invalid(&text, 7, 12, "quaternion is not a rotation");
    let text = format!(
        "{HEAD}[[object]]\nshape = \"box\"\nsize = [1.0, 1.0, 1.0]\nrotation = [3e38, 3e38, 0.0, 0.0]\n"
    );
    assert_invalid(&text, 7, 12, "quaternion is not a rotation");
    let text = format!("{HEAD}[sun]\ndirection = [3e38, 3e38, 0.0]\n");
    assert_invalid(&text, 5, 13, "zero-length");
    let text = format!("{HEAD}[settings]\nRenderFoo = [1, 2]\n");
    assert_invalid(&text, 5, 13, "want a bool, integer, float or string");
}

#[test]
fn columns_count_characters_not_bytes() {
    // "é" is two bytes in UTF-8: the value after `"Ré" = ` is character 8 but byte 9.
    let text = format!("{HEAD}[settings]\n\"Ré\" = [1]\n");
    assert_invalid(&text, 5, 8, "setting Ré");
}

#[test]
fn io_error_names_the_file() {
    let path = origin().with_file_name("does_not_exist.toml");
    let e = render::scene::load(&path).expect_err("missing file");
    assert!(matches!(e, SceneError::Io(_)));
    assert!(e.to_string().contains("does_not_exist.toml"), "{e}");
    assert_eq!(e.location(), None);
}

#[test]
fn every_truncation_of_a_showcase_scene_fails_cleanly_or_parses() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/campfire.toml");
    let text = std::fs::read_to_string(&path).expect("campfire.toml");
    let mut errors = 0;
    for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
        match parse(&text[..end], &path) {
            Ok(_) => {}
            Err(e) => {
                errors += 1;
                let (line, column) = e.location().expect("content errors are located");
                let prefix_lines = text[..end].matches('\n').count() as u32 + 1;
                assert!(line >= 1 && line <= prefix_lines && column >= 1, "{e} for cut at {end}");
            }
        }
    }
    assert!(errors > 0, "cuts inside the [camera] table must fail");
}

#[test]
fn single_character_substitutions_never_panic() {
    // fog_machine.toml exercises every form: LSL list, camera path, projector, system fields.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/fog_machine.toml");
    let text = std::fs::read_to_string(&path).expect("fog_machine.toml");
    let mut rejected = 0;
    for at in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
        let rest = &text[at..];
        let next = rest.chars().next().map_or(0, char::len_utf8);
        for substitute in ["\"", "]", "é"] {
            let mutated = format!("{}{substitute}{}", &text[..at], &rest[next..]);
            if let Err(e) = parse(&mutated, &path) {
                rejected += 1;
                assert!(e.location().is_some(), "{e}");
            }
        }
    }
    assert!(rejected > text.len(), "most substitutions break the file: {rejected}");
}

#[test]
fn coordinates_beyond_the_range_are_refused_with_the_range() {
    // Line 2: the camera 1e30 m away.
    let text = "[camera]\nposition = [0.0, -1e30, 1.0]\ntarget = [0.0, 0.0, 1.0]\n";
    assert_invalid(text, 2, 12, "camera position: -1000000000000000000000000000000 is out of range");
    assert_invalid(text, 2, 12, "-100000..=100000");
    // Line 6: a sphere placed 1e30 m away; line 9: one 1e30 m wide.
    let text = format!("{HEAD}[[object]]\nshape = \"sphere\"\nposition = [1e30, 0.0, 0.0]\nradius = 1.0\n");
    assert_invalid(&text, 6, 12, "position: 1000000000000000000000000000000 is out of range");
    let text = format!("{HEAD}[[object]]\nshape = \"sphere\"\nposition = [0.0, 0.0, 0.0]\nradius = 1e30\n");
    assert_invalid(&text, 7, 10, "radius must be at most 100000 m");
    let text = format!("{HEAD}[[object]]\nshape = \"box\"\nsize = [1.0, 1e30, 1.0]\n");
    assert_invalid(&text, 6, 8, "size must be 3 numbers in (0, 100000] m");
    // The range's ends are accepted.
    let text = "[camera]\nposition = [0.0, -100000.0, 1.0]\ntarget = [0.0, 100000.0, 1.0]\n";
    assert!(parse(text, &origin()).is_ok());
}

#[test]
fn a_camera_path_key_looking_at_its_own_position_is_refused_like_the_camera() {
    let text = format!(
        "{HEAD}[[camera_path]]\ntime_s = 0.0\nposition = [1.0, 2.0, 3.0]\ntarget = [1.0, 2.0, 3.0]\n"
    );
    assert_invalid(&text, 7, 10, "camera_path target equals its position");
}

#[test]
fn a_hex_block_with_a_blend_factor_no_simulator_sends_is_refused() {
    // The viewer's unit-test vector with the blend destination 1 changed to 99 (the last byte).
    let hex = "440000000100000000000000010000000000001900000000010001010080008000800080008000805e120ba15805dc5766b7f5ac4bd18f86000000000000000000000000000000001400000002050200000affffffffffff0000202000000263";
    let text = format!("{HEAD}[[particles]]\nname = \"p\"\nposition = [0.0, 0.0, 0.0]\nhex = \"{hex}\"\n");
    assert_invalid(&text, 7, 7, "particle.blend_func_dest is 99: not a blend factor a simulator sends");
    let good = text.replace("000263\"", "000201\"");
    assert!(parse(&good, &origin()).is_ok(), "the unchanged vector is accepted");
}

#[test]
fn heightfield_values_that_overflow_the_mesh_are_refused() {
    // Found by the scene exploration: a frequency of 3.4e38 made every procedural height NaN.
    let field = "[[object]]\nshape = \"heightfield\"\nsize = [80.0, 60.0]\namplitude = 2.0\n";
    let text = format!("{HEAD}{field}frequency = 3.4e38\n");
    assert_invalid(&text, 8, 13, "frequency must be in 0..=1000");
    let text = format!("{HEAD}[[object]]\nshape = \"heightfield\"\nsize = [80.0, 60.0]\namplitude = 1e30\n");
    assert_invalid(&text, 7, 13, "amplitude must be in -100000..=100000");
    let text = format!(
        "{HEAD}[[object]]\nshape = \"heightfield\"\nsize = [1.0, 1.0]\nresolution = 2\nheights = [0.0, 0.0, 1e30, 0.0]\n"
    );
    assert_invalid(&text, 8, 11, "heights must hold resolution^2 = 4 finite numbers in -100000..=100000 m");
}
