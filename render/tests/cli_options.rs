//! The command line itself: every option states its range and unit in `--help`, and options that
//! do nothing for a subcommand are not offered there.

use std::process::Command;

fn particle_fog(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_particle-fog")).args(args).output().expect("run particle-fog")
}

fn help(sub: &[&str]) -> String {
    let out = particle_fog(&[sub, &["--help"]].concat());
    assert!(out.status.success(), "{sub:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `n` bytes as the help texts write them (the caps of a MiB or more are whole MiB).
fn size_text(n: u64) -> String {
    if n >= 1024 * 1024 {
        format!("{} MiB", n / (1024 * 1024))
    } else {
        format!("{} KiB", n / 1024)
    }
}

#[test]
fn help_states_ranges_units_and_input_caps() {
    let render = help(&["render"]);
    for part in ["1..=16384", "1..=100000", "0..=100000", "at most 1000", "pixels", "seconds"] {
        assert!(render.contains(part), "render --help lacks {part:?}:\n{render}");
    }
    let scene_cap = size_text(render::input::MAX_SCENE_BYTES);
    assert!(render.contains(&format!("at most {scene_cap}")), "{render}");
    let encode = help(&["psys", "encode"]);
    assert!(
        encode.contains(&format!("at most {}", size_text(render::input::MAX_DESCRIPTOR_BYTES))),
        "{encode}"
    );
    let classify = help(&["classify"]);
    assert!(
        classify.contains(&format!("at most {}", size_text(render::input::MAX_SCRIPT_BYTES))),
        "{classify}"
    );
    assert!(classify.contains(&format!("at most {scene_cap}")), "{classify}");
    assert!(classify.contains("[possible values: unknown, soft, shaped]"), "{classify}");
    let texstats = help(&["texstats"]);
    let texture_cap = size_text(assetstats::MAX_FILE_BYTES);
    let dims = format!("{0} x {0} pixels", assetstats::MAX_DIMENSION);
    assert!(texstats.contains(&texture_cap) && texstats.contains(&dims), "{texstats}");
}

#[test]
fn gpu_options_are_offered_only_where_a_device_is_used() {
    for sub in ["render", "devices"] {
        let text = help(&[sub]);
        assert!(text.contains("--validation") && text.contains("--device"), "{sub}:\n{text}");
    }
    let without: [&[&str]; 6] = [
        &["lsl", "x.lsl"],
        &["settings", "list"],
        &["psys", "decode", "00"],
        &["texstats", "x.png"],
        &["classify", "--hex", "00"],
        &["psys", "encode", "-"],
    ];
    for args in without {
        for option in ["--validation", "--device=0"] {
            let out = particle_fog(&[args, &[option]].concat());
            assert_eq!(out.status.code(), Some(2), "{args:?} {option} accepted");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("unexpected argument"), "{args:?} {option}: {err}");
        }
        assert!(!help(&args[..1]).contains("--validation"), "{args:?} help offers --validation");
    }
}

#[test]
fn an_unreadable_scene_says_the_os_reason_once_and_refuses_devices() {
    let out = particle_fog(&["render", "/nonexistent/scene.toml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    assert!(err.starts_with("error: cannot read the scene: /nonexistent/scene.toml: "), "{err}");
    for args in [
        &["render", "/dev/zero"][..],
        &["classify", "--scene", "/dev/zero"],
        &["classify", "--lsl", "/dev/zero"],
    ] {
        let out = particle_fog(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("/dev/zero: not a regular file (a device)"), "{args:?}: {err}");
    }
}
