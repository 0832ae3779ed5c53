use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = gpulint::cli::Cli::parse();
    match gpulint::commands::run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
