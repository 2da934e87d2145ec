//! `particle-fog classify (--lsl FILE | --hex HEX | --scene FILE) [--texture-dir DIR]
//! [--unknown-texture unknown|soft|shaped] [--json]`: why each particle system does or does not
//! become fog.
//!
//! The master toggle `RenderVKParticleFog` is switched on after the user's settings file is read
//! (it is off by default, and a creator wants the content's verdict); `--set
//! RenderVKParticleFog=false` shows the toggle's own effect.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use fog::report::{self, UnknownTexturePolicy};
use fog::TextureVerdict;
use settings::Settings;

/// Where the systems come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// An LSL script: one entry per non-empty particle call.
    Lsl(PathBuf),
    /// One PSYS block as hex.
    Hex(String),
    /// A scene file: one entry per particle source, textures from its `[textures]`.
    Scene(PathBuf),
}

/// Image file endings the texture directory is searched for.
const TEXTURE_EXTENSIONS: &[&str] = &["png", "tga", "jpg", "jpeg"];

/// Classifies every system of `source`; returns the JSON report or the text table.
pub fn run(
    source: &Source,
    texture_dir: Option<&Path>,
    policy: UnknownTexturePolicy,
    settings: &Settings,
    json: bool,
) -> anyhow::Result<String> {
    let mut textures: HashMap<String, PathBuf> = match texture_dir {
        Some(dir) => images_by_stem(dir)?,
        None => HashMap::new(),
    };
    let inputs = match source {
        Source::Lsl(path) => {
            let text = crate::input::read_text(path, crate::input::MAX_SCRIPT_BYTES, "an LSL script")?;
            report::inputs_from_lsl(&path.display().to_string(), &text)?
        }
        Source::Hex(hex) => {
            let input = report::input_from_hex("hex", hex)?;
            particles::codec::check::refuse(&input.system).context("PSYS block refused")?;
            vec![input]
        }
        Source::Scene(path) => {
            let scene = crate::scene::load(path)?;
            textures.extend(scene.textures.clone());
            scene.particles.iter().map(crate::particle_fog::systems::report_input).collect()
        }
    };
    let verdicts = texture_verdicts(&textures);
    let rows = report::assess_all(&inputs, |name| verdicts.get(name).copied(), policy, settings);
    Ok(if json {
        serde_json::to_string_pretty(&report::report_json(&rows))?
    } else {
        report::report_table(&rows)
    })
}

/// Settings for classification: the file's (or the defaults), then the master toggle switched on,
/// then the `--set` overrides.
pub fn settings_for(file: Option<&PathBuf>, overrides: &[String]) -> anyhow::Result<Settings> {
    let mut s = match file {
        Some(path) => settings::SettingsFile::open(path)?.settings,
        None => Settings::default(),
    };
    s.particle_fog = true;
    settings::cli::apply_overrides(&mut s, overrides)?;
    Ok(s)
}

fn images_by_stem(dir: &Path) -> anyhow::Result<HashMap<String, PathBuf>> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("reading texture directory {}", dir.display()))?;
    Ok(entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| TEXTURE_EXTENSIONS.contains(&e.to_lowercase().as_str()))
        })
        .filter_map(|p| Some((p.file_stem()?.to_string_lossy().into_owned(), p)))
        .collect())
}

/// The verdict of every named texture that can be read (see
/// [`crate::particle_fog::systems::texture_stats`]).
fn texture_verdicts(textures: &HashMap<String, PathBuf>) -> HashMap<String, TextureVerdict> {
    crate::particle_fog::systems::texture_stats(textures)
        .iter()
        .map(|(name, stats)| (name.clone(), TextureVerdict::from(stats)))
        .collect()
}
