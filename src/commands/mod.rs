//! One file per subcommand: each turns its arguments into settings and calls the
//! library; this file only dispatches.

mod check;
mod gate;
mod machine;
mod roofline;
mod rules_docs;
mod run;
mod shared;

pub use check::lint_and_report;
pub use shared::{emit, emit_with};

use clap::Parser;

use crate::cli::Command;
use crate::error::Result;

/// Runs a command; the number is the process exit code (0 clean, 1 findings).
pub fn run(command: Command) -> Result<u8> {
    match command {
        Command::Check {
            files,
            source,
            report,
        } => check::check(&files, source, &report),
        Command::Rules { format, rules } => rules_docs::rules(format, rules.as_deref()),
        Command::Explain { rule, rules } => rules_docs::explain_rule(&rule, rules.as_deref()),
        Command::TestRules { dir } => rules_docs::test_rules(&dir),
        Command::Keys => rules_docs::keys(),
        Command::Run {
            ncu,
            report,
            program,
        } => run::run_program(&ncu, &report, &program),
        Command::Baseline {
            files,
            output,
            ncu_version,
            report,
        } => gate::baseline(&files, output.as_deref(), ncu_version, &report),
        Command::Diff {
            baseline,
            candidate,
            strict,
            thresholds,
            gate_duration,
            report,
        } => gate::diff_command(
            &baseline,
            &candidate,
            strict,
            &thresholds,
            gate_duration,
            &report,
        ),
        Command::Roofline {
            files,
            format,
            svg,
            gpu,
        } => roofline::roofline_command(&files, format, svg.as_deref(), gpu.as_deref()),
        Command::Metrics {
            no_roofline,
            chip,
            report,
        } => machine::metrics(!no_roofline, chip.as_deref(), &report),
        Command::External(program) => {
            // `gpulint ./prog args`: everything after the program is the program's.
            let cli = crate::cli::Cli::parse_from(
                ["gpulint", "run", "--"]
                    .into_iter()
                    .map(String::from)
                    .chain(program),
            );
            run(cli.command)
        }
        Command::Doctor { ncu } => machine::doctor(ncu.as_deref()),
    }
}
