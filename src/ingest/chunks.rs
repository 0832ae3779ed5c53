//! Cutting an export into chunks at line ends, and filtering each chunk's lines: ncu's
//! messages and blank lines dropped, with a map back to the file's line numbers.

use std::io::{BufRead, Read};

use super::start::trim_line_end;
use crate::error::{Error, Result};

/// Maps a line of a chunk's filtered text back to the file.
pub(super) struct LineMap {
    /// (first filtered line of a run, its line in the file); filtered lines count from 1.
    runs: Vec<(u64, u64)>,
}

impl LineMap {
    pub(super) fn original(&self, line: u64) -> u64 {
        let i = self.runs.partition_point(|(start, _)| *start <= line);
        match i.checked_sub(1).map(|i| self.runs[i]) {
            Some((start, orig)) => orig + (line - start),
            None => line,
        }
    }
}

/// One piece of the input, cut at a line end.
pub(super) struct Chunk {
    pub(super) first_line: u64,
    pub(super) bytes: Vec<u8>,
}

/// A line among the rows that is not one: ncu's `==PROF==` messages, and the indented text
/// `--print-details all` writes for a section body with no table ("    The system does
/// not have any NVLink connections."). Every row of a CSV gpulint reads starts with its
/// first field.
fn is_message(line: &[u8]) -> bool {
    line.starts_with(b"==")
        || (line.first().is_some_and(|b| *b == b' ' || *b == b'\t')
            && !line.iter().all(u8::is_ascii_whitespace))
}

pub(super) struct ChunkReader<R> {
    pub(super) input: R,
    pub(super) next_line: u64,
    pub(super) seq: u64,
    pub(super) bar: Option<indicatif::ProgressBar>,
}

impl<R: BufRead> ChunkReader<R> {
    /// The next `target` bytes or so, extended to the end of the line they stop in.
    pub(super) fn next_chunk(&mut self, file: &str, target: usize) -> Result<Option<Chunk>> {
        let read_err = |e: std::io::Error| Error::in_file(file, format!("cannot read: {e}"));
        let mut bytes = Vec::with_capacity(target + 64 * 1024);
        (&mut self.input)
            .take(target as u64)
            .read_to_end(&mut bytes)
            .map_err(read_err)?;
        if bytes.is_empty() {
            return Ok(None);
        }
        if bytes.last() != Some(&b'\n') {
            self.input.read_until(b'\n', &mut bytes).map_err(read_err)?;
        }
        if let Some(b) = &self.bar {
            b.inc(bytes.len() as u64);
        }
        let lines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
        let chunk = Chunk {
            first_line: self.next_line,
            bytes,
        };
        self.seq += 1;
        self.next_line += lines.max(1);
        Ok(Some(chunk))
    }
}

/// Drops ncu's messages and blank lines from a chunk and ends every line in `\n` (the
/// csv crate's line numbers drift over blank lines and `\r\n`). Borrows when there is
/// nothing to change.
pub(super) fn filter_lines(chunk: &Chunk) -> (std::borrow::Cow<'_, [u8]>, LineMap, u64) {
    let bytes = &chunk.bytes[..];
    let keep = |line: &[u8]| {
        let line = trim_line_end(line);
        !(is_message(line) || line.iter().all(u8::is_ascii_whitespace))
    };
    let lines = || {
        let mut start = 0;
        memchr::memchr_iter(b'\n', bytes)
            .map(|end| end + 1)
            .chain((bytes.last() != Some(&b'\n')).then_some(bytes.len()))
            .map(move |end| {
                let line = &bytes[start..end];
                start = end;
                line
            })
    };
    let clean = memchr::memchr(b'\r', bytes).is_none() && lines().all(keep);
    let mut map = LineMap {
        runs: vec![(1, chunk.first_line)],
    };
    if clean {
        return (std::borrow::Cow::Borrowed(bytes), map, 0);
    }
    let mut text = Vec::with_capacity(bytes.len());
    let (mut kept, mut skipped, mut dropped_before) = (0u64, 0u64, false);
    map.runs.clear();
    for (i, line) in lines().enumerate() {
        if !keep(line) {
            if is_message(trim_line_end(line)) {
                skipped += 1;
            }
            dropped_before = true;
            continue;
        }
        kept += 1;
        if dropped_before || map.runs.is_empty() {
            map.runs.push((kept, chunk.first_line + i as u64));
            dropped_before = false;
        }
        text.extend_from_slice(trim_line_end(line));
        text.push(b'\n');
    }
    (std::borrow::Cow::Owned(text), map, skipped)
}
