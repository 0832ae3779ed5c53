//! The report's data, built once per report: what the rules found, analysed (origins,
//! shares, source lines, one stake per cause, ranking), the launches and kernels placed on
//! the roofline with the linter's own bounds, and the kernel table. Commands map their
//! arguments to [`Settings`] and [`View`] and call [`build`]; from here the data flows down
//! to rules, roofline, fold and ingest, never back up to `commands`.

mod findings;
mod kernels;
mod source_lines;
mod unjudged;
mod verbose;

pub use findings::{Analysis, Settings, analyze};
pub use kernels::{KernelRow, kernel_rows, warn_gpu_mismatch};

use crate::error::Result;
use crate::ingest::Profile;
use crate::roofline::{Roofline, gpus::GpuPeaks};
use crate::rules::{Rule, engine::Outcome};

/// How the report is to be placed and said: the GPU whose peaks the roofline uses (where
/// the user named one), a row per launch rather than per kernel, and `--verbose`.
#[derive(Clone, Copy, Default)]
pub struct View {
    pub gpu: Option<&'static GpuPeaks>,
    pub per_launch: bool,
    pub verbose: bool,
}

/// What every format renders.
pub struct Built {
    pub analysis: Analysis,
    /// Each launch's place on the roofline, in the profiles' order.
    pub rooflines: Vec<Option<Roofline>>,
    pub kernels: Vec<KernelRow>,
}

/// The report of `profiles`, from what the linter made of them (`outcome`). Fails where no
/// rule could judge any launch: never a clean report of nothing judged. Says on stderr what
/// the reader should know of the inputs (several files as one, an export's own warnings, a
/// `--gpu` other than the profile's) and, with `--verbose`, the rules that could not judge.
pub fn build(
    profiles: &[Profile],
    outcome: Outcome,
    rules: &[Rule],
    settings: &Settings,
    view: View,
) -> Result<Built> {
    if profiles.len() > 1 {
        crate::note!(
            "{} files are one report: their launches are counted together, and each kernel's \
             share of GPU time is of all of them (a file each: one command per file)",
            profiles.len()
        );
    }
    let analysis = analyze(profiles, outcome, rules, settings)?;
    if view.verbose {
        verbose::print_verbose(profiles, &analysis.skips);
    }
    unjudged::refuse_unjudged(profiles, &analysis.coverage, rules)?;
    for p in profiles {
        for w in p.warnings() {
            crate::warning!("{}: {w}", crate::printable::printable(&p.file));
        }
    }
    kernels::warn_gpu_mismatch(view.gpu, profiles);
    let rooflines = kernels::place_launches(profiles, view.gpu, rules, &analysis.findings);
    let kernels = kernel_rows(
        profiles,
        view.per_launch,
        view.gpu,
        rules,
        &analysis.findings,
    );
    Ok(Built {
        analysis,
        rooflines,
        kernels,
    })
}
