//! Scene files parse into the values they say: showcase scenes, hand-written scenes with known
//! values, the three particle-system forms, defaults and camera interpolation.

use std::path::{Path, PathBuf};

use glam::{Quat, Vec2, Vec3};
use particles::codec::{encode, to_hex};
use particles::types::{blend, pattern};
use particles::{PartFlags, PartSysData};
use render::scene::{load, parse, LightKind, Motion, Scene, Shape, VolumeShape};

const EPS: f32 = 1e-5;

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes")
}

fn origin() -> PathBuf {
    scenes_dir().join("test.toml")
}

const HEAD: &str = "[camera]\nposition = [0.0, -5.0, 1.0]\ntarget = [0.0, 0.0, 1.0]\n";

fn parse_ok(text: &str) -> Scene {
    parse(text, &origin()).unwrap_or_else(|e| panic!("{e}"))
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).length() < 1e-4
}

fn showcase(name: &str) -> Scene {
    load(&scenes_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_scene_file_parses_without_warnings() {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(scenes_dir()).expect("scenes/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "toml") {
            let scene = load(&path).unwrap_or_else(|e| panic!("{e}"));
            assert!(scene.warnings.is_empty(), "{}: {:?}", path.display(), scene.warnings);
            assert!(!scene.particles.is_empty(), "{} has particles", path.display());
            names.push(path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        }
    }
    names.sort();
    for want in
        ["campfire.toml", "dust_sunbeams.toml", "fog_machine.toml", "stress_1m.toml", "waterfall.toml"]
    {
        assert!(names.iter().any(|n| n == want), "{want} missing from {names:?}");
    }
}

#[test]
fn readme_complete_example_parses() {
    let readme = std::fs::read_to_string(scenes_dir().join("README.md")).expect("README");
    let start = readme.find("## Complete example").expect("section");
    let block = &readme[start..];
    let body_start = block.find("```toml\n").expect("toml block") + "```toml\n".len();
    let body_len = block[body_start..].find("```").expect("closing fence");
    let scene = parse_ok(&block[body_start..body_start + body_len]);
    assert_eq!(scene.camera_path.len(), 2);
    assert_eq!(scene.fog_volumes.len(), 1);
    assert!(matches!(scene.particles[0].motion, Motion::Path { looped: true, .. }));
    assert_eq!(scene.particles[1].system.part.max_age, 2.0);
}

#[test]
fn fog_machine_has_its_lights_and_forms() {
    let s = showcase("fog_machine.toml");
    let kinds: Vec<_> = s.lights.iter().map(|l| std::mem::discriminant(&l.kind)).collect();
    assert_eq!(kinds.len(), 3);
    let projector =
        s.lights.iter().find(|l| matches!(l.kind, LightKind::Projector { .. })).expect("projector");
    let LightKind::Projector { texture, up, direction, .. } = &projector.kind else { unreachable!() };
    assert_eq!(s.textures[texture], scenes_dir().join("textures/gobo_stripes.png"));
    assert!(up.dot(*direction).abs() < EPS && (up.length() - 1.0).abs() < EPS);
    // The chimney smoke comes from the LSL form, with PSYS_SRC_TEXTURE "soft" taken up.
    let smoke = s.particles.iter().find(|p| p.name == "chimney smoke").expect("smoke");
    assert_eq!(smoke.texture.as_deref(), Some("soft"));
    assert_eq!(smoke.system.pattern, pattern::ANGLE_CONE);
    assert_eq!(smoke.system.burst_part_count, 3);
    assert!((smoke.system.part.end_scale.x - 3.5).abs() < EPS);
    assert!(smoke.system.part.flags.contains(PartFlags::WIND | PartFlags::INTERP_SCALE));
    // The fog machine prim is turned so its cone axis (+Z) points along +X.
    let fog = s.particles.iter().find(|p| p.name == "fog machine").expect("fog machine");
    assert!(close(fog.rotation * Vec3::Z, Vec3::X));
    let p = &fog.system.part;
    assert!((8.0..=15.0).contains(&p.max_age) && (0.1..=0.2).contains(&p.start_color.w));
}

#[test]
fn campfire_flames_are_additive_and_sparks_emissive() {
    let s = showcase("campfire.toml");
    let flames = s.particles.iter().find(|p| p.name == "flames").expect("flames");
    assert_eq!(
        (flames.system.part.blend_func_source, flames.system.part.blend_func_dest),
        (blend::SOURCE_ALPHA, blend::ONE)
    );
    let sparks = s.particles.iter().find(|p| p.name == "sparks").expect("sparks");
    assert!(sparks.system.part.flags.contains(PartFlags::EMISSIVE) && sparks.system.part.has_glow());
    let fire = s.lights.iter().find(|l| l.name == "fire").expect("fire light");
    assert!(matches!(fire.kind, LightKind::Point) && fire.shadows);
    assert!(s.sun.direction.z < 0.2, "low dusk sun");
}

#[test]
fn waterfall_hex_block_decodes_to_the_commented_system() {
    let s = showcase("waterfall.toml");
    let w = s.particles.iter().find(|p| p.name == "falling water").expect("falling water");
    let sys = &w.system;
    assert_eq!(sys.pattern, pattern::DROP);
    assert_eq!(sys.burst_part_count, 20);
    assert!((sys.burst_rate - 0.02).abs() < 0.005);
    assert!((sys.burst_radius - 1.2).abs() < 0.01);
    assert!((sys.part_accel.z + 9.8).abs() < 0.02 && sys.part_accel.x == 0.0);
    assert!((sys.part.max_age - 1.4).abs() < 0.01);
    assert!(sys.part.flags.contains(PartFlags::FOLLOW_VELOCITY | PartFlags::INTERP_COLOR));
    assert!((sys.part.start_color.w - 0.6).abs() < 0.01 && (sys.part.end_color.w - 0.3).abs() < 0.01);
    assert!((sys.part.start_scale.y - 0.5).abs() < 0.04);
    let ground = s.objects.iter().find(|o| o.name == "ground").expect("ground");
    let Shape::Heightfield { resolution, heights, .. } = &ground.shape else { panic!("heightfield") };
    assert_eq!(heights.len(), (*resolution * *resolution) as usize);
    assert!(heights.iter().all(|h| h.abs() <= 1.2 + EPS) && heights.iter().any(|h| h.abs() > 0.1));
}

#[test]
fn stress_scene_totals_about_a_million_live_particles_at_60_fps() {
    const FPS: f32 = 60.0;
    let s = showcase("stress_1m.toml");
    let frame_s = 1.0 / FPS;
    let live: f32 = s
        .particles
        .iter()
        .map(|p| {
            let rate = p.system.burst_rate.max(0.01);
            let bursts_per_frame = (frame_s / rate).floor().max(1.0);
            p.system.burst_part_count as f32 * bursts_per_frame * FPS * p.system.part.max_age
        })
        .sum();
    assert!((950_000.0..=1_050_000.0).contains(&live), "{live}");
}

#[test]
fn dust_scene_has_dense_fog_and_a_sun_outside_the_slats() {
    let s = showcase("dust_sunbeams.toml");
    assert!(s.height_fog.density >= 0.05);
    assert!(s.sun.direction.x > 0.5 && s.sun.direction.z < 0.6, "low sun on the +X side");
    let slats = s.objects.iter().filter(|o| o.name.starts_with("slat")).count();
    assert!(slats >= 6);
}

#[test]
fn hand_written_values_round_trip() {
    let text = format!(
        "wind = [1.0, -2.0, 0.5]\n{HEAD}fov_y_deg = 45.0\nexposure = 2.0\n\
         [sun]\ndirection = [0.0, 3.0, 4.0]\ncolor = [1.0, 0.5, 0.25]\nilluminance = 2.0\nshadows = false\n\
         [ambient]\nsky = [0.1, 0.2, 0.3]\nground = [0.01, 0.02, 0.03]\n\
         [height_fog]\ndensity = 0.05\nfalloff = 0.2\nbase_height = 3.0\nalbedo = [0.5, 0.6, 0.7]\nanisotropy = -0.3\n\
         [[object]]\nname = \"crate\"\nshape = \"box\"\nsize = [1.0, 2.0, 3.0]\nposition = [4.0, 5.0, 6.0]\nscale = [2.0, 2.0, 1.0]\nalbedo = [0.1, 0.2, 0.3]\nemissive = [5.0, 0.0, 0.0]\n\
         [[object]]\nshape = \"sphere\"\nradius = 0.5\n\
         [[object]]\nshape = \"cylinder\"\nradius = 0.25\nheight = 2.0\n\
         [[object]]\nshape = \"plane\"\nsize = [10.0, 20.0]\n\
         [[object]]\nshape = \"heightfield\"\nsize = [2.0, 2.0]\nresolution = 2\nheights = [0.0, 1.0, 2.0, 3.0]\n\
         [[light]]\nname = \"bulb\"\nkind = \"point\"\nposition = [1.0, 1.0, 2.0]\ncolor = [1.0, 0.8, 0.6]\nintensity = 5.0\nrange = 7.0\nshadows = true\nvolumetric = false\nhistory = false\n\
         [[light]]\nkind = \"spot\"\nposition = [0.0, 0.0, 4.0]\ndirection = [0.0, 0.0, -2.0]\ninner_deg = 10.0\nouter_deg = 15.0\n\
         [[fog_volume]]\nshape = \"box\"\ncenter = [1.0, 2.0, 3.0]\nhalf_extents = [0.5, 0.5, 1.0]\ndensity = 0.4\n\
         [[fog_volume]]\nshape = \"sphere\"\ncenter = [0.0, 0.0, 0.0]\nradius = 2.0\ndensity = 0.0\nalbedo = [0.2, 0.2, 0.2]\n\
         [settings]\nRenderVKParticleFog = true\nRenderFogBricks = 128\nRenderFogScale = 0.5\nRenderFogMode = \"fast\"\nAFlag = false\n"
    );
    let s = parse_ok(&text);
    assert_eq!(s.wind, Vec3::new(1.0, -2.0, 0.5));
    assert_eq!((s.camera.fov_y_deg, s.camera.exposure), (45.0, 2.0));
    assert!(close(s.sun.direction, Vec3::new(0.0, 0.6, 0.8)));
    assert_eq!((s.sun.color, s.sun.illuminance, s.sun.shadows), (Vec3::new(1.0, 0.5, 0.25), 2.0, false));
    assert_eq!((s.ambient.sky, s.ambient.ground), (Vec3::new(0.1, 0.2, 0.3), Vec3::new(0.01, 0.02, 0.03)));
    let f = s.height_fog;
    assert_eq!((f.density, f.falloff, f.base_height, f.anisotropy), (0.05, 0.2, 3.0, -0.3));
    assert_eq!(f.albedo, Vec3::new(0.5, 0.6, 0.7));
    let c = &s.objects[0];
    assert_eq!((c.name.as_str(), &c.shape), ("crate", &Shape::Box { size: Vec3::new(1.0, 2.0, 3.0) }));
    assert_eq!(
        (c.transform.position, c.transform.scale),
        (Vec3::new(4.0, 5.0, 6.0), Vec3::new(2.0, 2.0, 1.0))
    );
    assert_eq!((c.albedo, c.emissive), (Vec3::new(0.1, 0.2, 0.3), Vec3::new(5.0, 0.0, 0.0)));
    assert_eq!(c.transform.rotation, Quat::IDENTITY);
    assert_eq!(s.objects[1].shape, Shape::Sphere { radius: 0.5 });
    assert_eq!(s.objects[1].name, "object 1");
    assert_eq!(s.objects[2].shape, Shape::Cylinder { radius: 0.25, height: 2.0 });
    assert_eq!(s.objects[3].shape, Shape::Plane { size: Vec2::new(10.0, 20.0) });
    let hf =
        Shape::Heightfield { size: Vec2::new(2.0, 2.0), resolution: 2, heights: vec![0.0, 1.0, 2.0, 3.0] };
    assert_eq!(s.objects[4].shape, hf);
    let b = &s.lights[0];
    assert_eq!((b.name.as_str(), &b.kind, b.position), ("bulb", &LightKind::Point, Vec3::new(1.0, 1.0, 2.0)));
    assert_eq!((b.color, b.intensity, b.range), (Vec3::new(1.0, 0.8, 0.6), 5.0, 7.0));
    assert_eq!((b.shadows, b.volumetric, b.history), (true, false, false));
    let spot = LightKind::Spot { direction: Vec3::NEG_Z, inner_deg: 10.0, outer_deg: 15.0 };
    assert_eq!(s.lights[1].kind, spot);
    assert_eq!(s.fog_volumes[0].shape, VolumeShape::Box { half_extents: Vec3::new(0.5, 0.5, 1.0) });
    assert_eq!((s.fog_volumes[0].center, s.fog_volumes[0].density), (Vec3::new(1.0, 2.0, 3.0), 0.4));
    assert_eq!(s.fog_volumes[1].shape, VolumeShape::Sphere { radius: 2.0 });
    assert_eq!(s.fog_volumes[1].albedo, Vec3::splat(0.2));
    let settings: Vec<(&str, &str)> = s.settings.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        settings,
        [
            ("RenderVKParticleFog", "true"),
            ("RenderFogBricks", "128"),
            ("RenderFogScale", "0.5"),
            ("RenderFogMode", "fast"),
            ("AFlag", "false")
        ]
    );
}

#[test]
fn defaults_are_the_documented_ones() {
    let text = format!(
        "{HEAD}[[object]]\nshape = \"sphere\"\nradius = 1.0\n[[light]]\nkind = \"spot\"\nposition = [0.0, 0.0, 1.0]\ndirection = [1.0, 0.0, 0.0]\n\
         [[particles]]\nname = \"d\"\nposition = [0.0, 0.0, 0.0]\n[particles.system]\n"
    );
    let s = parse_ok(&text);
    assert_eq!((s.camera.fov_y_deg, s.camera.exposure), (60.0, 1.0));
    assert!(close(s.sun.direction, Vec3::new(0.5, 0.3, 0.8).normalize()) && s.sun.shadows);
    assert_eq!(
        (s.sun.illuminance, s.height_fog.density, s.height_fog.falloff, s.height_fog.anisotropy),
        (3.0, 0.0, 0.1, 0.2)
    );
    assert_eq!((s.objects[0].albedo, s.objects[0].emissive), (Vec3::splat(0.6), Vec3::ZERO));
    let l = &s.lights[0];
    assert_eq!((l.intensity, l.range, l.shadows, l.volumetric, l.history), (10.0, 10.0, false, true, true));
    assert_eq!(l.kind, LightKind::Spot { direction: Vec3::X, inner_deg: 20.0, outer_deg: 30.0 });
    let p = &s.particles[0];
    assert_eq!(p.system, PartSysData::default());
    assert_eq!(
        (p.texture.as_ref(), &p.motion, p.target, p.hud, p.attachment),
        (None, &Motion::None, None, false, false)
    );
    assert_eq!((s.wind, s.settings.len(), s.camera_path.len()), (Vec3::ZERO, 0, 0));
}

#[test]
fn euler_rotation_applies_x_then_y_then_z() {
    let rot = |r: &str| {
        let s = parse_ok(&format!("{HEAD}[[object]]\nshape = \"sphere\"\nradius = 1.0\nrotation = {r}\n"));
        s.objects[0].transform.rotation
    };
    assert!(close(rot("[90.0, 0.0, 0.0]") * Vec3::Y, Vec3::Z), "X turns +Y to +Z");
    assert!(close(rot("[0.0, 90.0, 0.0]") * Vec3::Z, Vec3::X), "Y turns +Z to +X");
    assert!(close(rot("[0.0, 0.0, 90.0]") * Vec3::X, Vec3::Y), "Z turns +X to +Y");
    // X first: +Y -> +Z (by X), then Z leaves +Z alone. (Z first would give -X.)
    assert!(close(rot("[90.0, 0.0, 90.0]") * Vec3::Y, Vec3::Z));
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let q = rot("[0.0, 0.0, 2.0, 2.0]");
    assert!((q.z - half).abs() < EPS && (q.w - half).abs() < EPS, "quaternion normalised: {q}");
}

#[test]
fn lsl_form_imports_rules_and_reports_run_time_values() {
    let text = format!(
        "{HEAD}[textures]\nsoft = \"textures/soft.png\"\n[[particles]]\nname = \"scripted\"\nposition = [1.0, 2.0, 3.0]\n\
         lsl = '''[\n  PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_EXPLODE,\n  PSYS_SRC_BURST_PART_COUNT, 5 * 2,\n  PSYS_SRC_BURST_RATE, llFrand(1.0),\n  PSYS_PART_START_COLOR, <1.0, 0.5, 0.0>,\n  PSYS_PART_START_SCALE, <9.0, 1.0, 0.0>,\n  PSYS_SRC_TEXTURE, \"soft\"\n]'''\n"
    );
    let s = parse_ok(&text);
    let p = &s.particles[0];
    assert_eq!(p.system.pattern, pattern::EXPLODE);
    assert_eq!(p.system.burst_part_count, 10);
    assert_eq!(p.system.burst_rate, PartSysData::default().burst_rate, "run-time value keeps its default");
    assert!(close(p.system.part.start_color.truncate(), Vec3::new(1.0, 0.5, 0.0)));
    assert_eq!(p.system.part.start_scale.x, 4.0, "LSL clamps the scale to 4 m");
    assert_eq!(p.texture.as_deref(), Some("soft"));
    assert_eq!(p.position, Vec3::new(1.0, 2.0, 3.0));
    assert!(
        s.warnings.iter().any(|w| w.contains("scripted") && w.contains("PSYS_SRC_BURST_RATE")),
        "{:?}",
        s.warnings
    );
    assert!(s.warnings.iter().any(|w| w.contains("START_SCALE")), "clamp reported: {:?}", s.warnings);
}

#[test]
fn lsl_texture_outside_the_table_is_a_warning() {
    let text = format!(
        "{HEAD}[[particles]]\nname = \"inv\"\nposition = [0.0, 0.0, 0.0]\nlsl = '[PSYS_SRC_TEXTURE, \"Smoke Puff\"]'\n"
    );
    let s = parse_ok(&text);
    assert_eq!(s.particles[0].texture, None);
    assert!(s.warnings.iter().any(|w| w.contains("Smoke Puff")), "{:?}", s.warnings);
}

#[test]
fn hex_form_gives_the_encoded_system_back() {
    let mut sys = PartSysData {
        pattern: pattern::ANGLE_CONE,
        burst_part_count: 7,
        burst_rate: 0.5,
        ..Default::default()
    };
    sys.part.max_age = 3.0;
    sys.part.start_glow = 0.5;
    let hex = to_hex(&encode(&sys));
    let text = format!("{HEAD}[[particles]]\nname = \"h\"\nposition = [0.0, 0.0, 0.0]\nhex = \"{hex}\"\n");
    let got = parse_ok(&text).particles[0].system;
    assert_eq!(
        (got.pattern, got.burst_part_count, got.burst_rate, got.part.max_age),
        (pattern::ANGLE_CONE, 7, 0.5, 3.0)
    );
    assert!((got.part.start_glow - 0.5).abs() < 0.01);
}

#[test]
fn particle_source_motion_and_extras() {
    let text = format!(
        "{HEAD}[[particles]]\nname = \"a\"\nposition = [0.0, 0.0, 0.0]\nmotion = {{ kind = \"linear\", velocity = [1.0, 0.0, 0.0] }}\nangular_velocity = [0.0, 0.0, 1.5]\nattachment = true\nhud = true\ntarget = [5.0, 5.0, 5.0]\n[particles.system]\npart_flags = [\"target_pos\", \"bounce\"]\n\
         [[particles]]\nname = \"b\"\nposition = [0.0, 0.0, 0.0]\nmotion = {{ kind = \"path\", keys = [[0.0, 0.0, 0.0, 0.0], [2.0, 4.0, 0.0, 0.0]] }}\n[particles.system]\nburst_rate = 1.0\n"
    );
    let s = parse_ok(&text);
    let a = &s.particles[0];
    assert_eq!(a.motion, Motion::Linear { velocity: Vec3::X });
    assert_eq!(
        (a.angular_velocity, a.attachment, a.hud, a.target),
        (Vec3::new(0.0, 0.0, 1.5), true, true, Some(Vec3::splat(5.0)))
    );
    assert_eq!(a.system.part.flags, PartFlags(PartFlags::TARGET_POS | PartFlags::BOUNCE));
    let keys = vec![(0.0, Vec3::ZERO), (2.0, Vec3::new(4.0, 0.0, 0.0))];
    assert_eq!(s.particles[1].motion, Motion::Path { keys, looped: false });
}

#[test]
fn texture_paths_resolve_relative_to_the_scene_file() {
    let dir = std::env::temp_dir().join(format!("scene_textures_{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).expect("temp dir");
    std::fs::write(dir.join("sub/puff.png"), b"not really a png").expect("write");
    let text = format!("{HEAD}[textures]\npuff = \"sub/puff.png\"\n");
    let scene = parse(&text, &dir.join("my_scene.toml"));
    let elsewhere = parse(&text, &origin());
    std::fs::remove_dir_all(&dir).expect("clean up");
    let scene = scene.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.textures["puff"], dir.join("sub/puff.png"));
    assert!(elsewhere.is_err(), "the same relative path from scenes/ does not exist");
}

#[test]
fn procedural_heightfield_is_deterministic_and_bounded() {
    let hf = |seed: u32| {
        let s = parse_ok(&format!(
            "{HEAD}[[object]]\nshape = \"heightfield\"\nsize = [50.0, 50.0]\namplitude = 2.0\nfrequency = 0.2\nseed = {seed}\n"
        ));
        match &s.objects[0].shape {
            Shape::Heightfield { resolution, heights, .. } => (*resolution, heights.clone()),
            other => panic!("{other:?}"),
        }
    };
    let (res, a) = hf(1);
    assert_eq!(res, 32, "documented default resolution");
    assert_eq!(a, hf(1).1);
    assert_ne!(a, hf(2).1);
    assert!(a.iter().all(|h| h.abs() <= 2.0));
    let spread = a.iter().cloned().fold(f32::MIN, f32::max) - a.iter().cloned().fold(f32::MAX, f32::min);
    assert!(spread > 1.0, "10 noise cells across must vary: {spread}");
}

#[test]
fn camera_at_interpolates_linearly_and_clamps() {
    let text = format!(
        "{HEAD}fov_y_deg = 40.0\n[[camera_path]]\ntime_s = 1.0\nposition = [0.0, 0.0, 0.0]\ntarget = [0.0, 10.0, 0.0]\n\
         [[camera_path]]\ntime_s = 3.0\nposition = [10.0, 0.0, 0.0]\ntarget = [0.0, 10.0, 4.0]\n\
         [[camera_path]]\ntime_s = 4.0\nposition = [10.0, 10.0, 0.0]\ntarget = [0.0, 0.0, 0.0]\n"
    );
    let s = parse_ok(&text);
    assert!(close(s.camera_at(2.0).position, Vec3::new(5.0, 0.0, 0.0)));
    assert!(close(s.camera_at(2.5).target, Vec3::new(0.0, 10.0, 3.0)));
    assert!(close(s.camera_at(3.5).position, Vec3::new(10.0, 5.0, 0.0)));
    assert!(close(s.camera_at(3.0).position, Vec3::new(10.0, 0.0, 0.0)));
    assert!(close(s.camera_at(-5.0).position, Vec3::ZERO), "clamped before the first key");
    assert!(close(s.camera_at(100.0).position, Vec3::new(10.0, 10.0, 0.0)), "clamped after the last");
    assert!(close(s.camera_at(f32::NAN).position, Vec3::ZERO), "NaN time gives the first key");
    assert_eq!(s.camera_at(2.0).fov_y_deg, 40.0);
    let still = parse_ok(HEAD);
    assert_eq!(still.camera_at(7.0), still.camera);
}

#[test]
fn source_positions_follow_their_motion() {
    let text = format!(
        "{HEAD}[[particles]]\nname = \"still\"\nposition = [1.0, 2.0, 3.0]\n[particles.system]\n\
         [[particles]]\nname = \"drift\"\nposition = [1.0, 0.0, 0.0]\nmotion = {{ kind = \"linear\", velocity = [0.0, 2.0, 0.0] }}\n[particles.system]\n\
         [[particles]]\nname = \"once\"\nposition = [0.0, 0.0, 1.0]\nmotion = {{ kind = \"path\", keys = [[1.0, 0.0, 0.0, 0.0], [3.0, 4.0, 0.0, 0.0], [4.0, 4.0, 2.0, 0.0]] }}\n[particles.system]\n\
         [[particles]]\nname = \"loop\"\nposition = [0.0, 0.0, 0.0]\nmotion = {{ kind = \"path\", keys = [[0.0, 0.0, 0.0, 0.0], [2.0, 2.0, 0.0, 0.0]], looped = true }}\n[particles.system]\n"
    );
    let s = parse_ok(&text);
    let [still, drift, once, looped] = [0, 1, 2, 3].map(|i| &s.particles[i]);
    assert_eq!(still.position_at(5.0), Vec3::new(1.0, 2.0, 3.0));
    assert!(close(drift.position_at(1.5), Vec3::new(1.0, 3.0, 0.0)));
    assert!(close(once.position_at(0.0), Vec3::new(0.0, 0.0, 1.0)), "before the first key");
    assert!(close(once.position_at(2.0), Vec3::new(2.0, 0.0, 1.0)));
    assert!(close(once.position_at(3.5), Vec3::new(4.0, 1.0, 1.0)));
    assert!(close(once.position_at(9.0), Vec3::new(4.0, 2.0, 1.0)), "after the last key");
    assert!(close(looped.position_at(0.5), Vec3::new(0.5, 0.0, 0.0)));
    assert!(close(looped.position_at(2.5), Vec3::new(0.5, 0.0, 0.0)), "period 2 s");
    assert!(close(looped.position_at(-1.5), Vec3::new(0.5, 0.0, 0.0)), "wraps before 0 too");
    assert_eq!(looped.position_at(f32::NAN), Vec3::ZERO);
}

#[test]
fn transform_scales_then_rotates_then_translates() {
    let s = parse_ok(&format!(
        "{HEAD}[[object]]\nshape = \"sphere\"\nradius = 1.0\nposition = [0.0, 0.0, 5.0]\nrotation = [0.0, 0.0, 90.0]\nscale = [2.0, 3.0, 1.0]\n"
    ));
    let m = s.objects[0].transform.world_from_object();
    // +X scaled to 2, turned to +Y, lifted by 5.
    assert!(close(m.transform_point3(Vec3::X), Vec3::new(0.0, 2.0, 5.0)));
    assert!(close(m.transform_point3(Vec3::Y), Vec3::new(-3.0, 0.0, 5.0)));
}
