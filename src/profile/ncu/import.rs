//! `.ncu-rep` reports read through ncu: the raw page, and the source pages of `--source`.

use super::{
    Command, Error, NcuOptions, Path, PathBuf, Result, Write, check_ncu_output, ingest, locate,
    read_log, temp_csv,
};

/// Exports the raw page of the report to where the log was, to be streamed like any
/// export; with `--source`, each kernel's source page too, by its full base name.
pub(super) fn from_report(
    ncu: &Path,
    report: &Path,
    log: &Path,
    status: Option<i32>,
    opts: &NcuOptions,
) -> Result<Vec<ingest::source::SourceBlock>> {
    let rep = format!("{}.ncu-rep", report.display());
    if !Path::new(&rep).exists() {
        let text = read_log(log)?;
        check_ncu_output(&text, status)?;
        return Err(Error::new(format!(
            "ncu wrote no report; its last lines:\n{text}"
        )));
    }
    let raw_page = [
        "--import",
        &rep,
        "--csv",
        "--page",
        "raw",
        "--print-units",
        "base",
    ];
    match (&opts.source_pages_of, opts.source) {
        (_, false) => {
            import_to(ncu, &raw_page, log, opts.verbose)?;
            Ok(Vec::new())
        }
        // The run printed the launches' pages to the log: read before the raw page's
        // import takes its place. Without them the findings go without their lines, not
        // without a report.
        (Some(kernels), true) => {
            let printed = read_log(log)?;
            let blocks = match ingest::source::parse(
                "the source pages ncu printed",
                super::source_pass::pages_of_log(&printed).as_bytes(),
            ) {
                Ok(blocks) => blocks_of_kernels(blocks, kernels),
                Err(e) => {
                    crate::warning!(
                        "ncu printed no source page (is the program built with -lineinfo?), \
                         so no finding names its line: {e}"
                    );
                    Vec::new()
                }
            };
            import_to(ncu, &raw_page, log, opts.verbose)?;
            Ok(blocks)
        }
        (None, true) => {
            import_to(ncu, &raw_page, log, opts.verbose)?;
            let raw = ingest::parse_bytes("ncu report", &read_bytes(log)?)?;
            source_pages(ncu, &rep, &raw, opts.verbose)
        }
    }
}

/// The blocks of these kernels (by base name) among `blocks`: the pages ncu printed hold
/// every sampled launch's, library kernels' among them.
fn blocks_of_kernels(
    blocks: Vec<ingest::source::SourceBlock>,
    kernels: &[String],
) -> Vec<ingest::source::SourceBlock> {
    let bases: Vec<String> = kernels.iter().map(|k| ingest::base_name(k)).collect();
    blocks
        .into_iter()
        .filter(|b| bases.contains(&ingest::base_name(&b.function)))
        .collect()
}

pub(super) fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))
}

/// Runs `ncu --import ...` with its output written to `dest`, not held in memory: the
/// raw page of a long run is large.
pub(super) fn import_to(ncu: &Path, args: &[&str], dest: &Path, verbose: bool) -> Result<()> {
    let file = std::fs::File::create(dest)
        .map_err(|e| Error::new(format!("cannot write {}: {e}", dest.display())))?;
    run_import(ncu, args, file.into(), verbose).map(|_| ())
}

/// Each kernel's source page from a report, by its full base name; a kernel without
/// line info gives none.
pub fn source_pages(
    ncu: &Path,
    rep: &str,
    raw: &ingest::Profile,
    verbose: bool,
) -> Result<Vec<ingest::source::SourceBlock>> {
    pages_of(
        ncu,
        rep,
        raw.launches.iter().map(|l| l.name.as_str()),
        verbose,
    )
}

/// The source pages of these kernels, one import per base name, side by side, parsed; a
/// kernel without line info (built without -lineinfo) has no source rows and gives none.
pub(super) fn pages_of<'a>(
    ncu: &Path,
    rep: &str,
    kernels: impl Iterator<Item = &'a str>,
    verbose: bool,
) -> Result<Vec<ingest::source::SourceBlock>> {
    let mut bases: Vec<String> = kernels.map(ingest::base_name).collect();
    bases.sort();
    bases.dedup();
    let mut blocks = Vec::new();
    for (base, page) in import_source_pages(ncu, rep, &bases, verbose)? {
        if let Ok(b) = ingest::source::parse(&format!("source page of {base}"), page.as_bytes()) {
            blocks.extend(b);
        }
    }
    Ok(blocks)
}

/// The source page of each kernel named by its base name, imported side by side: an
/// import is mostly ncu's start-up and the page's printing, and one import of every
/// kernel's page took 4.3 s where two side by side took 1.5 s (on the H200,
/// lab/runs/2026-12-02-lines-and-pairs.txt).
fn import_source_pages(
    ncu: &Path,
    rep: &str,
    bases: &[String],
    verbose: bool,
) -> Result<Vec<(String, String)>> {
    std::thread::scope(|s| {
        let asked: Vec<_> = bases
            .iter()
            .map(|base| {
                s.spawn(move || {
                    let args = [
                        "--import",
                        rep,
                        "--csv",
                        "--page",
                        "source",
                        "--print-source",
                        "cuda,sass",
                        "-k",
                        base,
                    ];
                    import(ncu, &args, verbose).map(|page| (base.clone(), page))
                })
            })
            .collect();
        asked
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::new("a source page's import panicked")))
            })
            .collect()
    })
}

/// Runs `ncu --import ...` and returns what it printed.
pub(super) fn import(ncu: &Path, args: &[&str], verbose: bool) -> Result<String> {
    let out = run_import(ncu, args, std::process::Stdio::piped(), verbose)?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs `ncu --import ...` with its output sent to `stdout`; ncu's stderr says why it
/// failed.
pub(super) fn run_import(
    ncu: &Path,
    args: &[&str],
    stdout: std::process::Stdio,
    verbose: bool,
) -> Result<std::process::Output> {
    if verbose {
        crate::note!("{} {}", ncu.display(), args.join(" "));
    }
    let out = Command::new(ncu)
        .args(args)
        .stdout(stdout)
        .output()
        .map_err(|e| Error::new(format!("cannot start {}: {e}", ncu.display())))?;
    if !out.status.success() {
        return Err(Error::new(format!(
            "`ncu {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out)
}

/// Whether a file is an Nsight Compute report rather than a CSV: by its name, or by the
/// `NVR` bytes reports start with.
pub fn is_report(path: &str) -> bool {
    if path.ends_with(".ncu-rep") || path.ends_with(".ncu-repz") {
        return true;
    }
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| &head == b"NVR\0")
}

/// Exports a report's raw page through the user's own ncu (`ncu --import`) into a
/// temporary CSV, read like any export. NVIDIA's report format is not ours to parse.
pub fn import_report(path: &str, verbose: bool) -> Result<Imported> {
    let export = format!("ncu --import {path} --csv --page raw --print-units base > export.csv");
    let ncu = locate::find_ncu_from_env().map_err(|e| {
        Error::in_file(
            path,
            format!(
                "an Nsight Compute report is read through ncu, and none was found ({e}); \
                 export it where ncu is: `{export}`, then `gpulint check export.csv`"
            ),
        )
    })?;
    let args = [
        "--import",
        path,
        "--csv",
        "--page",
        "raw",
        "--print-units",
        "base",
    ];
    let text = import(&ncu, &args, verbose).map_err(|e| Error::in_file(path, e.to_string()))?;
    let mut csv = temp_csv("gpulint-import-")?;
    csv.write_all(text.as_bytes())
        .map_err(|e| Error::new(format!("cannot write a temporary file: {e}")))?;
    Ok(Imported { csv, ncu })
}

/// A report's raw page, exported to a temporary CSV, and the ncu that did it.
pub struct Imported {
    pub csv: tempfile::NamedTempFile,
    pub ncu: PathBuf,
}
