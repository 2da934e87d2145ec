//! `particle-fog classify (--lsl FILE | --hex HEX | --scene FILE) [--texture-dir DIR]
//! [--unknown-texture unknown|soft|shaped] [--override ID=fog|billboards|auto]... [--save-overrides]
//! [--json]`: why each particle system does or does not become fog.
//!
//! Per-object overrides, later over earlier: the scene's `override` keys, the overrides file
//! beside `--settings` (`particle_fog_overrides.xml`; a corrupt one is an error, left untouched),
//! then each `--override` (ID: a system's id `OBJECT[#LINK]` as the report lists it, or its
//! source name). `--save-overrides` writes the `--override`s into that file (foreign entries
//! kept, atomically).
//!
//! The master toggle `RenderVKParticleFog` is switched on after the user's settings file is read
//! (it is off by default, and a creator wants the content's verdict); `--set
//! RenderVKParticleFog=false` shows the toggle's own effect.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use fog::overrides_file::OverridesFile;
use fog::report::{self, UnknownTexturePolicy};
use fog::TextureVerdict;
use settings::{SaveMode, Settings};

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

/// The per-object overrides of a classify run.
#[derive(Clone, Debug, Default)]
pub struct Overrides<'a> {
    /// The overrides file (beside `--settings`), when there is one.
    pub file: Option<PathBuf>,
    /// `ID=MODE` as given on the command line.
    pub given: &'a [String],
    /// Write `given` into `file`.
    pub save: bool,
}

/// Classifies every system of `source` under `overrides`; returns the JSON report or the text
/// table.
pub fn run(
    source: &Source,
    texture_dir: Option<&Path>,
    policy: UnknownTexturePolicy,
    settings: &Settings,
    overrides: &Overrides<'_>,
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
            scene.particles.iter().map(crate::particle_fog::scene_inputs::report_input).collect()
        }
    };
    let mut inputs = inputs;
    let mut file = match &overrides.file {
        Some(path) => Some(OverridesFile::open(path)?),
        None if overrides.save => {
            anyhow::bail!("--save-overrides needs --settings FILE (the overrides file is kept beside it)")
        }
        None => None,
    };
    report::apply_overrides(&mut inputs, file.as_ref(), overrides.given)?;
    if let (Some(file), true) = (file.as_mut(), overrides.save) {
        save_given(file, &inputs, overrides.given)?;
    }
    let verdicts = texture_verdicts(&textures);
    let rows = report::assess_all(&inputs, |name| verdicts.get(name).copied(), policy, settings);
    Ok(if json {
        serde_json::to_string_pretty(&report::report_json(&rows))?
    } else {
        report::report_table(&rows)
    })
}

/// Writes each `ID=MODE` of `given` into `file` under the keys of the inputs it names.
fn save_given(
    file: &mut OverridesFile,
    inputs: &[report::ReportInput],
    given: &[String],
) -> anyhow::Result<()> {
    for text in given {
        let (id, mode) = report::parse_assignment(text)?;
        let by_key = id.parse::<fog::SystemKey>().ok();
        for input in inputs.iter().filter(|i| by_key.map_or(i.source == id, |k| k == i.key)) {
            file.set(input.key, mode);
        }
    }
    file.save(SaveMode::Normal)?;
    Ok(())
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
/// [`crate::particle_fog::scene_inputs::texture_stats`]).
fn texture_verdicts(textures: &HashMap<String, PathBuf>) -> HashMap<String, TextureVerdict> {
    crate::particle_fog::scene_inputs::texture_stats(textures)
        .iter()
        .map(|(name, stats)| (name.clone(), TextureVerdict::from(stats)))
        .collect()
}
