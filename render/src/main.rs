//! The `particle-fog` command-line tool: render, benchmark, classify and inspect.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use render::cli;

/// Particle fog for a Second Life-style viewer's Vulkan renderer.
#[derive(Parser, Debug)]
#[command(name = "particle-fog", version, about)]
struct Args {
    /// Turn on the Khronos validation layer (validation errors are logged and fail the command).
    #[arg(long, global = true)]
    validation: bool,
    /// Which Vulkan device to use: an index from `particle-fog devices`, or part of its name.
    #[arg(long, global = true, value_name = "NAME|INDEX")]
    device: Option<String>,
    #[command(subcommand)]
    command: Command,
}

/// Settings for subcommands that render or classify: a settings.xml and overrides.
#[derive(clap::Args, Debug, Default)]
pub struct SettingsArgs {
    /// A viewer settings.xml to read settings from (missing file: defaults).
    #[arg(long = "settings", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Override one setting, e.g. `--set RenderVKParticleFog=true`; repeatable, later wins.
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

/// `particle-fog render` options.
#[derive(clap::Args, Debug)]
struct RenderArgs {
    /// The scene file (TOML; see scenes/README.md).
    scene: PathBuf,
    /// Output size in pixels.
    #[arg(long, default_value = "1280x720", value_parser = cli::render::parse_size)]
    size: (u32, u32),
    /// Frames to render.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    frames: u32,
    /// Frames of particle simulation before the rendered frames (nothing drawn, written or
    /// timed), to start from the particle systems' steady state; the last 20 (at least 20) also
    /// run the fog's temporal passes, so the fog is converged
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    warmup: u32,
    /// Simulated frames per second.
    #[arg(long, default_value_t = 30.0)]
    fps: f32,
    /// Output folder.
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Write only the last frame.
    #[arg(long)]
    last: bool,
    /// Draw only the particle systems (no opaque geometry or fog; black background).
    #[arg(long)]
    particles_only: bool,
    #[command(flatten)]
    settings: SettingsArgs,
}

/// `particle-fog classify` options.
#[derive(clap::Args, Debug)]
struct ClassifyArgs {
    /// An LSL script.
    #[arg(long, group = "input")]
    lsl: Option<PathBuf>,
    /// A PSYS block as hex.
    #[arg(long, group = "input")]
    hex: Option<String>,
    /// A scene file.
    #[arg(long, group = "input")]
    scene: Option<PathBuf>,
    /// Images named like the systems' textures (by file stem: name or UUID).
    #[arg(long, value_name = "DIR")]
    texture_dir: Option<PathBuf>,
    /// How a texture without statistics is treated (unknown: stays a billboard).
    #[arg(long, default_value = "unknown", value_name = "unknown|soft|shaped")]
    unknown_texture: String,
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
        /// The block as hex digits (whitespace allowed).
        hex: String,
    },
    /// Encode the JSON shape `psys decode` prints back into the block a simulator would send.
    Encode {
        /// A JSON file, or `-` for standard input.
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
    /// Texture statistics (mean alpha, edge energy, colour, softness, soft/shaped verdict).
    Texstats {
        /// PNG, TGA or JPEG files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Import every llParticleSystem / llLinkParticleSystem call of an LSL script as JSON.
    Lsl {
        /// The script.
        script: PathBuf,
    },
    /// Render a scene to PNG images and print per-pass GPU timings.
    Render(RenderArgs),
    /// Read and change viewer settings in a settings.xml (LLSD), keeping every other key.
    Settings {
        /// The settings file.
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
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    let desc = render::GpuDesc {
        validation: args.validation,
        device: args.device.as_deref().unwrap_or("auto").parse().unwrap_or_default(),
    };
    match args.command {
        Command::Psys { action: PsysAction::Decode { hex } } => {
            let (json, code) = cli::psys::decode(&hex);
            println!("{json}");
            return Ok(exit_code(code));
        }
        Command::Psys { action: PsysAction::Encode { source } } => {
            println!("{}", cli::psys::encode(&source)?)
        }
        Command::Classify(a) => run_classify(a)?,
        Command::Texstats { files, json } => {
            if json {
                println!("{}", serde_json::to_string_pretty(&assetstats::texstats_json(&files))?);
            } else {
                print!("{}", assetstats::texstats_table(&files));
            }
        }
        Command::Lsl { script } => match cli::psys::lsl(&script)? {
            Ok(json) => println!("{json}"),
            Err(message) => {
                eprintln!("error: {message}");
                return Ok(exit_code(cli::psys::EXIT_REJECTED));
            }
        },
        Command::Render(a) => run_render(a, &desc)?,
        Command::Devices { json } => {
            let devices = cli::devices::list(args.validation)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&devices)?);
            } else {
                print!("{}", cli::devices::text(&devices));
            }
        }
        Command::Settings { file, action } => {
            let text = match action {
                SettingsAction::List => cli::settings::list(&file)?,
                SettingsAction::Get { name } => cli::settings::get(&file, &name)?,
                SettingsAction::Set { name, value } => cli::settings::set(&file, &name, &value)?,
            };
            println!("{}", text.trim_end());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_classify(a: ClassifyArgs) -> anyhow::Result<()> {
    let source = match (a.lsl, a.hex, a.scene) {
        (Some(p), None, None) => cli::classify::Source::Lsl(p),
        (None, Some(h), None) => cli::classify::Source::Hex(h),
        (None, None, Some(p)) => cli::classify::Source::Scene(p),
        _ => anyhow::bail!("give exactly one of --lsl FILE, --hex HEX or --scene FILE"),
    };
    let policy: fog::report::UnknownTexturePolicy = a.unknown_texture.parse()?;
    let s = cli::classify::settings_for(a.settings.file.as_ref(), &a.settings.overrides)?;
    println!("{}", cli::classify::run(&source, a.texture_dir.as_deref(), policy, &s, a.json)?.trim_end());
    Ok(())
}

fn run_render(a: RenderArgs, desc: &render::GpuDesc) -> anyhow::Result<()> {
    anyhow::ensure!(a.fps.is_finite() && a.fps > 0.0, "--fps must be a positive number");
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
        settings_file: a.settings.file,
        overrides: a.settings.overrides,
    };
    let report = cli::render::run(&job, desc)?;
    println!(
        "{} on {} at {}x{}, {} frame(s):",
        report.scene, report.device, report.width, report.height, report.frames
    );
    print!("{}", render::vk::profiler::format_table(&report.passes));
    println!("wall clock per frame (median, CPU side, submission and wait): {:.3} ms", report.frame_wall_ms);
    Ok(())
}
