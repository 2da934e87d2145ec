//! The particle fog lit and composited (lavapipe, validation on), on small scenes of slowly
//! drifting puffs that convert: a cloud between the sun and a second cloud darkens it
//! (self-shadowing), a projector's colour shows in the cloud it lights and not beside it, an
//! opaque object in front of a cloud is untouched while one inside it is fogged, and froxel fog
//! in front of a cloud attenuates what the cloud adds, and a cloud attenuates the froxel fog and
//! billboards behind it but not a billboard in front, and the sun's shadow falls on the fog.

use std::path::Path;

use glam::Vec3;
use pf_tests::frame::{temp_dir, Frame};
use pf_tests::gpu_test;
use render::frame::HostRenderer;
use render::scene::parse;
use render::world::World;

const SIZE: (u32, u32) = (160, 90);
const FPS: f32 = 30.0;
/// Simulated frames before the one rendered: the puffs fill their clouds.
const WARMUP: u32 = 150;

/// A cloud of soft, slow, long-lived puffs around `at` (converts with a soft texture).
fn cloud(name: &str, at: Vec3) -> String {
    coloured_cloud(name, at, [1.0, 1.0, 1.0])
}

/// [`cloud`] with particles of `colour` (black: a cloud that only absorbs).
fn coloured_cloud(name: &str, at: Vec3, colour: [f32; 3]) -> String {
    format!(
        r#"
        [[particles]]
        name = "{name}"
        position = [{}, {}, {}]
        texture = "soft"
        [particles.system]
        pattern = "explode"
        burst_radius = 0.4
        burst_rate = 0.1
        burst_part_count = 4
        burst_speed_min = 0.02
        burst_speed_max = 0.05
        part_flags = ["interp_scale"]
        part_max_age = 12.0
        start_color = [{r}, {g}, {b}]
        end_color = [{r}, {g}, {b}]
        start_alpha = 0.5
        end_alpha = 0.5
        start_scale = [1.5, 1.5]
        end_scale = [2.0, 2.0]
        "#,
        at.x,
        at.y,
        at.z,
        r = colour[0],
        g = colour[1],
        b = colour[2]
    )
}

/// The scene's head: camera at (0, -8, 1) looking along +y, the soft texture, black sky.
fn head(sun: f32, extra: &str) -> String {
    let soft = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/textures/soft.png");
    format!(
        r#"
        [camera]
        position = [0.0, -8.0, 1.0]
        target = [0.0, 0.0, 1.0]
        fov_y_deg = 50
        [sun]
        direction = [0.0, 0.0, 1.0]
        illuminance = {sun}
        [ambient]
        sky = [0.0, 0.0, 0.0]
        ground = [0.0, 0.0, 0.0]
        [textures]
        soft = "{}"
        {extra}
        "#,
        soft.display()
    )
}

/// Renders `toml` with the particle fog `on` (and the settings `overrides`) after the warm-up.
fn render(
    gpu: &mut render::Gpu,
    toml: &str,
    dir: &Path,
    on: bool,
    overrides: &[&str],
) -> anyhow::Result<Frame> {
    let scene = parse(toml, &dir.join("test.toml"))?;
    let mut settings = settings::Settings::default();
    let mut all = vec![format!("RenderVKParticleFog={on}"), "RenderVKParticleFogBillow=0".to_string()];
    all.extend(overrides.iter().map(|o| o.to_string()));
    settings::cli::apply_overrides(&mut settings, &all)?;
    let mut world = World::new(gpu, &scene)?;
    let mut r = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
    for f in 0..WARMUP {
        r.simulate(gpu, &scene, &settings, f as f32 / FPS)?;
    }
    r.render(gpu, &mut world, &scene, &settings, WARMUP as f32 / FPS)?;
    if on {
        let converted = r.particles.as_ref().map_or(0, |p| p.systems.converted());
        let clouds = scene.particles.iter().filter(|p| p.texture.as_deref() == Some("soft")).count();
        assert_eq!(converted as usize, clouds, "every cloud converts, nothing else");
    }
    let hdr = r.read_hdr(gpu)?;
    Ok(Frame { scene, width: SIZE.0, height: SIZE.1, hdr })
}

#[test]
fn a_cloud_between_the_sun_and_another_darkens_it() {
    let dir = temp_dir("fog-self-shadow");
    gpu_test(|gpu| {
        let low = Vec3::new(0.0, 0.0, 1.0);
        let alone = head(5.0, &cloud("low", low));
        let shaded = head(5.0, &(cloud("low", low) + &cloud("high", Vec3::new(0.0, 0.0, 3.0))));
        let a = render(gpu, &alone, &dir, true, &["RenderVKParticleFogDensity=4"])?;
        let b = render(gpu, &shaded, &dir, true, &["RenderVKParticleFogDensity=4"])?;
        // Over the 5 x 5 pixels showing the lower cloud's centre. Mitsuba 3 renders of this
        // scene (render/README.md, "Against Mitsuba 3") keep 0.13 of its light there.
        let (lit, dark) = (a.brightness_around(low, 2), b.brightness_around(low, 2));
        eprintln!("the lower cloud keeps {:.3} of its light under the upper one", dark / lit);
        assert!(lit > 0.0, "the sun lights the cloud: {lit}");
        assert!(dark < 0.25 * lit, "the cloud above shades the one below: {dark} vs {lit} alone");
        assert!(dark > 0.05 * lit, "but not into darkness: {dark} vs {lit} alone");
        Ok(())
    });
}

#[test]
fn a_projectors_colour_shows_in_the_cloud_it_lights_only() {
    let dir = temp_dir("fog-projector");
    image::RgbaImage::from_pixel(16, 16, image::Rgba([255, 0, 0, 255]))
        .save(dir.join("red.png"))
        .expect("texture");
    gpu_test(|gpu| {
        let (lit_at, beside) = (Vec3::new(-1.5, 0.0, 1.0), Vec3::new(1.5, 0.0, 1.0));
        let projector = r#"
            red = "red.png"
            [[light]]
            kind = "projector"
            position = [-1.5, 0.0, 5.0]
            direction = [0.0, 0.0, -1.0]
            up = [0.0, 1.0, 0.0]
            fov_deg = 30
            texture = "red"
            intensity = 200
            range = 20
            "#;
        let toml = head(0.0, projector) + &cloud("lit", lit_at) + &cloud("beside", beside);
        let on = render(gpu, &toml, &dir, true, &[])?;
        let (a, b) = (on.pixel_at(lit_at), on.pixel_at(beside));
        assert!(a[0] > 0.01, "the projector lights its cloud: {a:?}");
        assert!(a[1] < 0.05 * a[0] && a[2] < 0.05 * a[0], "in the projector's colour: {a:?}");
        assert!(b[0] < 0.05 * a[0], "the cloud beside the cone stays dark: {b:?}");
        Ok(())
    });
}

/// A grey box of edge `edge` at `at`.
fn block(name: &str, at: Vec3, edge: f32) -> String {
    format!(
        r#"
        [[object]]
        name = "{name}"
        shape = "box"
        size = [{edge}, {edge}, {edge}]
        position = [{}, {}, {}]
        albedo = [0.5, 0.5, 0.5]
        "#,
        at.x, at.y, at.z
    )
}

#[test]
fn an_object_in_front_of_a_cloud_is_untouched_and_one_inside_is_fogged() {
    let dir = temp_dir("fog-order");
    gpu_test(|gpu| {
        let (front, inside) = (Vec3::new(0.0, -3.0, 1.0), Vec3::new(0.7, 0.0, 0.7));
        let boxes = block("front", front, 0.3) + &block("inside", inside, 0.3);
        let clear = head(5.0, &boxes);
        let clouded = clear.clone() + &cloud("cloud", Vec3::new(0.0, 0.0, 1.0));
        let without = render(gpu, &clear, &dir, true, &[])?;
        let with = render(gpu, &clouded, &dir, true, &[])?;
        assert_eq!(with.pixel_at(front), without.pixel_at(front), "the box in front of the cloud");
        let (a, b) = (with.pixel_at(inside), without.pixel_at(inside));
        let change = (0..3).map(|c| (a[c] - b[c]).abs()).sum::<f32>() / (b[0] + b[1] + b[2]);
        assert!(change > 0.05, "the box inside the cloud is fogged by the part in front: {a:?} vs {b:?}");
        Ok(())
    });
}

#[test]
fn froxel_fog_in_front_of_a_cloud_attenuates_what_it_adds() {
    let dir = temp_dir("fog-froxel-order");
    gpu_test(|gpu| {
        let centre = Vec3::new(0.0, 0.0, 1.0);
        // A purely absorbing froxel fog (albedo 0, 0.15 /m everywhere) between the camera and the
        // cloud, 6.5-9 m away: what the cloud adds is seen through exp(-0.15 t), 0.26-0.38.
        let absorbing = "[height_fog]\ndensity = 0.15\nfalloff = 0.0\nalbedo = [0.0, 0.0, 0.0]\n";
        let mut light = |fog: &str| -> anyhow::Result<f32> {
            let with = render(gpu, &(head(5.0, fog) + &cloud("cloud", centre)), &dir, true, &[])?;
            let without = render(gpu, &head(5.0, fog), &dir, true, &[])?;
            Ok(with.brightness_at(centre) - without.brightness_at(centre))
        };
        let (clear, fogged) = (light("")?, light(absorbing)?);
        assert!(clear > 0.0, "the cloud adds light: {clear}");
        let ratio = fogged / clear;
        assert!((0.2..0.45).contains(&ratio), "seen through the froxel fog: {ratio} ({fogged} / {clear})");
        Ok(())
    });
}

/// A small, fullbright white square billboard system at `at` (too small to convert).
fn spark(name: &str, at: Vec3) -> String {
    format!(
        r#"
        [[particles]]
        name = "{name}"
        position = [{}, {}, {}]
        texture = "white"
        [particles.system]
        burst_rate = 0.05
        burst_part_count = 1
        burst_speed_min = 0.0
        burst_speed_max = 0.0
        part_max_age = 30.0
        part_flags = ["emissive"]
        start_color = [1.0, 1.0, 1.0]
        start_alpha = 1.0
        start_scale = [0.3, 0.3]
        "#,
        at.x, at.y, at.z
    )
}

#[test]
fn a_cloud_attenuates_what_lies_behind_it_froxel_fog_and_billboards_included() {
    let dir = temp_dir("fog-behind");
    image::RgbaImage::from_pixel(4, 4, image::Rgba([255; 4])).save(dir.join("white.png")).expect("texture");
    gpu_test(|gpu| {
        // A black cloud (it absorbs and scatters nothing) in sunlit scattering froxel fog that
        // runs on behind it to the fog's range, with a billboard behind the cloud and one in front.
        let (behind, front) = (Vec3::new(0.0, 2.5, 1.6), Vec3::new(-2.0, -3.0, 1.0));
        let fog =
            "white = \"white.png\"\n[height_fog]\ndensity = 0.02\nfalloff = 0.0\nalbedo = [1.0, 1.0, 1.0]\n";
        let base = head(5.0, fog) + &spark("behind", behind) + &spark("front", front);
        let clouded = base.clone() + &coloured_cloud("cloud", Vec3::new(0.0, 0.0, 1.0), [0.0, 0.0, 0.0]);
        let dense = ["RenderVKParticleFogDensity=4"];
        let without = render(gpu, &base, &dir, true, &dense)?;
        let with = render(gpu, &clouded, &dir, true, &dense)?;
        let through = Vec3::new(0.0, 0.0, 0.8);
        let (a, b) = (with.brightness_at(through), without.brightness_at(through));
        assert!(a < 0.8 * b, "the froxel fog seen through the cloud is dimmed: {a} vs {b}");
        let (a, b) = (with.brightness_at(behind), without.brightness_at(behind));
        assert!(a < 0.8 * b, "the billboard behind the cloud is dimmed: {a} vs {b}");
        let (a, b) = (with.brightness_at(front), without.brightness_at(front));
        assert!((a - b).abs() < 0.02 * b, "the billboard in front of the cloud is not: {a} vs {b}");
        Ok(())
    });
}

#[test]
fn the_suns_shadow_falls_on_the_particle_fog() {
    let dir = temp_dir("fog-sun-shadow");
    gpu_test(|gpu| {
        // Sun overhead; a roof over the right-hand cloud only: the lit cloud is far brighter than
        // the shaded one (the dust in a sunbeam against the dust beside it).
        let (lit_at, shaded_at) = (Vec3::new(-2.0, 0.0, 1.0), Vec3::new(2.0, 0.0, 1.0));
        let roof = block("roof", Vec3::new(2.0, 0.0, 4.0), 3.5);
        let toml = head(5.0, "") + &roof + &cloud("lit", lit_at) + &cloud("shaded", shaded_at);
        let frame = render(gpu, &toml, &dir, true, &["RenderVKParticleFogDensity=2"])?;
        let (lit, shaded) = (frame.brightness_at(lit_at), frame.brightness_at(shaded_at));
        assert!(lit > 0.0, "the sun lights the open cloud: {lit}");
        assert!(shaded < 0.3 * lit, "the roof's shadow darkens the cloud under it: {shaded} vs {lit}");
        Ok(())
    });
}
