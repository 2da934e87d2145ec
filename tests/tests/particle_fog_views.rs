//! The particle fog's image debug views (`RenderVKParticleFogDebug` 4 and 5) on lavapipe under
//! validation: `render` writes `<scene>_transmittance.png` and `<scene>_coverage.png` as 16-bit
//! linear greyscale; the transmittance agrees with an independent Beer-Lambert march through the
//! exported density grid from the exported camera; the billboards' coverage is `prod(1 - alpha)`;
//! and the coverage of the showcase scenes barely changes when the toggle converts their systems.

use std::path::{Path, PathBuf};

use glam::Vec3;
use pf_tests::frame::temp_dir;
use pf_tests::{gpu_test, validated_desc};
use render::cli::render::{run, RenderJob};
use render::frame::HostRenderer;
use render::particles_gpu::ParticleBudget;
use render::scene::parse;
use render::world::World;

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes").join(format!("{name}.toml"))
}

/// `render SCENE --size WxH --warmup W --last --out OUT --set ...` through the CLI's job (its own
/// validated device; a validation error fails it).
fn render_job(scene: &str, size: (u32, u32), warmup: u32, out: &Path, set: &[&str]) -> RenderJob {
    RenderJob {
        scene: scene_path(scene),
        width: size.0,
        height: size.1,
        frames: 1,
        warmup,
        fps: 30.0,
        out: out.to_path_buf(),
        last_only: true,
        particles_only: false,
        export_density: None,
        export_mitsuba: None,
        settings_file: None,
        overrides: set.iter().map(|s| s.to_string()).collect(),
    }
}

/// A 16-bit greyscale PNG as values in 0..=1 (an error if it is anything else).
fn read_grey16(path: &Path) -> anyhow::Result<(u32, u32, Vec<f32>)> {
    let img = image::open(path)?;
    anyhow::ensure!(img.color() == image::ColorType::L16, "{}: {:?}, not L16", path.display(), img.color());
    let grey = img.to_luma16();
    let values = grey.pixels().map(|p| f32::from(p.0[0]) / 65535.0).collect();
    Ok((grey.width(), grey.height(), values))
}

/// A Mitsuba 3 grid volume (`VOL` v3, float32, one channel), read independently of the writer.
struct Vol {
    dims: [usize; 3],
    lo: Vec3,
    hi: Vec3,
    values: Vec<f32>,
}

impl Vol {
    fn read(path: &Path) -> anyhow::Result<Vol> {
        let b = std::fs::read(path)?;
        anyhow::ensure!(b.len() >= 48 && &b[..3] == b"VOL" && b[3] == 3, "not a VOL v3 file");
        let word = |i: usize| <[u8; 4]>::try_from(&b[i..i + 4]).expect("four bytes");
        let int = |i: usize| i32::from_le_bytes(word(i));
        let float = |i: usize| f32::from_le_bytes(word(i));
        anyhow::ensure!(int(4) == 1 && int(20) == 1, "float32, one channel");
        let dims = [int(8) as usize, int(12) as usize, int(16) as usize];
        let lo = Vec3::new(float(24), float(28), float(32));
        let hi = Vec3::new(float(36), float(40), float(44));
        let n = dims[0] * dims[1] * dims[2];
        anyhow::ensure!(b.len() == 48 + 4 * n, "{} bytes for {dims:?}", b.len());
        let values = (0..n).map(|i| float(48 + 4 * i)).collect();
        Ok(Vol { dims, lo, hi, values })
    }

    fn cell_m(&self) -> f32 {
        (self.hi.x - self.lo.x) / self.dims[0] as f32
    }

    fn at(&self, c: [i64; 3]) -> f32 {
        let inside = (0..3).all(|a| c[a] >= 0 && (c[a] as usize) < self.dims[a]);
        if !inside {
            return 0.0;
        }
        let [x, y, z] = c.map(|v| v as usize);
        self.values[(z * self.dims[1] + y) * self.dims[0] + x]
    }

    /// Trilinear between cell centres, 0 outside.
    fn sample(&self, p: Vec3) -> f32 {
        let g = (p - self.lo) / self.cell_m() - Vec3::splat(0.5);
        let base = g.floor();
        let f = g - base;
        let mut sum = 0.0;
        for corner in 0..8 {
            let o = [corner & 1, (corner >> 1) & 1, (corner >> 2) & 1];
            let w: f32 = (0..3).map(|a| if o[a] == 1 { f[a] } else { 1.0 - f[a] }).product();
            sum += w * self.at(std::array::from_fn(|a| base[a] as i64 + o[a] as i64));
        }
        sum
    }

    /// Beer-Lambert transmittance along the ray `o + t d` (`d` unit) through the grid: midpoint
    /// steps of a quarter cell between the box's entry and exit.
    fn transmittance(&self, o: Vec3, d: Vec3) -> f32 {
        let inv = d.recip();
        let (a, b) = ((self.lo - o) * inv, (self.hi - o) * inv);
        let t0 = a.min(b).max_element().max(0.0);
        let t1 = a.max(b).min_element();
        if t1 <= t0 {
            return 1.0;
        }
        let step = 0.25 * self.cell_m();
        let n = ((t1 - t0) / step).ceil() as usize;
        let dt = (t1 - t0) / n as f32;
        let tau: f32 = (0..n).map(|i| self.sample(o + d * (t0 + (i as f32 + 0.5) * dt)) * dt).sum();
        (-tau).exp()
    }
}

/// Eye, image width and height, and the ray direction through the centre of pixel (x, y).
type CameraRays<F> = (Vec3, u32, u32, F);

/// The ray through the centre of pixel (x, y) of the exported camera (`<scene>_camera.json`):
/// a pinhole with vertical field of view `fov_y_deg`, row 0 at the top.
fn camera_rays(path: &Path) -> anyhow::Result<CameraRays<impl Fn(u32, u32) -> Vec3>> {
    let cam: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let v3 = |k: &str| -> anyhow::Result<Vec3> {
        let a: Vec<f32> = serde_json::from_value(cam[k].clone())?;
        Ok(Vec3::new(a[0], a[1], a[2]))
    };
    let (eye, target, up_hint) = (v3("position")?, v3("target")?, v3("up")?);
    let (w, h) = (cam["width"].as_u64().unwrap_or(0) as u32, cam["height"].as_u64().unwrap_or(0) as u32);
    let tan = (cam["fov_y_deg"].as_f64().unwrap_or(0.0) as f32).to_radians() * 0.5;
    let tan = tan.tan();
    let forward = (target - eye).normalize();
    let right = forward.cross(up_hint).normalize();
    let up = right.cross(forward);
    let aspect = w as f32 / h as f32;
    let ray = move |x: u32, y: u32| {
        let sx = (2.0 * (x as f32 + 0.5) / w as f32 - 1.0) * tan * aspect;
        let sy = (1.0 - 2.0 * (y as f32 + 0.5) / h as f32) * tan;
        (forward + right * sx + up * sy).normalize()
    };
    Ok((eye, w, h, ray))
}

const VIEW_SIZE: (u32, u32) = (160, 90);

#[test]
fn the_transmittance_view_is_16_bit_one_without_fog_and_below_one_through_the_cloud() -> anyhow::Result<()> {
    let out = temp_dir("transmittance-view");
    let set = ["RenderVKParticleFogDebug=4"];
    let mut job = render_job("fog_machine", VIEW_SIZE, 60, &out, &set);
    job.export_density = Some(out.clone());
    run(&job, &validated_desc())?;
    let (w, h, t) = read_grey16(&out.join("fog_machine_transmittance.png"))?;
    assert_eq!((w, h), VIEW_SIZE);
    // Rays that miss the density grid's box see no particle fog: exactly 1.
    let vol = Vol::read(&out.join("fog_machine_density.vol"))?;
    let (eye, _, _, ray) = camera_rays(&out.join("fog_machine_camera.json"))?;
    let mut missed = 0;
    for y in 0..h {
        for x in 0..w {
            if vol.transmittance(eye, ray(x, y)) == 1.0 {
                missed += 1;
                assert_eq!(t[(y * w + x) as usize], 1.0, "pixel ({x}, {y}) misses the fog");
            }
        }
    }
    assert!(missed > 100, "the fog fills the frame ({missed} pixels miss it)");
    let thick = t.iter().filter(|&&v| v < 0.7).count();
    assert!(thick > 50, "the fog machine's cloud is seen ({thick} pixels below 0.7)");
    // Without the debug view nothing is written.
    let plain = temp_dir("transmittance-view-off");
    run(&render_job("fog_machine", (32, 18), 0, &plain, &[]), &validated_desc())?;
    assert!(!plain.join("fog_machine_transmittance.png").exists());
    Ok(())
}

/// RMSE of the transmittance view of `scene` (particles only: no opaque depth cuts the rays) against
/// the independent march through the exported grid of the same frame.
fn transmittance_rmse(name: &str, set: &[&str]) -> anyhow::Result<(f32, f32)> {
    let out = temp_dir(&format!("transmittance-rmse-{name}-{}", set.join("-").replace('=', "_")));
    let mut all = vec!["RenderVKParticleFogDebug=4"];
    all.extend_from_slice(set);
    let mut job = render_job(name, VIEW_SIZE, 60, &out, &all);
    job.particles_only = true;
    job.export_density = Some(out.clone());
    run(&job, &validated_desc())?;
    let (w, _, got) = read_grey16(&out.join(format!("{name}_transmittance.png")))?;
    let vol = Vol::read(&out.join(format!("{name}_density.vol")))?;
    let (eye, cw, ch, ray) = camera_rays(&out.join(format!("{name}_camera.json")))?;
    anyhow::ensure!((cw, ch) == VIEW_SIZE, "camera size {cw}x{ch}");
    let (mut sq, mut min) = (0.0f64, 1.0f32);
    for (i, &g) in got.iter().enumerate() {
        let want = vol.transmittance(eye, ray(i as u32 % w, i as u32 / w));
        sq += f64::from(g - want).powi(2);
        min = min.min(want);
    }
    Ok(((sq / got.len() as f64).sqrt() as f32, min))
}

#[test]
fn the_transmittance_view_agrees_with_a_beer_lambert_march_through_the_exported_density() -> anyhow::Result<()>
{
    // The export samples the march's own density function: the splatted field through the billow
    // warp of the exported frame, weighted by its Jacobian (Billow 0: the field itself).
    for name in ["fog_machine", "campfire"] {
        for billow in ["RenderVKParticleFogBillow=0", "RenderVKParticleFogBillow=1"] {
            let (rmse, min) = transmittance_rmse(name, &[billow])?;
            eprintln!("{name}, {billow}: transmittance RMSE {rmse:.4}, thinnest {min:.3}");
            assert!(min < 0.8, "{name}, {billow}: the fog is thick enough to test ({min})");
            assert!(rmse <= 0.02, "{name}, {billow}: RMSE {rmse}");
        }
    }
    Ok(())
}

/// A dark scene, camera on -Y looking along +Y, a black wall far behind, and still billboards:
/// (x, z, alpha) each, 1 m square, normal alpha blend, fullbright white.
fn billboard_scene(dir: &Path, parts: &[(f32, f32, f32)]) -> anyhow::Result<String> {
    image::RgbaImage::from_pixel(4, 4, image::Rgba([255; 4])).save(dir.join("white.png"))?;
    let mut toml = "[camera]\nposition = [0.0, -10.0, 1.0]\ntarget = [0.0, 0.0, 1.0]\nfov_y_deg = 40\n\
         [sun]\nilluminance = 0.0\n[ambient]\nsky = [0.0, 0.0, 0.0]\nground = [0.0, 0.0, 0.0]\n\
         [textures]\nwhite = \"white.png\"\n\
         [[object]]\nshape = \"box\"\nsize = [40.0, 0.2, 40.0]\nposition = [0.0, 20.0, 1.0]\n\
         albedo = [0.0, 0.0, 0.0]\n"
        .to_owned();
    for (i, (x, z, alpha)) in parts.iter().enumerate() {
        toml += &format!(
            "[[particles]]\nname = \"p{i}\"\nposition = [{x}, {}, {z}]\ntexture = \"white\"\n\
             [particles.system]\nburst_rate = 100.0\nburst_part_count = 1\nburst_speed_min = 0.0\n\
             burst_speed_max = 0.0\npart_max_age = 30.0\npart_flags = [\"emissive\"]\n\
             start_color = [1.0, 1.0, 1.0]\nstart_alpha = {alpha}\nstart_scale = [1.0, 1.0]\n\
             blend_func_source = 7\nblend_func_dest = 9\n",
            -(i as f32) * 0.5
        );
    }
    Ok(toml)
}

#[test]
fn billboard_coverage_is_one_minus_the_product_of_one_minus_alpha() {
    gpu_test(|gpu| {
        let dir = temp_dir("billboard-coverage");
        // Alphas that 8-bit vertex colours hold exactly (153 / 255 and 51 / 255); the two squares
        // overlap on screen about x in [-0.1, 0.1] (the second is 0.5 m nearer).
        let (a, b) = (0.6, 0.2);
        let scene = parse(&billboard_scene(&dir, &[(-0.4, 1.0, a), (0.4, 1.0, b)])?, &dir.join("t.toml"))?;
        let mut world = World::new(gpu, &scene)?;
        let (w, h) = (160u32, 90u32);
        let mut r = HostRenderer::new(gpu, w, h)?;
        r.budget_override = Some(ParticleBudget::Unlimited);
        for f in 0..3 {
            r.render(gpu, &mut world, &scene, &settings::Settings::default(), f as f32 / 30.0)?;
        }
        let cover = r.read_particle_coverage(gpu)?;
        let view = render::view::CameraView::new(
            scene.camera.position,
            scene.camera.target,
            40.0,
            w as f32 / h as f32,
        );
        let at = |p: Vec3| {
            let (uv, _) = render::view::project(view.clip_from_world, p);
            cover[(uv.y * h as f32) as usize * w as usize + (uv.x * w as f32) as usize]
        };
        let tol = 2e-3;
        let checks = [
            (Vec3::new(-0.7, 0.0, 1.0), a, "first alone"),
            (Vec3::new(0.7, 0.0, 1.0), b, "second alone"),
            (Vec3::new(0.0, 0.0, 1.0), 1.0 - (1.0 - a) * (1.0 - b), "both"),
            (Vec3::new(0.0, 0.0, 2.2), 0.0, "neither"),
        ];
        for (p, want, what) in checks {
            let got = at(p);
            assert!((got - want).abs() < tol, "{what}: coverage {got}, expected {want}");
        }
        Ok(())
    });
}

/// Total coverage of a coverage view: the mean over the image of `1 - T` (T the transmittance
/// of every particle system to the opaque depth), i.e. the share of the frame the particles hide.
fn total_coverage(path: &Path) -> anyhow::Result<f64> {
    let (_, _, c) = read_grey16(path)?;
    Ok(c.iter().map(|&v| f64::from(v)).sum::<f64>() / c.len() as f64)
}

#[test]
fn coverage_with_the_toggle_on_is_within_ten_percent_of_the_billboards() -> anyhow::Result<()> {
    // After 90 simulated frames (3 s, the systems in flow) and the fog's warm-up; the same frame
    // with the systems as fog and as billboards.
    let mut report = Vec::new();
    for name in ["fog_machine", "campfire", "waterfall"] {
        let mut total = [0.0; 2];
        for (i, toggle) in ["true", "false"].into_iter().enumerate() {
            let out = temp_dir(&format!("coverage-{name}-{toggle}"));
            let set = ["RenderVKParticleFogDebug=5".to_owned(), format!("RenderVKParticleFog={toggle}")];
            let set: Vec<&str> = set.iter().map(String::as_str).collect();
            run(&render_job(name, VIEW_SIZE, 90, &out, &set), &validated_desc())?;
            total[i] = total_coverage(&out.join(format!("{name}_coverage.png")))?;
        }
        let rel = (total[0] - total[1]).abs() / total[1].max(1e-9);
        eprintln!(
            "{name}: coverage fog {:.4}, billboards {:.4}, differ {:.1} %",
            total[0],
            total[1],
            100.0 * rel
        );
        report.push((name, total, rel));
    }
    for (name, [on, off], rel) in report {
        assert!(off > 1e-3, "{name}: the billboards cover something ({off})");
        assert!(
            rel <= 0.10,
            "{name}: coverage {on:.4} as fog vs {off:.4} as billboards ({:.1} %)",
            100.0 * rel
        );
    }
    Ok(())
}
