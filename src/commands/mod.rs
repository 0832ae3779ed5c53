//! One file per subcommand: each turns its arguments into settings and calls the
//! library; this file only dispatches.

mod check;
mod gate;
mod lint;
mod machine;
mod output;
mod roofline;
mod rules_docs;
mod run;
mod saved;
mod shared;

pub use output::Output;

use clap::Parser;

use crate::cli::Command;
use crate::error::Result;

/// Runs a command; the number is the process exit code (0 clean, 1 findings). With
/// `-o FILE`, the report goes to FILE, which appears only if the command succeeded.
pub fn run(command: Command) -> Result<u8> {
    let mut out = match output_of(&command) {
        Some((path, inputs)) => Output::to_file(&path, &inputs)?,
        None => Output::stdout(),
    };
    let result = dispatch(command, &mut out);
    out.finish(result.is_ok())?;
    result
}

/// The `-o` file of a command, and the inputs it must never overwrite.
fn output_of(command: &Command) -> Option<(String, Vec<String>)> {
    let (output, inputs): (&Option<String>, Vec<String>) = match command {
        Command::Check { output, files, .. } | Command::Roofline { output, files, .. } => {
            (output, files.clone())
        }
        Command::Diff(crate::cli::DiffArgs {
            output,
            baseline,
            candidate,
            ..
        }) => (output, vec![baseline.clone(), candidate.clone()]),
        Command::Run { output, .. }
        | Command::Rules { output, .. }
        | Command::Metrics { output, .. } => (output, Vec::new()),
        _ => return None,
    };
    output.clone().map(|o| (o, inputs))
}

fn dispatch(command: Command, out: &mut Output) -> Result<u8> {
    match command {
        Command::Check {
            files,
            source,
            report,
            ..
        } => check::check(&files, source, &report, out),
        Command::Rules { format, rules, .. } => rules_docs::rules(format, rules.as_deref(), out),
        Command::Explain { rule, rules } => rules_docs::explain_rule(&rule, rules.as_deref(), out),
        Command::TestRules { dir } => rules_docs::test_rules(&dir, out),
        Command::Keys => rules_docs::keys(out),
        Command::Gpus => rules_docs::gpus(out),
        Command::Run {
            ncu,
            report,
            program,
            ..
        } => run::run_program(&ncu, &report, &program, out),
        Command::Baseline {
            files,
            output,
            ncu_version,
            gate,
        } => gate::baseline(&files, output.as_deref(), ncu_version, &gate, out),
        Command::Diff(args) => gate::diff_command(&args, out),
        Command::Roofline {
            files,
            format,
            svg,
            gpu,
            ..
        } => roofline::roofline_command(&files, format, svg.as_deref(), gpu.as_deref(), out),
        Command::Metrics {
            no_roofline,
            chip,
            format,
            selection,
            ..
        } => machine::metrics(!no_roofline, chip.as_deref(), format, &selection, out),
        Command::External(program) => {
            diagnose_first_word(std::path::Path::new(&program[0]))?;
            // `gpulint ./prog args`: everything after the program is the program's.
            let cli = crate::cli::Cli::parse_from(
                ["gpulint", "run", "--"]
                    .into_iter()
                    .map(std::ffi::OsString::from)
                    .chain(program),
            );
            dispatch(cli.command, out)
        }
        Command::Doctor { ncu } => machine::doctor(ncu.as_deref(), out),
    }
}

/// `gpulint WORD ...` where WORD is no subcommand: run it if it is a program, else say
/// what it more likely was (a typo of a command, or a profile meant for `check`).
fn diagnose_first_word(path: &std::path::Path) -> Result<()> {
    let word = &crate::printable::path(path);
    let runnable = if path.to_string_lossy().contains('/') {
        path.is_file()
    } else {
        which::which(word).is_ok()
    };
    if runnable && !looks_like_profile(word) {
        return Ok(());
    }
    if looks_like_profile(word) {
        return Err(crate::error::Error::new(format!(
            "{word} looks like a profile, not a program; use `gpulint check {word}`"
        )));
    }
    if let Some(near) = nearest_command(word) {
        return Err(crate::error::Error::new(format!(
            "unknown command `{word}`; did you mean `{near}`?"
        )));
    }
    Err(crate::error::Error::new(format!(
        "`{word}` is neither a gpulint command (`gpulint --help` lists them) nor a program \
         found on PATH or at that path"
    )))
}

/// The subcommand nearest to `word` (at most two edits away), from clap's own list: `ruls`
/// is `rules`, not the first command within reach.
fn nearest_command(word: &str) -> Option<String> {
    use clap::CommandFactory;
    crate::cli::Cli::command()
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_string())
        .map(|name| (strsim::levenshtein(&name, word), name))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

fn looks_like_profile(word: &str) -> bool {
    [".csv", ".txt", ".ncu-rep", ".ncu-repz", ".log"]
        .iter()
        .any(|ext| word.to_ascii_lowercase().ends_with(ext))
}
