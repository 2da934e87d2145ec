//! What `particle-fog render` writes, replayed against hostile output situations: symbolic links
//! in the way are replaced and their targets untouched, an earlier run's files do not stay beside
//! fresh ones, paths that cannot be written are refused before the GPU starts (each failing case
//! runs with `--device 99`, a device that does not exist: the error must be about the path, not
//! the device), and an animation is written in memory bounded by its size, not its frame count.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCENE: &str = r#"
[camera]
position = [0.0, -6.0, 2.0]
target = [0.0, 0.0, 0.5]

[[object]]
shape = "plane"
size = [10.0, 10.0]
"#;

const PARTICLE: &str = "[[particles]]\nname = \"p\"\nposition = [0.0, 0.0, 0.0]\ntexture = \"t\"\n\
                        [particles.system]\npattern = \"drop\"\n";

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pf-cli-outputs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

fn particle_fog(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_particle-fog")).current_dir(dir).args(args).output().expect("run")
}

/// Every file and link under `root` with its content (a link: where it points).
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("list").flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).expect("meta");
            if meta.file_type().is_symlink() {
                let to = std::fs::read_link(&path).expect("link");
                out.insert(path, to.to_string_lossy().as_bytes().to_vec());
            } else if meta.is_dir() {
                out.insert(path.clone(), b"<folder>".to_vec());
                stack.push(path);
            } else if meta.is_file() {
                out.insert(path.clone(), std::fs::read(&path).expect("read"));
            } else {
                // A pipe or device: never opened (a pipe would block).
                out.insert(path, b"<special>".to_vec());
            }
        }
    }
    out
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into())
        .collect();
    v.sort();
    v
}

fn link(target: &Path, at: &Path) {
    std::os::unix::fs::symlink(target, at).expect("link");
}

/// One hostile situation: what it sets up in its folder (beside `outside/`), the command's
/// arguments after `render`, and the error it must give (`None`: it must succeed).
struct Case {
    name: &'static str,
    setup: fn(&Path, &Path),
    args: &'static [&'static str],
    error: Option<&'static str>,
}

fn write_scene(d: &Path, name: &str, extra: &str) {
    std::fs::write(d.join(name), format!("{SCENE}{extra}")).expect("scene");
}

const CASES: &[Case] = &[
    Case {
        name: "export folder is a regular file",
        setup: |d, _| std::fs::write(d.join("afile.txt"), "text").expect("file"),
        args: &["tiny.toml", "--export-density", "afile.txt"],
        error: Some("output folder afile.txt: afile.txt is a regular file, not a folder"),
    },
    Case {
        name: "out is a regular file",
        setup: |d, _| std::fs::write(d.join("afile.txt"), "text").expect("file"),
        args: &["tiny.toml", "--out", "afile.txt"],
        error: Some("afile.txt is a regular file, not a folder"),
    },
    Case {
        name: "out below a regular file",
        setup: |d, _| std::fs::write(d.join("afile.txt"), "text").expect("file"),
        args: &["tiny.toml", "--out", "afile.txt/frames"],
        error: Some("afile.txt is a regular file, not a folder"),
    },
    Case {
        name: "out is a broken link",
        setup: |d, _| link(&d.join("gone"), &d.join("out")),
        args: &["tiny.toml", "--out", "out"],
        error: Some("out is a broken symbolic link"),
    },
    Case {
        name: "a scene name too long for its outputs",
        setup: |d, _| write_scene(d, &format!("{}.toml", "n".repeat(250)), ""),
        args: &["LONG.toml"],
        error: Some("_timings.json: the name is 263 bytes, longer than this file system allows"),
    },
    Case {
        name: "the timings file's name is a folder",
        setup: |d, _| std::fs::create_dir_all(d.join("out/tiny_timings.json")).expect("folder"),
        args: &["tiny.toml", "--out", "out"],
        error: Some("out/tiny_timings.json: a folder is where this output file goes"),
    },
    Case {
        name: "an export file's name is a folder",
        setup: |d, _| std::fs::create_dir_all(d.join("dens/tiny_camera.json")).expect("folder"),
        args: &["tiny.toml", "--out", "out", "--export-density", "dens"],
        error: Some("dens/tiny_camera.json: a folder is where this output file goes"),
    },
    Case {
        name: "an animation's name is a folder",
        setup: |d, _| std::fs::create_dir_all(d.join("out/tiny.apng")).expect("folder"),
        args: &["tiny.toml", "--out", "out", "--apng", "3"],
        error: Some("out/tiny.apng: a folder is where this output file goes"),
    },
    Case {
        name: "a texture that is a pipe",
        setup: |d, _| {
            let made = Command::new("mkfifo").arg(d.join("fifo")).status().expect("mkfifo");
            assert!(made.success());
            write_scene(d, "tiny.toml", "[textures]\nt = \"fifo\"\n");
        },
        args: &["tiny.toml"],
        error: Some("is not a regular file (a pipe)"),
    },
    Case {
        name: "a texture that is a folder",
        setup: |d, _| {
            std::fs::create_dir_all(d.join("tex")).expect("folder");
            write_scene(d, "tiny.toml", "[textures]\nt = \"tex\"\n");
        },
        args: &["tiny.toml"],
        error: Some("is not a regular file (a directory)"),
    },
    Case {
        name: "a texture linked to /dev/zero",
        setup: |d, _| {
            link(Path::new("/dev/zero"), &d.join("zero.png"));
            write_scene(d, "tiny.toml", "[textures]\nt = \"zero.png\"\n");
        },
        args: &["tiny.toml"],
        error: Some("is not a regular file (a device)"),
    },
    Case {
        name: "a truncated texture a particle source uses",
        setup: |d, _| {
            let mut png = Vec::new();
            image::RgbaImage::from_pixel(32, 32, image::Rgba([200, 100, 50, 128]))
                .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
                .expect("png");
            std::fs::write(d.join("cut.png"), &png[..png.len() / 2]).expect("texture");
            write_scene(d, "tiny.toml", &format!("[textures]\nt = \"cut.png\"\n{PARTICLE}"));
        },
        args: &["tiny.toml"],
        error: Some("particle source p: texture t:"),
    },
];

#[test]
fn paths_that_cannot_be_written_are_refused_before_the_gpu_starts_and_nothing_outside_changes() {
    let root = scratch("refused");
    for (i, case) in CASES.iter().enumerate() {
        let d = root.join(format!("case{i}"));
        let outside = root.join(format!("outside{i}"));
        std::fs::create_dir_all(&outside).expect("outside");
        std::fs::write(outside.join("target.txt"), "a file outside the output folders").expect("target");
        std::fs::create_dir_all(&d).expect("case folder");
        write_scene(&d, "tiny.toml", "");
        (case.setup)(&d, &outside);
        let (before, outside_before) = (snapshot(&d), snapshot(&outside));
        // The long scene name is made here (250 bytes; a file name may have 255).
        let long = format!("{}.toml", "n".repeat(250));
        let mut args = vec!["render", "--device", "99", "--size", "64x36"];
        args.extend(case.args.iter().map(|a| if *a == "LONG.toml" { long.as_str() } else { a }));
        let run = particle_fog(&d, &args);
        let err = String::from_utf8_lossy(&run.stderr);
        let expected = case.error.expect("a failing case");
        assert!(!run.status.success(), "{}: succeeded", case.name);
        assert!(err.contains(expected), "{}: expected {expected:?} in {err}", case.name);
        assert!(!err.contains("Vulkan"), "{}: the GPU was started first: {err}", case.name);
        assert_eq!(snapshot(&outside), outside_before, "{}: outside changed", case.name);
        let after = snapshot(&d);
        let made: Vec<_> = after.keys().filter(|k| !before.contains_key(*k)).collect();
        assert!(made.iter().all(|p| after[*p] == b"<folder>"), "{}: files written: {made:?}", case.name);
    }
}

#[test]
fn links_in_the_way_are_replaced_and_an_earlier_runs_files_go() {
    let d = scratch("links");
    let outside = d.join("outside");
    std::fs::create_dir_all(outside.join("dir")).expect("outside");
    let target = outside.join("target.txt");
    std::fs::write(&target, "a text file outside both folders").expect("target");
    write_scene(&d, "tiny.toml", "");
    let (out, dens) = (d.join("out"), d.join("dens"));
    std::fs::create_dir_all(&out).expect("out");
    std::fs::create_dir_all(&dens).expect("dens");
    // Links where this run's files go: to a file and to a folder outside.
    link(&target, &out.join("tiny.png"));
    link(&target, &out.join("tiny_timings.json"));
    link(&target, &dens.join("tiny_carriers.json"));
    link(&outside.join("dir"), &dens.join("tiny_camera.json"));
    // An earlier run's files this one does not write (no bricks: no volume), a killed run's
    // temporary, and a file of the user's.
    for stale in ["tiny_0003.png", "tiny_0003_coverage.png", "tiny.apng", ".pf-tmp-4194305-0"] {
        std::fs::write(out.join(stale), "old").expect("stale");
    }
    link(&target, &out.join("tiny_sliders.png"));
    std::fs::write(dens.join("tiny_density.vol"), "old volume").expect("stale volume");
    std::fs::write(out.join("notes.txt"), "mine").expect("notes");
    let outside_before = snapshot(&outside);
    let run = particle_fog(
        &d,
        &["render", "tiny.toml", "--size", "64x36", "--out", "out", "--export-density", "dens"],
    );
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(snapshot(&outside), outside_before, "nothing outside the output folders changed");
    assert_eq!(names(&out), ["notes.txt", "tiny.png", "tiny_timings.json"]);
    assert_eq!(names(&dens), ["tiny_camera.json", "tiny_carriers.json"], "no stale volume beside them");
    for f in [out.join("tiny.png"), out.join("tiny_timings.json"), dens.join("tiny_camera.json")] {
        assert!(std::fs::symlink_metadata(&f).expect("meta").is_file(), "{} is a new file", f.display());
    }
    let png = image::open(out.join("tiny.png")).expect("a PNG");
    assert_eq!((png.width(), png.height()), (64, 36));
    let carriers: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dens.join("tiny_carriers.json")).expect("read")).expect("JSON");
    assert_eq!(carriers["carriers"], serde_json::json!([]));
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).expect("notes"), "mine");
}

/// Peak resident memory the command printed, MiB.
fn peak_mib(run: &Output) -> f64 {
    let text = String::from_utf8_lossy(&run.stdout);
    let line = text.lines().find_map(|l| l.strip_prefix("peak memory (resident): ")).expect("peak line");
    line.trim_end_matches(" MiB").parse().expect("MiB")
}

#[test]
fn an_animation_is_streamed_in_memory_bounded_by_its_size() {
    let d = scratch("apng");
    write_scene(&d, "tiny.toml", "");
    let render = |frames: &str, out: &str| {
        let args = [
            "render",
            "tiny.toml",
            "--size",
            "512x512",
            "--particles-only",
            "--warmup",
            "0",
            "--apng",
            frames,
            "--apng-size",
            "512x512",
        ];
        let run = particle_fog(&d, &[&args[..], &["--out", out]].concat());
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        run
    };
    let (few, many) = (render("2", "few"), render("64", "many"));
    let frame_mib = 512.0 * 512.0 * 4.0 / f64::from(1u32 << 20);
    // Holding the frames would take 62 more frames (62 MiB); streamed, the two runs peak alike.
    let grown = peak_mib(&many) - peak_mib(&few);
    assert!(grown < 16.0 * frame_mib, "64 frames took {grown:.1} MiB more than 2");
    let file = std::fs::File::open(d.join("many/tiny.apng")).expect("the animation");
    let reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().expect("a PNG");
    assert_eq!(reader.info().animation_control().map(|a| a.num_frames), Some(64));
}

#[test]
fn warmup_0_runs_no_warm_up_frames() {
    let d = scratch("warmup");
    write_scene(&d, "tiny.toml", "");
    let run = particle_fog(&d, &["render", "tiny.toml", "--size", "64x36", "--warmup", "0", "--out", "out"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let timings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("out/tiny_timings.json")).expect("timings"))
            .expect("JSON");
    let passes: Vec<&str> =
        timings["passes"].as_array().expect("passes").iter().filter_map(|p| p["pass"].as_str()).collect();
    // The fog's warm-up would have drawn the still scene's shadow layers (cli_render.rs: without
    // --warmup there is no host.shadow in the timed frame); with none, the frame draws them.
    assert!(passes.contains(&"host.shadow"), "{passes:?}");
    assert_eq!(timings["warmup"], 0);
}

#[test]
fn the_help_lists_the_output_sets_and_how_they_are_written() {
    let run =
        Command::new(env!("CARGO_BIN_EXE_particle-fog")).args(["render", "--help"]).output().expect("run");
    let help = String::from_utf8_lossy(&run.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    for part in [
        "SCENE_NNNN.png",
        "FRAME_transmittance.png",
        "SCENE_timings.json",
        "renamed into place",
        "never written through",
        "from an earlier run that this run does not write are removed",
        "<scene>_density.vol",
        "a volume left by an earlier export is removed",
        "memory for two frames, the one rendered and the one shown, whatever N",
    ] {
        assert!(help.contains(part), "{part:?} missing from the help: {help}");
    }
}
