//! One file per subcommand: each turns its arguments into settings and calls the
//! library; this file only dispatches.

mod check;
mod gate;
mod roofline;
mod rules_docs;
mod run;
mod shared;

pub use check::lint_and_report;
pub use shared::{emit, emit_with};

use clap::Parser;

use crate::cli::{Command, RulesFormat};
use crate::error::{Error, Result};
use crate::rules;
use rules_docs::{explain, rules_json, rules_table};

/// Runs a command; the number is the process exit code (0 clean, 1 findings).
pub fn run(command: Command) -> Result<u8> {
    match command {
        Command::Check { files, report } => check::check(&files, &report),
        Command::Rules { format, rules } => {
            let rules = rules::load(rules.as_deref())?;
            emit(&match format {
                RulesFormat::Table => rules_table(&rules),
                RulesFormat::Json => rules_json(&rules),
            })?;
            Ok(0)
        }
        Command::Explain { rule, rules } => {
            let all = rules::load(rules.as_deref())?;
            let r = rules::find(&all, &rule).ok_or_else(|| {
                Error::new(format!("no rule {rule:?}; `gpulint rules` lists them"))
            })?;
            emit(&explain(r))?;
            Ok(0)
        }
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
        } => {
            let (rules, _) = shared::enabled_rules(&report)?;
            let chip = chip
                .as_deref()
                .map(|c| crate::chips::find(c).ok_or_else(|| crate::ncu::unknown_chip(c)))
                .transpose()?;
            let plan = crate::ncu::metric_plan(&rules, !no_roofline, chip);
            if let (Some(c), false) = (chip, plan.unavailable.is_empty()) {
                eprintln!(
                    "gpulint: chip {} has no metric for {}; the rules and roofline that read them would be skipped",
                    c.name,
                    plan.unavailable.join(", ")
                );
            }
            emit(&(plan.metrics.join(",") + "\n"))?;
            Ok(0)
        }
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
        Command::Doctor { ncu } => {
            let checks = crate::ncu::doctor::checks(ncu.as_deref());
            let mut text = String::new();
            for c in &checks {
                let mark = match c.status {
                    crate::ncu::doctor::Status::Pass => "ok  ",
                    crate::ncu::doctor::Status::Warn => "warn",
                    crate::ncu::doctor::Status::Fail => "FAIL",
                };
                text.push_str(&format!("{mark}  {:<9} {}\n", c.name, c.detail));
            }
            emit(&text)?;
            let failed = checks
                .iter()
                .any(|c| c.status == crate::ncu::doctor::Status::Fail);
            Ok(u8::from(failed))
        }
    }
}
