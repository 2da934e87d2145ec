//! The showcase outputs of `particle-fog render` (lavapipe): the comparison shows the frame the job
//! wrote beside its billboards (or, with the particle fog off, beside its particle fog), its
//! billboards are what a render with the particle fog off shows (within 2 of 255), the
//! animation carries on from the job's frames at half the frame's size unless `--apng-size` says
//! otherwise, and the contact sheet's tiles are half the frame's size either way.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pf-cli-showcase-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

/// Renders the fog machine at 96x54 with every showcase output into `out` (a small froxel grid
/// keeps lavapipe quick), with `extra` arguments.
fn render_showcase(out: &Path, extra: &[&str]) {
    let showcase = ["--compare", "--apng", "3", "--contact-sheet"];
    render(out, &[&showcase, extra].concat());
}

/// Renders the fog machine at 96x54 into `out` after 24 warm-up frames, with `extra` arguments.
fn render(out: &Path, extra: &[&str]) {
    let scene = repo().join("scenes/fog_machine.toml");
    let mut args = vec![
        "render".to_owned(),
        scene.display().to_string(),
        "--size".into(),
        "96x54".into(),
        "--warmup".into(),
        "24".into(),
        "--validation".into(),
        "--out".into(),
        out.display().to_string(),
    ];
    for grid in ["GridX=24", "GridY=14", "GridZ=16"] {
        args.extend(["--set".to_owned(), format!("RenderVKVolumetricFog{grid}")]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let run = Command::new(env!("CARGO_BIN_EXE_particle-fog")).args(&args).output().expect("run");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
}

/// A PNG's size, frame count (1 for a still) and first frame's RGBA8 pixels.
fn decode(path: &Path) -> ((u32, u32), u32, Vec<u8>) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().expect("a PNG");
    let frames = reader.info().animation_control().map_or(1, |a| a.num_frames);
    let mut pixels = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut pixels).expect("a frame");
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight));
    ((info.width, info.height), frames, pixels)
}

#[test]
fn the_comparison_shows_the_frame_written_and_the_animation_is_half_its_size() {
    let d = scratch("default");
    render_showcase(&d, &[]);
    let (size, _, frame) = decode(&d.join("fog_machine.png"));
    let ((cw, ch), _, compare) = decode(&d.join("fog_machine_compare.png"));
    assert_eq!((size, (cw, ch)), ((96, 54), (192, 54)));
    // The left half is the job's frame but for its label: white glyphs on black, near the top.
    let (mut label, mut other, mut billboards_differ) = (0, 0, 0);
    for y in 0..54usize {
        for x in 0..96usize {
            let f = &frame[(y * 96 + x) * 4..][..4];
            let left = &compare[(y * 192 + x) * 4..][..4];
            let right = &compare[(y * 192 + 96 + x) * 4..][..4];
            if left != f {
                if (left == [255, 255, 255, 255] || left == [0, 0, 0, 255]) && y < 24 {
                    label += 1;
                } else {
                    other += 1;
                }
            }
            billboards_differ += usize::from(right.iter().zip(f).any(|(a, b)| a.abs_diff(*b) > 8));
        }
    }
    assert_eq!(other, 0, "{other} pixels of the comparison's left half are not the frame written");
    assert!(label > 20, "no label over the left half ({label} pixels)");
    assert!(billboards_differ > 100, "the billboards look like the fog ({billboards_differ} pixels differ)");
    let (apng, frames, _) = decode(&d.join("fog_machine.apng"));
    assert_eq!((apng, frames), ((48, 27), 3));
    let (sheet, _, _) = decode(&d.join("fog_machine_sliders.png"));
    assert_eq!(sheet, (3 * 48, 3 * 27));
}

#[test]
fn apng_size_sets_the_animation_and_leaves_the_sheet_at_half_the_frame() {
    let d = scratch("sized");
    render_showcase(&d, &["--apng-size", "40x24"]);
    let (apng, frames, _) = decode(&d.join("fog_machine.apng"));
    assert_eq!((apng, frames), ((40, 24), 3));
    let (sheet, _, _) = decode(&d.join("fog_machine_sliders.png"));
    assert_eq!(sheet, (3 * 48, 3 * 27));
}

#[test]
fn the_animation_carries_on_from_the_job_s_frames() {
    let d = scratch("carried");
    render(&d, &["--apng", "3", "--apng-size", "96x54"]);
    let plain = scratch("two-frames");
    render(&plain, &["--frames", "2"]);
    let (_, frames, first) = decode(&d.join("fog_machine.apng"));
    let (_, _, second) = decode(&plain.join("fog_machine_0001.png"));
    assert_eq!(frames, 3);
    let differ = first.chunks(4).zip(second.chunks(4)).filter(|(a, b)| a != b).count();
    assert_eq!(differ, 0, "{differ} pixels of the animation's first frame are not the job's second frame");
}

#[test]
fn with_the_particle_fog_off_the_comparison_shows_the_frame_as_its_billboards() {
    let d = scratch("billboards");
    render(&d, &["--compare", "--set", "RenderVKParticleFog=false"]);
    let (_, _, frame) = decode(&d.join("fog_machine.png"));
    let (_, _, billboards) = decode(&d.join("fog_machine_billboards.png"));
    let (_, _, compare) = decode(&d.join("fog_machine_compare.png"));
    assert_eq!(billboards, frame, "the billboards picture is not the frame written");
    // The left half differs from the frame where the particle fog shows, the label aside.
    let fog_differs = (0..54usize)
        .flat_map(|y| (0..96usize).map(move |x| (y, x)))
        .filter(|&(y, x)| {
            let left = &compare[(y * 192 + x) * 4..][..4];
            let f = &frame[(y * 96 + x) * 4..][..4];
            let label = (left == [255, 255, 255, 255] || left == [0, 0, 0, 255]) && y < 24;
            !label && left.iter().zip(f).any(|(a, b)| a.abs_diff(*b) > 8)
        })
        .count();
    // The fog machine's cloud covers a few dozen of the 96x54 pixels.
    assert!(fog_differs > 18, "the particle fog looks like the billboards ({fog_differs} pixels differ)");
}

#[test]
fn the_billboards_side_matches_a_render_with_the_particle_fog_off() {
    let d = scratch("side");
    render(&d, &["--compare"]);
    let plain = scratch("off");
    render(&plain, &["--set", "RenderVKParticleFog=false"]);
    let (_, _, side) = decode(&d.join("fog_machine_billboards.png"));
    let (_, _, off) = decode(&plain.join("fog_machine.png"));
    let diffs: Vec<u8> = side.iter().zip(&off).map(|(a, b)| a.abs_diff(*b)).collect();
    // The borrowed froxel fog's history holds the job's frame as one more jittered sample.
    let mean = diffs.iter().map(|&d| f64::from(d)).sum::<f64>() / diffs.len() as f64;
    let max = diffs.iter().max().copied().unwrap_or(0);
    assert!(max <= 2 && mean < 0.1, "the billboards side differs: mean {mean:.3}, max {max} of 255");
}
