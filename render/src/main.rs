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

#[derive(Subcommand, Debug)]
enum Command {
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

fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
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
