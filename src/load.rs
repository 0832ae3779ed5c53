//! Exports read into profiles: streamed, each launch linted as it arrives (with a
//! linter), repeats of a kernel folded into one entry, and a device's missing shape taken
//! from the GPU table. `check`, `run` and a saved run's report all read this way.

use std::io::IsTerminal;

use crate::error::Result;
use crate::ingest::{self, Profile};
use crate::roofline::gpus::{self, GpuPeaks};
use crate::rules;

/// Inputs at least this large get a progress bar when stderr is a terminal.
pub(crate) const PROGRESS_MIN_BYTES: u64 = 64 << 20;

/// Streams the exports, lints each launch as it arrives (with a linter), and folds
/// repeats of a kernel into one entry unless `--per-launch`: memory grows with distinct
/// kernels, not launches.
pub(crate) fn load(
    files: &[String],
    per_launch: bool,
    jobs: Option<usize>,
    linter: Option<&mut rules::engine::Linter>,
) -> Result<Vec<Profile>> {
    let named: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f.as_str(), if f == "-" { "<stdin>" } else { f.as_str() }))
        .collect();
    load_as(&named, per_launch, jobs, linter)
}

/// As [`load`], for (path, name in reports) pairs.
pub(crate) fn load_as(
    inputs: &[(&str, &str)],
    per_launch: bool,
    jobs: Option<usize>,
    mut linter: Option<&mut rules::engine::Linter>,
) -> Result<Vec<Profile>> {
    let jobs = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let opts = ingest::ReadOptions {
        jobs: jobs.max(1),
        progress: std::io::stderr().is_terminal().then_some(ingest::Progress {
            min_bytes: PROGRESS_MIN_BYTES,
        }),
        ..ingest::ReadOptions::default()
    };
    let mut profiles = Vec::new();
    for &(path, file) in inputs {
        let mut folder = crate::fold::Folder::new(per_launch);
        let mut from_table = ShapesFromTable::default();
        let mut source = ingest::stream_named(path, file, &opts, &mut |mut launch| {
            from_table.fill(&mut launch);
            if let Some(l) = linter.as_deref_mut() {
                l.add(file, &launch);
            }
            folder.add(launch);
            Ok(())
        })?;
        source.notes.extend(from_table.notes());
        profiles.push(Profile {
            file: file.to_string(),
            page: source.page,
            launches: folder.finish(),
            notes: source.notes,
            source_blocks: Vec::new(),
        });
    }
    Ok(profiles)
}

/// The device shapes the GPU table gave a file's launches: per entry, the keys it filled.
#[derive(Default)]
struct ShapesFromTable(Vec<(&'static GpuPeaks, Vec<&'static str>)>);

impl ShapesFromTable {
    /// A launch whose export names its device but not the device's SM count or warps per
    /// SM takes them from the table.
    fn fill(&mut self, launch: &mut ingest::Launch) {
        let Some(gpu) = launch.device.as_deref().and_then(gpus::lookup) else {
            return;
        };
        let Some(shape) = &gpu.shape else { return };
        let filled = crate::metrics::fill_device_shape(
            &mut launch.metrics,
            f64::from(shape.sms),
            f64::from(shape.max_warps_per_sm),
        );
        if filled.is_empty() {
            return;
        }
        let at = match self.0.iter().position(|(g, _)| std::ptr::eq(*g, gpu)) {
            Some(at) => at,
            None => {
                self.0.push((gpu, Vec::new()));
                self.0.len() - 1
            }
        };
        let keys = &mut self.0[at].1;
        for k in filled {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }

    fn notes(&self) -> impl Iterator<Item = String> + '_ {
        self.0.iter().map(|(gpu, keys)| shape_note(gpu, keys))
    }
}

fn shape_note(gpu: &GpuPeaks, keys: &[&str]) -> String {
    let shape = gpu.shape.as_ref().expect("filled from a shape");
    // What the export lacked, and what the table gave for it.
    let (lacked, taken): (Vec<&str>, Vec<String>) = keys
        .iter()
        .map(|k| match *k {
            "sm_count" => ("its SM count", format!("{} SMs", shape.sms)),
            _ => (
                "its warps per SM",
                format!("{} warps per SM", shape.max_warps_per_sm),
            ),
        })
        .unzip();
    format!(
        "the export names its device but not {}: the launch-shape rules take {} for {} from \
         gpulint's GPU table ({})",
        lacked.join(" or "),
        taken.join(" and "),
        gpu.name,
        shape.source
    )
}
