use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = gpulint::cli::Cli::parse_or_exit();
    gpulint::messages::set_quiet(cli.quiet);
    match gpulint::commands::run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
