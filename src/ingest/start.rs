//! Where an export's results start: the CSV header or the first launch of ncu's text
//! output, past the program's output and ncu's messages; and why, when none is found, the
//! file holds no results (a report's log, a metrics list, a source page).

use std::io::BufRead;

use super::{WARNING, gui, text_output};
use crate::error::{Error, Result};

/// Refuses what is plainly not a CSV export, from the first bytes.
pub(super) fn check_start(file: &str, input: &mut impl BufRead) -> Result<()> {
    let head = input
        .fill_buf()
        .map_err(|e| Error::in_file(file, format!("cannot read: {e}")))?;
    if head.starts_with(b"NVR\0") {
        return Err(Error::in_file(
            file,
            "this is an Nsight Compute report (.ncu-rep), not a CSV; export it with \
             `ncu --import FILE.ncu-rep --csv --page raw --print-units base > FILE.csv` \
             on a machine with ncu, then lint the CSV",
        ));
    }
    if head.is_empty() {
        return Err(Error::in_file(
            file,
            "the file is empty; expected an ncu --csv export",
        ));
    }
    let sample = &head[..head.len().min(4096)];
    if sample.iter().any(|b| *b < 0x09) {
        return Err(Error::in_file(
            file,
            "the file holds binary data, not text; expected an ncu --csv export",
        ));
    }
    Ok(())
}

/// The CSV header line, and what came before it.
pub(super) struct HeaderLine {
    pub(super) line: u64,
    pub(super) text: Vec<u8>,
    /// Lines of program output and ncu messages before it.
    pub(super) skipped: u64,
    /// Bytes read up to and including it.
    pub(super) bytes: u64,
    /// ncu's `==ERROR==` messages before it, as a warning.
    pub(super) errors_note: Option<String>,
}

/// Where the export proper starts.
pub(super) enum Start {
    Csv(HeaderLine),
    /// ncu's text output, from its first launch header.
    Text {
        line: u64,
        text: String,
        skipped: u64,
        errors_note: Option<String>,
    },
}

/// How many of ncu's `==ERROR==` messages a warning repeats.
pub(super) const MAX_NCU_ERRORS: usize = 3;

/// What ncu's own messages before the results (or in a file without any) say about the run.
#[derive(Default)]
pub(super) struct RunMessages {
    /// `==PROF== Profiling ...` lines: launches profiled.
    profiled: u64,
    /// `==PROF== Report: PATH`: the run saved its results there (`-o`).
    report: Option<String>,
    /// ncu's `==ERROR==` messages, the first few.
    errors: Vec<String>,
    /// The header of `ncu --query-metrics`' list: the metrics a GPU has, not a profile.
    query_metrics: bool,
    /// A `--page source` export: per-line counters of one kernel, not a profile.
    source_page: bool,
}

impl RunMessages {
    fn read(&mut self, line: &[u8]) {
        if line.starts_with(b"==PROF== Profiling ") {
            self.profiled += 1;
        } else if let Some(path) = line.strip_prefix(b"==PROF== Report: ") {
            self.report = Some(String::from_utf8_lossy(path).trim().to_string());
        } else if line.starts_with(b"Metric Name") && line.windows(11).any(|w| w == b"Metric Type")
        {
            self.query_metrics = true;
        } else if line.starts_with(b"\"Function Name\",")
            || line.starts_with(b"\"Line No\",")
            || line.starts_with(b"\"Address\",\"Source\"")
        {
            self.source_page = true;
        } else if let Some(error) = line.strip_prefix(b"==ERROR== ") {
            let error = String::from_utf8_lossy(error)
                .trim()
                .trim_end_matches('.')
                .to_string();
            if self.errors.len() < MAX_NCU_ERRORS && !self.errors.contains(&error) {
                self.errors.push(error);
            }
        }
    }

    /// A warning that ncu reported errors before the results it wrote.
    fn errors_note(&self) -> Option<String> {
        (!self.errors.is_empty()).then(|| {
            format!(
                "{WARNING}ncu reported errors while profiling ({}): launches after the error \
                 may be missing or hold no data",
                self.errors.join("; ")
            )
        })
    }

    /// Why nothing could be read: the run's results went to a report, or none are here.
    fn no_results(&self) -> String {
        if self.source_page {
            return "this is an ncu source page (`--page source`): per-line counters of one \
                    kernel, not a profile of its launches. Give it with `--source-page FILE` \
                    beside the profile (`gpulint check PROFILE --source-page FILE`) to name \
                    the source lines behind access findings"
                .into();
        }
        if self.query_metrics {
            return "this is `ncu --query-metrics`' list of the metrics a GPU offers, not a \
                    profile; profile with `gpulint run PROGRAM`, or export one with `ncu --csv \
                    --page raw --metrics $(gpulint metrics) PROGRAM`"
                .into();
        }
        match &self.report {
            Some(report) => format!(
                "this is the log of an ncu run that saved its results ({} launch(es) \
                 profiled) to a report, {report}; the log holds none. Check the report \
                 instead: `gpulint check {report}` reads it through ncu, or export it with \
                 `ncu --import {report} --csv --page raw`",
                self.profiled
            ),
            None if self.profiled > 0 => format!(
                "ncu's messages say it profiled {} launch(es), but their results are not in \
                 this file (no CSV header and no launch of ncu's text output): give gpulint \
                 the file ncu printed them to, or its report",
                self.profiled
            ),
            None => "no ncu CSV header (a row starting \"ID\",\"Process ID\",... with a \
                     \"Kernel Name\" column) and no launch of ncu's text output (a line such \
                     as `kernel(...) (8, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC \
                     9.0`) found; expected the output of `ncu`, `ncu --csv --page raw` or \
                     `--page details`"
                .into(),
        }
    }
}

/// Reads up to the CSV header, or to the first launch header of ncu's text output:
/// program output and ncu's messages before it are dropped.
pub(super) fn find_header(file: &str, input: &mut impl BufRead) -> Result<Start> {
    let mut skipped = 0;
    let mut line_no = 0u64;
    let mut bytes = 0u64;
    let mut line = Vec::new();
    let mut messages = RunMessages::default();
    loop {
        line.clear();
        let n = input
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::in_file(file, format!("cannot read: {e}")))?;
        bytes += n as u64;
        if n == 0 {
            return Err(Error::in_file(file, messages.no_results()));
        }
        line_no += 1;
        let mut text = trim_line_end(&line);
        if line_no == 1 {
            text = text.strip_prefix("\u{feff}".as_bytes()).unwrap_or(text);
        }
        messages.read(text);
        if is_header(text) {
            return Ok(Start::Csv(HeaderLine {
                line: line_no,
                text: text.to_vec(),
                skipped,
                bytes,
                errors_note: messages.errors_note(),
            }));
        }
        let line_text = String::from_utf8_lossy(text);
        // A launch header, or a `Section:` table with none above it: a fragment of the
        // text output, as people paste one launch's section.
        if text_output::launch_header(&line_text).is_some()
            || text_output::is_section_line(&line_text)
        {
            return Ok(Start::Text {
                line: line_no,
                text: line_text.into_owned(),
                skipped,
                errors_note: messages.errors_note(),
            });
        }
        if text.starts_with(b"==") || !text.iter().all(u8::is_ascii_whitespace) {
            skipped += 1;
        }
    }
}

pub(super) fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The header of a page (`"ID",...`), of a `--print-summary` CSV (`"Process ID",...`
/// with an `Invocations` column, and no launch IDs), or of a GUI export.
pub(super) fn is_header(line: &[u8]) -> bool {
    let start = line.iter().position(|b| *b != b'"').unwrap_or(line.len());
    let rest = &line[start..];
    let has = |s: &[u8]| line.windows(s.len()).any(|w| w == s);
    let page = rest.starts_with(b"ID\",") || rest.starts_with(b"ID,");
    let summary = rest.starts_with(b"Process ID") && has(b"Invocations");
    ((page || summary) && has(b"Kernel Name"))
        || gui::is_header(line)
        || gui::is_transposed_header(line)
}

pub(super) fn parse_header(file: &str, line: u64, text: &[u8]) -> Result<csv::ByteRecord> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text);
    let mut record = csv::ByteRecord::new();
    match reader.read_byte_record(&mut record) {
        Ok(true) => Ok(record),
        Ok(false) => Err(Error::at(file, line, None, "the CSV has no header row")),
        Err(e) => Err(Error::at(file, line, None, format!("malformed CSV: {e}"))),
    }
}
