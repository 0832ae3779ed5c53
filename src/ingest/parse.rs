//! Parsing one chunk's rows into launches, with the page's layout: the fast splitters
//! where every line is in ncu's form (a raw page's later rows only for the columns gpulint
//! reads), the csv crate otherwise. Workers run this off the thread that lints.

use super::chunks::{Chunk, LineMap, filter_lines};
use super::fields::{Row, SimpleRow, SparseRow, Wanted, split_simple, split_wanted};
use super::number::NumberStyle;
use super::row::{ChunkOut, RowCtx};
use super::{details, raw};
use crate::error::{Error, Result};

/// Where each cell of a row goes: the page's columns, told from the header.
pub(super) enum Layout {
    Raw(raw::RawLayout),
    Details(details::DetailsLayout),
}

/// Parses the rows of one chunk. `style` is `None` for the first chunk, whose cells
/// stay text until the style is known.
pub(super) fn parse_chunk(
    file: &str,
    layout: &Layout,
    chunk: &Chunk,
    style: Option<NumberStyle>,
    first: bool,
) -> ChunkOut {
    let (text, map, skipped) = filter_lines(chunk);
    let fresh = || ChunkOut {
        skipped,
        ..ChunkOut::default()
    };
    let mut out = fresh();
    let ctx = ChunkCtx {
        file,
        layout,
        map: &map,
        style,
        first,
    };
    if !parse_simple(&ctx, &text, &mut out) {
        out = fresh();
        parse_with_csv(&ctx, &text, &mut out);
    }
    // A raw-page row is a whole launch: resolve its metrics here, off the thread that
    // lints. Details-page launches may go on in the next chunk.
    if matches!(layout, Layout::Raw(_)) && style.is_some() {
        let mut warnings = Vec::new();
        out.finished = std::mem::take(&mut out.launches)
            .into_iter()
            .map(|p| super::finish_launch(p, &mut warnings))
            .collect();
        out.row_warnings.extend(warnings);
    }
    out
}

/// What the two row splitters share about the chunk they parse.
struct ChunkCtx<'a> {
    file: &'a str,
    layout: &'a Layout,
    map: &'a LineMap,
    /// `None` for the first chunk (see [`parse_chunk`]).
    style: Option<NumberStyle>,
    first: bool,
}

impl ChunkCtx<'_> {
    /// Parses one row, `index` counting the chunk's rows from 0 and `line` its line in
    /// the chunk's filtered text (from 1).
    fn row(&self, index: usize, line: u64, row: &impl Row, out: &mut ChunkOut) -> Result<()> {
        let ctx = RowCtx {
            file: self.file,
            line: self.map.original(line),
            style: self.style,
            first_row_of_file: self.first && index == 0,
        };
        match self.layout {
            Layout::Raw(l) => l.row(&ctx, row, out),
            Layout::Details(l) => l.row(&ctx, row, out),
        }
    }
}

/// The fast path: every line one row of simple fields. False, with `out` to be thrown
/// away, at the first line that is not.
fn parse_simple(ctx: &ChunkCtx, text: &[u8], out: &mut ChunkOut) -> bool {
    match ctx.layout {
        Layout::Raw(l) if !ctx.first => return parse_sparse(ctx, &l.wanted, text, out),
        _ => {}
    }
    let mut bounds = Vec::new();
    let mut start = 0;
    let ends =
        memchr::memchr_iter(b'\n', text).chain((text.last() != Some(&b'\n')).then_some(text.len()));
    for (index, end) in ends.enumerate() {
        let line = &text[start..end];
        start = end + 1;
        if !split_simple(line, &mut bounds) {
            return false;
        }
        let row = SimpleRow {
            line,
            bounds: &bounds,
        };
        if let Err(e) = ctx.row(index, index as u64 + 1, &row, out) {
            out.error = Some(e);
            return true;
        }
    }
    true
}

/// A raw page's rows after the first chunk (which holds the units row): split for the
/// columns gpulint reads only, each line's end found on the same pass.
fn parse_sparse(ctx: &ChunkCtx, wanted: &Wanted, text: &[u8], out: &mut ChunkOut) -> bool {
    let mut bounds = Vec::new();
    let mut start = 0;
    let mut index = 0;
    while start < text.len() {
        let Some((fields, len)) = split_wanted(&text[start..], wanted, &mut bounds) else {
            return false;
        };
        let row = SparseRow {
            line: &text[start..start + len],
            bounds: &bounds,
            wanted,
            fields,
        };
        if let Err(e) = ctx.row(index, index as u64 + 1, &row, out) {
            out.error = Some(e);
            return true;
        }
        start += len + 1;
        index += 1;
    }
    true
}

/// Any CSV the csv crate reads: escaped quotes, fields over several lines.
fn parse_with_csv(ctx: &ChunkCtx, text: &[u8], out: &mut ChunkOut) {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text);
    let mut record = csv::ByteRecord::new();
    let mut index = 0usize;
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let line = e.position().map_or(0, |p| ctx.map.original(p.line()));
                out.error = Some(Error::at(
                    ctx.file,
                    line,
                    None,
                    format!("malformed CSV: {e}"),
                ));
                break;
            }
        }
        let line = record.position().map_or(1, |p| p.line());
        index += 1;
        if let Err(e) = ctx.row(index - 1, line, &record, out) {
            out.error = Some(e);
            break;
        }
    }
}
