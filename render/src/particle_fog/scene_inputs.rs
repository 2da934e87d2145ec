//! What a scene gives the particle-fog classifier: each particle source's classification input,
//! the per-object overrides stored beside the settings file, and its textures' statistics.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use assetstats::TextureStats;
use fog::overrides_file::OverridesFile;
use fog::report::ReportInput;
use fog::Override;

use crate::scene::{ParticleSource, Scene};

/// The classification input of a scene's particle source (as `classify --scene` builds it).
pub fn report_input(p: &ParticleSource) -> ReportInput {
    let texture = p.texture.clone().unwrap_or_else(|| {
        if p.system.part_image_id.is_nil() {
            String::new()
        } else {
            p.system.part_image_id.to_string()
        }
    });
    ReportInput {
        source: p.name.clone(),
        system: p.system,
        texture,
        attachment: p.attachment,
        hud: p.hud,
        key: p.key,
        override_in_force: p.fog_override,
    }
}

/// `scene` with the overrides `file` holds for its systems (fog or billboards) in place of the
/// scene's own `override`: the user's word, kept beside settings.xml, over the scene author's.
pub fn with_stored_overrides(mut scene: Scene, file: &OverridesFile) -> Scene {
    for p in &mut scene.particles {
        let stored = file.get(&p.key);
        if stored != Override::Auto {
            p.fog_override = stored;
        }
    }
    scene
}

/// The overrides file beside `settings_file` ([`fog::overrides_file::beside`]), read for a run
/// that must start anyway: none without a settings file; a missing file is empty; an unreadable
/// one is logged and left untouched, and no override is taken from it.
pub fn stored_overrides_for_run(settings_file: Option<&std::path::Path>) -> Option<OverridesFile> {
    let path = fog::overrides_file::beside(settings_file?);
    let (file, err) = OverridesFile::open_or_defaults(path);
    if let Some(e) = err {
        tracing::warn!("{e}; no per-object overrides are taken from it");
    }
    Some(file)
}

/// Statistics of every named texture (name, file), in parallel; one that cannot be read is logged
/// and left out (its systems stay billboards, or follow `classify`'s `--unknown-texture`).
pub fn texture_stats<'a>(
    textures: impl IntoIterator<Item = (&'a String, &'a PathBuf)>,
) -> HashMap<String, TextureStats> {
    let (names, jobs): (Vec<&String>, Vec<(assetstats::TextureKey, PathBuf)>) =
        textures.into_iter().map(|(n, p)| (n, (assetstats::TextureKey::path(p), p.clone()))).unzip();
    let results = assetstats::StatsCache::in_memory().compute_batch(&jobs);
    names
        .into_iter()
        .zip(results)
        .filter_map(|(name, r)| match r {
            Ok(stats) => Some((name.clone(), stats)),
            Err(e) => {
                tracing::warn!("texture {name}: {e}");
                None
            }
        })
        .collect()
}

/// [`texture_stats`] of a scene's `[textures]`.
pub fn scene_texture_stats(textures: &BTreeMap<String, PathBuf>) -> HashMap<String, TextureStats> {
    texture_stats(textures)
}
