//! Putting parsed launches back together: a details-page launch spans rows and may run
//! across a chunk seam; each finished launch is resolved and handed on in file order, and
//! the row-level notes of the whole read are gathered on the way.

use std::collections::{BTreeMap, BTreeSet};

use super::Launch;
use super::WARNING;
use super::row::{ChunkOut, Parsed, coarse_values_note, unknown_sections_note};
use crate::error::Result;

/// Row-level warnings (truncated rows) kept per file; the rest are counted.
const MAX_ROW_WARNINGS: usize = 10;

/// Puts parsed launches together across chunk seams (a details-page launch spans many
/// rows) and hands each finished one on.
pub(super) struct Assembler<'a> {
    sink: &'a mut dyn FnMut(Launch) -> Result<()>,
    carry: Option<Parsed>,
    /// Launches handed on so far.
    pub(super) launches: u64,
    row_warnings: Vec<String>,
    dropped_warnings: usize,
    unknown_sections: BTreeSet<String>,
    coarse_values: BTreeMap<&'static str, u64>,
    short_rows: u64,
}

impl<'a> Assembler<'a> {
    pub(super) fn new(sink: &'a mut dyn FnMut(Launch) -> Result<()>) -> Self {
        Assembler {
            sink,
            carry: None,
            launches: 0,
            row_warnings: Vec::new(),
            dropped_warnings: 0,
            unknown_sections: BTreeSet::new(),
            coarse_values: BTreeMap::new(),
            short_rows: 0,
        }
    }

    fn warn(&mut self, warnings: Vec<String>) {
        for w in warnings {
            if self.row_warnings.len() < MAX_ROW_WARNINGS {
                self.row_warnings.push(w);
            } else {
                self.dropped_warnings += 1;
            }
        }
    }

    pub(super) fn take(&mut self, out: ChunkOut) -> Result<()> {
        self.warn(out.row_warnings);
        self.unknown_sections.extend(out.unknown_sections);
        self.short_rows += out.short_rows;
        for (key, n) in out.coarse_values {
            *self.coarse_values.entry(key).or_default() += n;
        }
        if !out.finished.is_empty() {
            self.flush()?;
            for launch in out.finished {
                self.launches += 1;
                (self.sink)(launch)?;
            }
        }
        for p in out.launches {
            match &mut self.carry {
                Some(c) if c.id == p.id => {
                    c.values.extend(p.values);
                    c.nvidia_rules.extend(p.nvidia_rules);
                    if c.device.is_none() {
                        c.device = p.device;
                    }
                }
                _ => {
                    if let Some(done) = self.carry.replace(p) {
                        self.finish(done)?;
                    }
                }
            }
        }
        match out.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    pub(super) fn flush(&mut self) -> Result<()> {
        match self.carry.take() {
            Some(done) => self.finish(done),
            None => Ok(()),
        }
    }

    fn finish(&mut self, mut p: Parsed) -> Result<()> {
        if p.invocations.is_some() {
            // A summary block has no launch ID: number the blocks in file order.
            p.id = self.launches;
        }
        self.launches += 1;
        let mut warnings = Vec::new();
        let launch = super::finish_launch(p, &mut warnings);
        self.warn(warnings);
        (self.sink)(launch)
    }

    /// The notes a read ends with: row warnings, unknown sections, values rounded away,
    /// short rows.
    pub(super) fn closing_notes(&mut self, notes: &mut Vec<String>) {
        notes.extend(self.row_warnings.iter().map(|w| format!("{WARNING}{w}")));
        if self.dropped_warnings > 0 {
            notes.push(format!(
                "{WARNING}{} more row(s) with the same kind of problem",
                self.dropped_warnings
            ));
        }
        notes.extend(unknown_sections_note(std::mem::take(
            &mut self.unknown_sections,
        )));
        notes.extend(coarse_values_note(&self.coarse_values));
        if self.short_rows > 0 {
            notes.push(format!(
                "skipped {} row(s) that end before the `Metric Value` column: the section tables \
                 `--print-details all` writes among the metric rows, or rows cut short",
                self.short_rows
            ));
        }
    }
}
