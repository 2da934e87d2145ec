//! The froxel fog against its per-pixel reference (`RenderVKVolumetricFogReference`: a fine
//! ray-march with the same media, lights, shadows, projectors and phase function) on the showcase
//! scenes with the light shafts, particles off, at 320x180. The fog's contribution (linear colour
//! minus the image without fog) must match the reference's within a relative RMSE of 0.25 in the
//! first frame (no history) and 0.15 after 16 frames (the temporal passes converged), over the
//! pixels the fog changes.

use std::path::PathBuf;

use pf_tests::gpu_test;
use render::frame::HostRenderer;
use render::scene::{load, Scene};
use render::world::World;
use settings::Settings;

const W: u32 = 320;
const H: u32 = 180;
/// Frames rendered before the converged image is read.
const CONVERGED_FRAMES: u32 = 16;
/// A pixel counts as changed by the fog when the reference's contribution (sum over RGB) exceeds
/// this fraction of the mean contribution over the image.
const CHANGED_FRACTION: f32 = 0.05;

fn scene_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes").join(name)
}

/// Default settings with the particles off.
fn no_particles() -> Settings {
    Settings { max_part_count: 0, ..Settings::default() }
}

/// Renders `frames` frames of the still scene (time 0) and returns each frame's linear RGB.
fn render_frames(
    gpu: &mut render::Gpu,
    scene: &Scene,
    settings: &Settings,
    frames: u32,
) -> anyhow::Result<Vec<Vec<[f32; 3]>>> {
    let mut world = World::new(gpu, scene)?;
    let mut renderer = HostRenderer::new(gpu, W, H)?;
    let mut out = Vec::new();
    for _ in 0..frames {
        renderer.render(gpu, &mut world, scene, settings, 0.0)?;
        out.push(renderer.read_hdr(gpu)?.iter().map(|p| [p[0], p[1], p[2]]).collect());
    }
    Ok(out)
}

/// Relative RMSE of `got - base` against `want - base` over the pixels where the reference
/// contribution is at least [`CHANGED_FRACTION`] of its mean; also returns that pixel count.
fn relative_rmse(got: &[[f32; 3]], want: &[[f32; 3]], base: &[[f32; 3]]) -> (f32, usize) {
    let contribution = |img: &[[f32; 3]], i: usize| -> [f32; 3] {
        std::array::from_fn(|c| img[i][c] - base[i][c])
    };
    let magnitude = |v: [f32; 3]| v.iter().map(|c| c.abs()).sum::<f32>();
    let n = base.len();
    let mean = (0..n).map(|i| magnitude(contribution(want, i))).sum::<f32>() / n as f32;
    let (mut err, mut norm, mut count) = (0.0f64, 0.0f64, 0usize);
    for i in 0..n {
        let w = contribution(want, i);
        if magnitude(w) < CHANGED_FRACTION * mean {
            continue;
        }
        let g = contribution(got, i);
        count += 1;
        for c in 0..3 {
            err += f64::from(g[c] - w[c]).powi(2);
            norm += f64::from(w[c]).powi(2);
        }
    }
    ((err / norm.max(1e-30)).sqrt() as f32, count)
}

fn check_scene(name: &str) {
    gpu_test(|gpu| {
        let scene = load(&scene_path(name))?;
        let base_settings = no_particles();
        let no_fog = Settings { volumetric_fog: false, ..base_settings.clone() };
        let reference = Settings { volumetric_fog_reference: true, ..base_settings.clone() };
        let base = render_frames(gpu, &scene, &no_fog, 1)?.remove(0);
        let want = render_frames(gpu, &scene, &reference, 1)?.remove(0);
        let frames = render_frames(gpu, &scene, &base_settings, CONVERGED_FRAMES)?;
        debug_dump(name, &[&base, &want, &frames[0], &frames[frames.len() - 1]]);
        let (first, count) = relative_rmse(&frames[0], &want, &base);
        let (converged, _) = relative_rmse(&frames[frames.len() - 1], &want, &base);
        eprintln!("{name}: {count} pixels changed by fog; relative RMSE first {first:.4}, converged {converged:.4}");
        assert!(count > (W * H / 10) as usize, "{name}: the fog changes only {count} pixels");
        assert!(first <= 0.25, "{name}: first frame relative RMSE {first}");
        assert!(converged <= 0.15, "{name}: after {CONVERGED_FRAMES} frames relative RMSE {converged}");
        Ok(())
    });
}

#[test]
fn dust_sunbeams_fog_matches_the_reference() {
    check_scene("dust_sunbeams.toml");
}

#[test]
fn fog_machine_fog_matches_the_reference() {
    check_scene("fog_machine.toml");
}

fn debug_dump(name: &str, imgs: &[&Vec<[f32; 3]>]) {
    let base = imgs[0];
    let want = imgs[1];
    let got = imgs[3];
    let mut e: Vec<(f32, f32, usize)> = (0..base.len())
        .map(|i| {
            let w: f32 = (0..3).map(|c| want[i][c] - base[i][c]).sum();
            let err: f32 = (0..3).map(|c| (got[i][c] - want[i][c]).powi(2)).sum();
            (err, w, i)
        })
        .collect();
    let total: f32 = e.iter().map(|x| x.0).sum();
    e.sort_by(|a, b| b.0.total_cmp(&a.0));
    for k in [10, 100, 1000, 5000] {
        let part: f32 = e[..k].iter().map(|x| x.0).sum();
        eprintln!("top {k} px: {:.3} of the squared error", part / total);
    }
    for (cx, cy) in [(210i32, 39i32), (113, 24)] {
        for (label, img) in [("ref", want), ("frx", got)] {
            eprintln!("{label} around ({cx},{cy}):");
            for y in cy - 4..=cy + 4 {
                let row: Vec<String> = (cx - 4..=cx + 4)
                    .map(|x| {
                        let i = (y * W as i32 + x) as usize;
                        format!("{:6.3}", (0..3).map(|c| img[i][c] - base[i][c]).sum::<f32>())
                    })
                    .collect();
                eprintln!("  {}", row.join(" "));
            }
        }
    }
    for x in &e[..8] {
        eprintln!("px ({}, {}): err {:.4} ref contribution {:.4}", x.2 as u32 % W, x.2 as u32 / W, x.0.sqrt(), x.1);
    }
    for (k, img) in imgs.iter().enumerate().skip(1) {
        let mut out = image::RgbImage::new(W, H);
        for (i, p) in img.iter().enumerate() {
            let px: [u8; 3] = std::array::from_fn(|c| {
                let v = ((p[c] - base[i][c]) * 8.0).max(0.0);
                ((v / (1.0 + v)).powf(1.0 / 2.2) * 255.0) as u8
            });
            out.put_pixel(i as u32 % W, i as u32 / W, image::Rgb(px));
        }
        out.save(format!("/tmp/fq_{name}_{k}.png")).expect("png");
    }
}
