//! The `particle-fog` command-line tool: render, benchmark, classify and inspect.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use render::cli;
use render::cli::output::{error_text, say, write_all_or_closed, Outcome};
use render::vk::device::DeviceSelector;

/// Particle fog for a Second Life-style viewer's Vulkan renderer.
#[derive(Parser, Debug)]
#[command(name = "particle-fog", version, about)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

/// The device options of the subcommands that use Vulkan (`render`, `devices`).
#[derive(clap::Args, Debug)]
struct GpuArgs {
    /// Turn on the Khronos validation layer (validation errors are logged and fail the command).
    #[arg(long)]
    validation: bool,
    /// Which Vulkan device: an index from `particle-fog devices`, part of its name (any case), or
    /// `auto` (a discrete GPU first) [default: auto].
    #[arg(long, value_name = "INDEX|NAME|auto", value_parser = cli::devices::parse_selector)]
    device: Option<DeviceSelector>,
}

/// Settings for subcommands that render or classify: a settings.xml and overrides.
#[derive(clap::Args, Debug, Default)]
pub struct SettingsArgs {
    /// A viewer settings.xml to read settings from (missing file: defaults; at most 16 MiB). The
    /// per-object overrides are read from particle_fog_overrides.xml beside it.
    #[arg(long = "settings", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Override one setting, e.g. `--set RenderVKParticleFog=true`; repeatable, later wins (each
    /// setting's type and range: `particle-fog settings list`).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub overrides: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum SettingsAction {
    /// Every setting with its value, type, range, default and comment.
    List,
    /// One setting's value.
    Get {
        /// The setting, e.g. RenderVKParticleFogThreshold.
        name: String,
    },
    /// Change one setting and save the file (atomically; foreign keys are kept).
    Set {
        /// The setting.
        name: String,
        /// The new value (true/false/1/0 for booleans).
        value: String,
    },
}

/// `particle-fog view` options.
#[cfg(feature = "viewer")]
#[derive(clap::Args, Debug)]
struct ViewArgs {
    /// The scene file (TOML, a regular file of at most 4 MiB; see scenes/README.md).
    scene: PathBuf,
    /// The window's size when it opens (or the images' with --offscreen), WIDTHxHEIGHT, each
    /// 1..=16384.
    #[arg(long, default_value = "1280x720", value_parser = cli::render::parse_size)]
    size: (u32, u32),
    /// Render into images instead of a window (no display needed): the same frames, panel and
    /// scripted input; --frames or the script's last frame ends the run.
    #[arg(long)]
    offscreen: bool,
    /// Timed input events, one per line: `FRAME EVENT ARGS` (set NAME VALUE, toggle NAME, debug
    /// VIEW, override SYSTEM auto|fog|billboards, select SYSTEM, key K, key_down K, key_up K,
    /// mouse X Y, button_down|button_up left|right, click X Y, scroll STEPS, resize W H,
    /// minimise, restore, panel on|off, pause, play, time S, follow on|off, reset_view, save,
    /// close); a malformed line is refused naming it.
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// Save frame FRAME as a PNG at PATH (the image presented, panel included; with the debug
    /// view 4 or 5 its transmittance or coverage beside it); repeatable.
    #[arg(long = "screenshot", value_name = "FRAME:PATH", value_parser = cli::view::parse_screenshot)]
    screenshots: Vec<(u32, PathBuf)>,
    /// Frames to run, then close (offscreen default: the script's last frame + 1).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    frames: Option<u32>,
    /// Present as fast as the GPU renders (MAILBOX, else IMMEDIATE, where offered) instead of
    /// waiting for the display's refresh (FIFO).
    #[arg(long)]
    unthrottled: bool,
    /// Frames of particle simulation before the first frame (the last 20 also converge the fog).
    #[arg(long, default_value_t = cli::render::DEFAULT_WARMUP, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    warmup: u32,
    /// Simulated frames per second (each frame steps the scene 1/FPS seconds): above 0, at most 1000.
    #[arg(long, default_value_t = 60.0, value_parser = parse_fps)]
    fps: f32,
    /// Write the run's report here as JSON: each frame's system weights, wall clock and CPU work
    /// (ms), the systems' verdicts and overrides, per-pass GPU times.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    #[command(flatten)]
    settings: SettingsArgs,
    #[command(flatten)]
    gpu: GpuArgs,
}

/// `particle-fog render` options.
#[derive(clap::Args, Debug)]
struct RenderArgs {
    /// The scene file (TOML, a regular file of at most 4 MiB; see scenes/README.md).
    scene: PathBuf,
    /// Output size in pixels, WIDTHxHEIGHT, each 1..=16384.
    #[arg(long, default_value = "1280x720", value_parser = cli::render::parse_size)]
    size: (u32, u32),
    /// Frames to render, written and timed: 1..=100000.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    frames: u32,
    /// Frames of particle simulation before the rendered frames (nothing drawn, written or
    /// timed), to start from the particle systems' steady state: 0..=100000; the last 20 of them
    /// (all, when fewer) also run the fog's temporal passes, so from 20 on the fog is converged,
    /// and the last 2 the particle fog's brick passes, so its brick pool is sized for the first
    /// frame; 0: no warm-up at all, the first frame shows the fog's first (unconverged) frame
    #[arg(long, default_value_t = cli::render::DEFAULT_WARMUP, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    warmup: u32,
    /// Simulated frames per second (each frame steps 1/FPS seconds): above 0, at most 1000.
    #[arg(long, default_value_t = 30.0, value_parser = parse_fps)]
    fps: f32,
    /// Output folder (created if missing) for the frames (SCENE.png for one frame or --last, else
    /// SCENE_NNNN.png), each frame's debug view (FRAME_transmittance.png or FRAME_coverage.png,
    /// RenderVKParticleFogDebug 4/5), SCENE_timings.json and the showcase files below. Checked
    /// before rendering; every file is written new and renamed into place (a symbolic link of
    /// that name is replaced, never written through). Files of this set from an earlier run that
    /// this run does not write are removed, so the folder holds one run of the scene.
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Write only the last frame.
    #[arg(long)]
    last: bool,
    /// Draw only the particle systems (no opaque geometry or fog; black background).
    #[arg(long)]
    particles_only: bool,
    /// After the last frame, write the particle fog's density (`<scene>_density.vol`, Mitsuba 3
    /// grid volume, extinction in 1/m; only while there are bricks), its carriers
    /// (`<scene>_carriers.json`) and the camera (`<scene>_camera.json`) into this folder (created
    /// if missing, checked before rendering). The files describe one frame: a volume left by an
    /// earlier export is removed when this one has none; each file is renamed into place as with
    /// --out.
    #[arg(long, value_name = "DIR")]
    export_density: Option<PathBuf>,
    /// After the last frame, write it as a Mitsuba 3 scene into this folder: `<scene>.xml`
    /// (camera, sun, local lights and projectors, objects as meshes, the particle fog as a
    /// heterogeneous medium), `<scene>_hdr.exr` (this renderer's linear radiance before exposure
    /// and tone mapping) and `<scene>_fog.exr` (what the frame adds in front of the opaque
    /// surfaces, and the particle fog's transmittance as alpha)
    #[arg(long, value_name = "DIR")]
    export_mitsuba: Option<PathBuf>,
    /// Also render the first frame with RenderVKParticleFog the other way and write both side by
    /// side, labelled (`<scene>_compare.png`), and the one with it off alone
    /// (`<scene>_billboards.png`).
    #[arg(long)]
    compare: bool,
    /// Also write the N frames (0..=600) after the job's as an animated PNG at --fps
    /// (`<scene>.apng`, at --apng-size), each frame written as it is rendered (memory for two
    /// frames, the one rendered and the one shown, whatever N): after the first, only where a
    /// pixel differs from what is shown by more than 2 of 255.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=600), default_value_t = 0)]
    apng: u32,
    /// Size of the animation's frames, WIDTHxHEIGHT, each 1..=16384 [default: half of --size]
    #[arg(long, value_name = "WxH", value_parser = cli::render::parse_size)]
    apng_size: Option<(u32, u32)>,
    /// Also write a labelled contact sheet of RenderVKParticleFogDensity 0.5/1/2 (rows) x
    /// RenderVKParticleFogBillow 0/0.5/1 (columns), tiles half the size, the frames after the
    /// animation's (`<scene>_sliders.png`).
    #[arg(long)]
    contact_sheet: bool,
    /// Frames the renderer keeps in flight: 0..=3 (0: each frame waits for the GPU before the
    /// next is prepared; 2: the CPU prepares the next frame while the GPU runs this one).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=3))]
    frames_in_flight: u32,
    #[command(flatten)]
    settings: SettingsArgs,
    #[command(flatten)]
    gpu: GpuArgs,
}

/// `particle-fog bench` options.
#[derive(clap::Args, Debug)]
struct BenchArgs {
    /// Scene files (TOML); the sweeps use the first [default: the four showcase scenes in scenes/].
    scenes: Vec<PathBuf>,
    /// An output size, WIDTHxHEIGHT (each 1..=16384); repeatable; the sweeps other than
    /// `resolution` use the first [default: 1920x1080 and 3840x2160].
    #[arg(long = "size", value_name = "WxH", value_parser = cli::render::parse_size)]
    sizes: Vec<(u32, u32)>,
    /// Timed frames per run: 1..=100000.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    frames: u32,
    /// Frames of particle simulation before the timed ones (as `render --warmup`), to measure
    /// the particle systems' steady state: 0..=100000 (the default is 12 s at 30 frames a second,
    /// the showcase's longest particle life).
    #[arg(long, default_value_t = cli::bench::DEFAULT_WARMUP, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    warmup: u32,
    /// Simulated frames per second: above 0, at most 1000.
    #[arg(long, default_value_t = 30.0, value_parser = parse_fps)]
    fps: f32,
    /// Sweeps after the main table, reported as ratios to their first point: carriers (x1/x2/x4/x8
    /// copies of the first scene's first source), voxel (0.05/0.075/0.1 m), systems
    /// (1/10/100/1000 small fog systems), resolution (every --size); comma-separated or repeated.
    #[arg(long = "sweep", value_name = "SWEEP", value_delimiter = ',')]
    sweeps: Vec<cli::bench_sweep::Sweep>,
    /// Write the report as JSON (device, driver, commit, settings, every run and sweep).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Folder for each run's last frame and timings and the sweeps' generated scenes.
    #[arg(long, default_value = "out/bench")]
    out: PathBuf,
    /// Frames the renderer keeps in flight: 0..=3 (0: each frame waits for the GPU before the
    /// next is prepared; 2: the CPU prepares the next frame while the GPU runs this one).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=3))]
    frames_in_flight: u32,
    #[command(flatten)]
    settings: SettingsArgs,
    #[command(flatten)]
    gpu: GpuArgs,
}

/// `particle-fog classify` options.
#[derive(clap::Args, Debug)]
struct ClassifyArgs {
    /// An LSL script (a regular file of at most 1 MiB).
    #[arg(long, group = "input")]
    lsl: Option<PathBuf>,
    /// A PSYS block as hex (whitespace allowed): 0 bytes or more than 98 is no system, as the
    /// viewer reads it; 1..=85 bytes are rejected.
    #[arg(long, group = "input")]
    hex: Option<String>,
    /// A scene file (a regular file of at most 4 MiB).
    #[arg(long, group = "input")]
    scene: Option<PathBuf>,
    /// Images named like the systems' textures (by file stem: name or UUID); PNG, TGA or JPEG of
    /// at most 80 MiB and 4096 x 4096 pixels each.
    #[arg(long, value_name = "DIR")]
    texture_dir: Option<PathBuf>,
    /// How a texture without statistics is treated (unknown: stays a billboard).
    #[arg(long, default_value = "unknown", value_parser = ["unknown", "soft", "shaped"])]
    unknown_texture: String,
    /// A per-object override, ID=fog|billboards|auto: ID is a system's id (OBJECT or OBJECT#LINK,
    /// as the report lists it) or its source name; repeatable, later wins. Over the scene's
    /// `override` and the overrides file beside --settings (particle_fog_overrides.xml).
    #[arg(long = "override", value_name = "ID=MODE")]
    fog_overrides: Vec<String>,
    /// Save the --override values into the overrides file beside --settings
    /// (particle_fog_overrides.xml; foreign entries kept; a corrupt file is refused, untouched).
    #[arg(long, requires = "file")]
    save_overrides: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    settings: SettingsArgs,
}

#[derive(Subcommand, Debug)]
enum PsysAction {
    /// Decode a PSYS block (hex) exactly as the viewer does; JSON out; exit 3 when rejected.
    Decode {
        /// The block as hex digits (whitespace allowed). As the viewer's decoder: 0 bytes or more
        /// than 98 is no system ("none", exit 0); exactly 86 is the legacy layout; 87..=98 the
        /// extended one. 1..=85 bytes are rejected (exit 3), where the viewer's result is
        /// undefined or it hangs.
        hex: String,
    },
    /// Encode the JSON shape `psys decode` prints back into the block a simulator would send; a
    /// warning on stderr for each value changed to fit its field, an error for a CRC of 0 or a
    /// blend factor no simulator sends.
    Encode {
        /// A JSON file, or `-` for standard input (at most 64 KiB either way).
        source: String,
    },
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Legacy particle-system blocks (the PSYS block of object updates).
    Psys {
        #[command(subcommand)]
        action: PsysAction,
    },
    /// Why each particle system does or does not become fog: verdict, score, exclusions, factors.
    Classify(ClassifyArgs),
    /// Texture statistics (mean alpha, edge energy, colour, softness, soft/shaped verdict); a
    /// file that cannot be measured is reported on stderr and makes the exit code 1.
    Texstats {
        /// PNG, TGA or JPEG files: regular files of at most 80 MiB and 4096 x 4096 pixels.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print a JSON array instead of a table (a failed file appears as {"file", "error"}).
        #[arg(long)]
        json: bool,
    },
    /// Import every llParticleSystem / llLinkParticleSystem call of an LSL script as JSON.
    Lsl {
        /// The script: a regular file of at most 1 MiB (1,048,576 bytes) of UTF-8 text, or `-`
        /// for standard input (same limit).
        script: String,
    },
    /// Render a scene to PNG images and print per-pass GPU timings.
    Render(RenderArgs),
    /// Measure the particle fog against the billboards it replaces: each scene and size with
    /// RenderVKParticleFog off and on, per-pass GPU medians, totals, CPU work, bricks; sweeps.
    Bench(BenchArgs),
    /// Open the live viewer: the scene in a window (or --offscreen, into images) with the
    /// graphics-preferences panel, stats, the particle systems' verdicts and a fly camera.
    #[cfg(feature = "viewer")]
    View(ViewArgs),
    /// The live viewer, which this build leaves out (cargo feature `viewer`).
    #[cfg(not(feature = "viewer"))]
    View {
        /// The viewer's arguments (not read).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Read and change viewer settings in a settings.xml (LLSD), keeping every other key.
    Settings {
        /// The settings file: a regular file of at most 16 MiB (symbolic links are followed).
        #[arg(long, value_name = "FILE", default_value = cli::settings::DEFAULT_FILE, global = true)]
        file: PathBuf,
        #[command(subcommand)]
        action: SettingsAction,
    },
    /// List every Vulkan device with the limits and features the project relies on.
    Devices {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        gpu: GpuArgs,
    },
}

fn main() -> ExitCode {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let colour = std::io::stderr().is_terminal();
    // RUST_LOG as a list of `target=level` and a bare `level` (e.g. `info,render::vk=debug`).
    let filter: tracing_subscriber::filter::Targets = std::env::var("RUST_LOG")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| tracing_subscriber::filter::Targets::new().with_default(tracing::Level::WARN));
    let log = tracing_subscriber::fmt::layer().with_ansi(colour).with_writer(std::io::stderr);
    tracing_subscriber::registry().with(log).with(filter).init();
    let outcome = run(Args::parse()).and_then(|o| {
        write_all_or_closed(&mut std::io::stdout().lock(), &o.stdout)?;
        Ok(o.code)
    });
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            say(&format!("error: {}", error_text(&e)));
            ExitCode::FAILURE
        }
    }
}

/// Largest `--fps` accepted.
const MAX_FPS: f32 = 1000.0;

fn parse_fps(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(f) if f > 0.0 && f <= MAX_FPS => Ok(f),
        _ => Err(format!("{text:?}: expected a number above 0 and at most {MAX_FPS}")),
    }
}

fn exit_code(code: i32) -> u8 {
    u8::try_from(code).unwrap_or(1)
}

fn run(args: Args) -> anyhow::Result<Outcome> {
    Ok(match args.command {
        Command::Psys { action } => run_psys(action)?,
        Command::Classify(a) => Outcome::text(run_classify(a)?),
        Command::Texstats { files, json } => run_texstats(&files, json),
        Command::Lsl { script } => match cli::lsl::lsl(&script)? {
            Ok(json) => Outcome::text(json),
            Err(message) => {
                say(&format!("error: {message}"));
                Outcome::default().with_code(exit_code(cli::lsl::EXIT_REJECTED))
            }
        },
        Command::Render(a) => Outcome::text(run_render(a)?),
        Command::Bench(a) => Outcome::text(run_bench(a)?),
        #[cfg(feature = "viewer")]
        Command::View(a) => Outcome::text(run_view(a)?),
        #[cfg(not(feature = "viewer"))]
        Command::View { .. } => anyhow::bail!(
            "this particle-fog was built without the live viewer (cargo feature `viewer`, on by \
             default): cargo run --release --locked -p render --bin particle-fog -- view SCENE"
        ),
        Command::Devices { json, gpu } => {
            let devices = cli::devices::list(gpu.validation, gpu.device.as_ref())?;
            Outcome::text(if json {
                serde_json::to_string_pretty(&devices)?
            } else {
                cli::devices::text(&devices)
            })
        }
        Command::Settings { file, action } => Outcome::text(match action {
            SettingsAction::List => cli::settings::list(&file)?,
            SettingsAction::Get { name } => cli::settings::get(&file, &name)?,
            SettingsAction::Set { name, value } => cli::settings::set(&file, &name, &value)?,
        }),
    })
}

fn run_psys(action: PsysAction) -> anyhow::Result<Outcome> {
    Ok(match action {
        PsysAction::Decode { hex } => {
            let (json, code, reason) = cli::psys::decode(&hex);
            if let Some(reason) = reason {
                say(&format!("error: PSYS block rejected: {reason}"));
            }
            Outcome::text(json).with_code(exit_code(code))
        }
        PsysAction::Encode { source } => {
            let encoded = cli::psys::encode(&source)?;
            for w in &encoded.warnings {
                say(&format!("warning: {w}"));
            }
            Outcome::text(encoded.hex)
        }
    })
}

/// Table or JSON on stdout, each failed file on stderr, exit 1 when any failed.
fn run_texstats(files: &[PathBuf], json: bool) -> Outcome {
    let out = cli::texstats::run(files, json);
    for e in &out.errors {
        say(&format!("error: {e}"));
    }
    Outcome { stdout: out.stdout, code: out.code }
}

fn run_classify(a: ClassifyArgs) -> anyhow::Result<String> {
    let source = match (a.lsl, a.hex, a.scene) {
        (Some(p), None, None) => cli::classify::Source::Lsl(p),
        (None, Some(h), None) => cli::classify::Source::Hex(h),
        (None, None, Some(p)) => cli::classify::Source::Scene(p),
        _ => anyhow::bail!("give exactly one of --lsl FILE, --hex HEX or --scene FILE"),
    };
    let policy: fog::report::UnknownTexturePolicy = a.unknown_texture.parse()?;
    let s = cli::classify::settings_for(a.settings.file.as_ref(), &a.settings.overrides)?;
    let overrides = cli::classify::Overrides {
        file: a.settings.file.as_deref().map(fog::overrides_file::beside),
        given: &a.fog_overrides,
        save: a.save_overrides,
    };
    cli::classify::run(&source, a.texture_dir.as_deref(), policy, &s, &overrides, a.json)
}

#[cfg(feature = "viewer")]
fn run_view(a: ViewArgs) -> anyhow::Result<String> {
    let desc = render::GpuDesc {
        validation: a.gpu.validation,
        device: a.gpu.device.unwrap_or_default(),
        ..render::GpuDesc::default()
    };
    let job = cli::view::ViewJob {
        scene: a.scene,
        width: a.size.0,
        height: a.size.1,
        fps: a.fps,
        warmup: a.warmup,
        settings_file: a.settings.file.unwrap_or_else(|| cli::settings::DEFAULT_FILE.into()),
        overrides: a.settings.overrides,
        script: a.script,
        screenshots: a.screenshots,
        offscreen: a.offscreen,
        frames: a.frames,
        unthrottled: a.unthrottled,
        report: a.report,
    };
    cli::view::run(&job, &desc)
}

fn run_bench(a: BenchArgs) -> anyhow::Result<String> {
    let desc = render::GpuDesc {
        validation: a.gpu.validation,
        device: a.gpu.device.unwrap_or_default(),
        frames_in_flight: a.frames_in_flight,
        ..render::GpuDesc::default()
    };
    let scenes = if a.scenes.is_empty() {
        cli::bench::SHOWCASE_SCENES.iter().map(PathBuf::from).collect()
    } else {
        a.scenes
    };
    let sizes = if a.sizes.is_empty() { cli::bench::DEFAULT_SIZES.to_vec() } else { a.sizes };
    let job = cli::bench::BenchJob {
        scenes,
        sizes,
        frames: a.frames,
        warmup: a.warmup,
        fps: a.fps,
        sweeps: a.sweeps,
        out: a.out,
        json: a.json,
        settings_file: a.settings.file,
        overrides: a.settings.overrides,
    };
    let report = cli::bench::run(&job, &desc)?;
    Ok(cli::bench_table::format_report(&report))
}

fn run_render(a: RenderArgs) -> anyhow::Result<String> {
    let desc = render::GpuDesc {
        validation: a.gpu.validation,
        device: a.gpu.device.unwrap_or_default(),
        frames_in_flight: a.frames_in_flight,
        ..render::GpuDesc::default()
    };
    let job = cli::render::RenderJob {
        scene: a.scene,
        width: a.size.0,
        height: a.size.1,
        frames: a.frames,
        warmup: a.warmup,
        fps: a.fps,
        out: a.out,
        last_only: a.last,
        particles_only: a.particles_only,
        export_density: a.export_density,
        export_mitsuba: a.export_mitsuba,
        settings_file: a.settings.file,
        overrides: a.settings.overrides,
    };
    let show = cli::showcase::ShowcaseJob {
        compare: a.compare,
        apng_frames: a.apng,
        apng_size: a.apng_size.unwrap_or_else(|| cli::showcase::default_apng_size(a.size)),
        contact_sheet: a.contact_sheet,
    };
    // The showcase's folder and names are checked with the render's, before the first GPU work.
    let checks = || cli::showcase::prepare(&job, &show);
    let (report, rendered) = cli::render::run_after(&job, &desc, checks, show.compare)?;
    let written = if show.any() { cli::showcase::run(&job, &show, rendered)? } else { Vec::new() };
    let written: String = written.iter().map(|p| format!("wrote {}\n", p.display())).collect();
    let mut fog = report.fog.as_ref().map(cli::render::format_fog).unwrap_or_default();
    if let Some(peak) = cli::memory::peak_resident_bytes() {
        fog.push_str(&format!("peak memory (resident): {:.1} MiB\n", peak as f64 / f64::from(1u32 << 20)));
    }
    Ok(format!(
        "{written}{} on {} at {}x{}, {} frame(s):\n{}wall clock per frame (median, CPU side, submission and any wait for a frame in flight): {:.3} ms\nCPU work per frame (median, the wall clock less the wait for the GPU): {:.3} ms, of which the particle systems' {:.3} ms\n{}{}",
        report.scene,
        report.device,
        report.width,
        report.height,
        report.frames,
        render::vk::profiler::format_table(&report.passes),
        report.frame_wall_ms,
        report.frame_cpu_ms,
        report.systems_cpu_ms,
        cli::frame_times::summary(&report.per_frame),
        fog.trim_end()
    ))
}
