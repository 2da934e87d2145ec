//! The `particle-fog` command-line tool: render, benchmark, classify and inspect.

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

#[derive(Subcommand, Debug)]
enum Command {
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
    }
    Ok(ExitCode::SUCCESS)
}
