//! The showcase scenes do what their comments promise once classified (`fog::classify`, default
//! settings plus each scene's `[settings]` overrides): the big, faint, slow systems convert to fog
//! and the small, fast, additive or glowing ones stay billboards. Also checks that every
//! `[settings]` value text is accepted by the settings crate.

use std::path::{Path, PathBuf};

use fog::{classify, SystemContext, TextureVerdict};
use render::scene::{load, Scene};
use settings::Settings;

fn scene(name: &str) -> (Scene, Settings) {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(name);
    let scene = load(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut settings = Settings::default();
    for (key, value) in &scene.settings {
        settings::cli::set_text(&mut settings, key, value).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    (scene, settings)
}

/// Whether source `source` of `scene` converts at the settings' threshold.
fn converts(scene: &Scene, settings: &Settings, source: &str) -> bool {
    let p = scene.particles.iter().find(|p| p.name == source).unwrap_or_else(|| panic!("no {source}"));
    let texture = match &p.texture {
        Some(name) => {
            let stats = assetstats::stats_for_file(&scene.textures[name]).unwrap_or_else(|e| panic!("{e}"));
            TextureVerdict::from(&stats)
        }
        None => TextureVerdict::viewer_default(),
    };
    let ctx =
        SystemContext { attachment: p.attachment, hud: p.hud, texture: Some(texture), live_count: None };
    let assessment = classify(&p.system, &ctx, settings);
    assessment.decision_score() > settings.particle_fog_threshold
}

fn assert_verdicts(file: &str, fog: &[&str], billboards: &[&str]) {
    let (scene, settings) = scene(file);
    assert!(settings.particle_fog, "{file} switches particle fog on");
    for name in fog {
        assert!(converts(&scene, &settings, name), "{file}: {name} should convert to fog");
    }
    for name in billboards {
        assert!(!converts(&scene, &settings, name), "{file}: {name} should stay billboards");
    }
    assert_eq!(fog.len() + billboards.len(), scene.particles.len(), "{file}: every source has a verdict");
}

#[test]
fn fog_machine_steam_and_smoke_convert_while_the_glow_trail_stays_billboards() {
    assert_verdicts("fog_machine.toml", &["fog machine", "steam vent", "chimney smoke"], &["glow trail"]);
}

#[test]
fn campfire_smoke_converts_while_flames_and_sparks_stay_billboards() {
    assert_verdicts("campfire.toml", &["smoke"], &["flames", "sparks"]);
}

#[test]
fn waterfall_mist_converts_while_falling_water_stays_billboards() {
    assert_verdicts("waterfall.toml", &["mist"], &["falling water"]);
}

#[test]
fn dusty_air_converts_while_dust_motes_stay_billboards() {
    assert_verdicts("dust_sunbeams.toml", &["dusty air"], &["dust motes"]);
}
