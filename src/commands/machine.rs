//! `gpulint metrics` and `gpulint doctor`: what to collect, and whether this machine can.

use super::Output;
use super::shared::enabled_rules;
use crate::cli::{MetricsFormat, RuleArgs};
use crate::error::Result;
use crate::profile::ncu::doctor::{self, Status};

/// `gpulint metrics [--chip NAME]`: the ncu metrics the enabled rules need.
pub fn metrics(
    roofline: bool,
    chip: Option<&str>,
    format: MetricsFormat,
    selection: &RuleArgs,
    out: &mut Output,
) -> Result<u8> {
    let (rules, _) = enabled_rules(selection)?;
    let chip = chip.map(crate::profile::ncu::chip_by_name).transpose()?;
    let plan = crate::profile::ncu::metric_plan(&crate::rules::metric_keys(&rules), roofline, chip);
    if let (Some(c), false) = (chip, plan.unavailable.is_empty()) {
        crate::note!(
            "chip {} has no metric for {}; the rules and roofline that read them would be skipped",
            c.name,
            plan.unavailable.join(", ")
        );
    }
    let text = match format {
        MetricsFormat::List => plan.metrics.join(",") + "\n",
        MetricsFormat::Lines => plan.metrics.join("\n") + "\n",
        MetricsFormat::Json => {
            serde_json::to_string_pretty(&plan.metrics).expect("plain strings") + "\n"
        }
    };
    out.emit(&text)?;
    Ok(0)
}

/// `gpulint doctor`: one line per check; exit 0 when every check passed (warnings
/// allowed), 1 when one failed.
pub fn doctor(ncu: Option<&str>, out: &mut Output) -> Result<u8> {
    let checks = doctor::checks(ncu);
    let mut text = String::new();
    for c in &checks {
        let mark = match c.status {
            Status::Pass => "ok  ",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
            Status::Skip => "skip",
            Status::Note => "note",
        };
        text.push_str(&format!("{mark}  {:<9} {}\n", c.name, c.detail));
    }
    out.emit(&text)?;
    Ok(u8::from(checks.iter().any(|c| c.status == Status::Fail)))
}
