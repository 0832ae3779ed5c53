//! Streaming ingestion: an export is read in chunks cut at line ends, so memory stays
//! bounded however many launches it holds. With more than one job, a reader thread
//! cuts chunks, workers parse them, and the calling thread puts the launches back in
//! file order before handing them on.

use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use super::assemble::Assembler;
use super::chunks::{Chunk, ChunkReader};
use super::number::NumberStyle;
use super::parse::{Layout, parse_chunk};
pub(crate) use super::row::Parsed;
use super::row::{ChunkOut, convert_pending, decide_style, style_note};
use super::start::{HeaderLine, Start, check_start, find_header, parse_header};
use super::{Launch, Page, details, gui, raw, text_output};
use crate::error::{Error, Result};

/// Bytes per chunk. The first chunk is four times larger: the number style and the raw
/// page's units row come from it.
pub const CHUNK_BYTES: usize = 1 << 20;

/// How to read.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// Threads that parse chunks; 1 parses on the calling thread.
    pub jobs: usize,
    /// Shows bytes read and the rate on stderr.
    pub progress: Option<Progress>,
    /// Bytes per chunk (`CHUNK_BYTES`; tests use small ones to cut many seams).
    pub chunk_bytes: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            jobs: 1,
            progress: None,
            chunk_bytes: CHUNK_BYTES,
        }
    }
}

/// When to show progress.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Inputs at least this large get a bar.
    pub min_bytes: u64,
}

/// What a streamed export was, besides its launches.
#[derive(Debug, Clone)]
pub struct Source {
    pub page: Page,
    pub notes: Vec<String>,
}

/// Reads an export from `input` and hands each launch, in file order, to `sink`.
pub fn read(
    file: &str,
    input: impl Read + Send,
    size: Option<u64>,
    opts: &ReadOptions,
    sink: &mut dyn FnMut(Launch) -> Result<()>,
) -> Result<Source> {
    // Names in a profile are data from elsewhere: made printable once, here, before any
    // report sees them.
    let mut printable_sink = |mut l: Launch| {
        l.make_printable();
        sink(l)
    };
    let mut source = read_any(file, input, size, opts, &mut printable_sink)?;
    source
        .notes
        .iter_mut()
        .for_each(crate::printable::make_printable);
    Ok(source)
}

fn read_any(
    file: &str,
    input: impl Read + Send,
    size: Option<u64>,
    opts: &ReadOptions,
    sink: &mut dyn FnMut(Launch) -> Result<()>,
) -> Result<Source> {
    // A small buffer: a chunk's bulk is read straight into it, and only what the last
    // line's end takes (`read_until`) passes through here. A buffer as large as a chunk
    // copied every byte twice.
    let mut input = std::io::BufReader::with_capacity(64 * 1024, input);
    if let Some(text) = utf16_text(file, &mut input)? {
        let size = Some(text.len() as u64);
        let input = std::io::BufReader::new(std::io::Cursor::new(text));
        return read_text(file, input, size, opts, sink);
    }
    if super::trace::is_trace(peek(file, &mut input)?) {
        return read_trace(file, input, sink);
    }
    read_text(file, input, size, opts, sink)
}

fn peek<'a>(file: &str, input: &'a mut impl BufRead) -> Result<&'a [u8]> {
    input
        .fill_buf()
        .map_err(|e| Error::in_file(file, format!("cannot read: {e}")))
}

/// A launch trace kept by `gpulint run --save-trace`: every launch's shape and duration,
/// and the object that launched it (small: read whole).
fn read_trace(
    file: &str,
    mut input: impl Read,
    sink: &mut dyn FnMut(Launch) -> Result<()>,
) -> Result<Source> {
    let mut text = String::new();
    input
        .read_to_string(&mut text)
        .map_err(|e| Error::in_file(file, format!("cannot read: {e}")))?;
    let profile = super::trace::read_owned(text, file)?;
    for launch in profile.launches {
        sink(launch)?;
    }
    Ok(Source {
        page: Page::Trace,
        notes: profile.notes,
    })
}

/// Windows PowerShell writes `ncu ... > out.csv` as UTF-16 with a byte-order mark:
/// such a file is decoded to UTF-8 whole (exports this size fit in memory).
fn utf16_text(file: &str, input: &mut impl BufRead) -> Result<Option<Vec<u8>>> {
    let head = input
        .fill_buf()
        .map_err(|e| Error::in_file(file, format!("cannot read: {e}")))?;
    let little_endian = match head {
        [0xFF, 0xFE, ..] => true,
        [0xFE, 0xFF, ..] => false,
        _ => return Ok(None),
    };
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|e| Error::in_file(file, format!("cannot read: {e}")))?;
    if bytes.len() % 2 != 0 {
        return Err(Error::in_file(
            file,
            format!(
                "the file starts with a UTF-16 byte-order mark but has an odd length ({} bytes); \
                 it was cut short or is not UTF-16",
                bytes.len()
            ),
        ));
    }
    let units = bytes[2..].chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if little_endian {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    let mut text = String::with_capacity(bytes.len() / 2);
    let mut unit = 0;
    for decoded in char::decode_utf16(units) {
        match decoded {
            Ok(c) => {
                text.push(c);
                unit += c.len_utf16();
            }
            Err(e) => {
                return Err(Error::in_file(
                    file,
                    format!(
                        "the file starts with a UTF-16 byte-order mark but byte {} is not valid \
                         UTF-16 (unpaired surrogate {:#06x})",
                        2 + 2 * unit,
                        e.unpaired_surrogate()
                    ),
                ));
            }
        }
    }
    Ok(Some(text.into_bytes()))
}

/// [`read`] once the input is UTF-8 (or ASCII).
fn read_text<R: BufRead + Send>(
    file: &str,
    mut input: R,
    size: Option<u64>,
    opts: &ReadOptions,
    sink: &mut dyn FnMut(Launch) -> Result<()>,
) -> Result<Source> {
    let chunk_bytes = opts.chunk_bytes.max(1);
    check_start(file, &mut input)?;
    let found = match find_header(file, &mut input)? {
        Start::Csv(found) if gui::is_transposed_header(&found.text) => {
            return read_transposed(file, found, input, opts, sink);
        }
        Start::Csv(found) => found,
        Start::Text {
            line,
            text: first,
            skipped,
            errors_note,
        } => return read_text_output(file, (line, &first), (skipped, errors_note), input, sink),
    };
    let (header_line, mut skipped) = (found.line, found.skipped);
    let mut notes: Vec<String> = found.errors_note.clone().into_iter().collect();
    let (mut layout, page) = page_layout(file, &found, &mut notes)?;

    let bar = opts
        .progress
        .filter(|p| size.is_some_and(|s| s >= p.min_bytes))
        .map(|_| ClearOnDrop(progress_bar(size.unwrap_or(0))));
    if let Some(b) = &bar {
        b.0.set_position(found.bytes);
    }
    let mut chunks = ChunkReader {
        input,
        next_line: header_line + 1,
        seq: 0,
        bar: bar.as_ref().map(|b| b.0.clone()),
    };
    let mut state = Assembler::new(sink);

    let (style, first_skipped) = first_chunk(
        file,
        &mut layout,
        &mut chunks,
        4 * chunk_bytes,
        &mut state,
        &mut notes,
    )?;
    skipped += first_skipped;

    let rest = if opts.jobs <= 1 {
        read_serial(file, &layout, style, chunk_bytes, &mut chunks, &mut state)
    } else {
        read_parallel(
            file,
            &layout,
            style,
            (opts.jobs, chunk_bytes),
            chunks,
            &mut state,
        )
    };
    drop(bar);
    skipped += rest?;
    state.flush()?;

    if state.launches == 0 {
        return Err(Error::in_file(
            file,
            "the export has a header but no kernel launch rows",
        ));
    }
    state.closing_notes(&mut notes);
    notes.extend(skipped_lines_note(skipped));
    Ok(Source { page, notes })
}

/// A GUI export the user transposed (one column per launch): read whole, turned back,
/// and read as any other. Each launch points at the `ID` row; an error's line and column
/// are given as the file has them.
fn read_transposed(
    file: &str,
    found: HeaderLine,
    mut input: impl BufRead,
    opts: &ReadOptions,
    sink: &mut dyn FnMut(Launch) -> Result<()>,
) -> Result<Source> {
    let mut bytes = found.text.clone();
    bytes.push(b'\n');
    input
        .read_to_end(&mut bytes)
        .map_err(|e| Error::in_file(file, format!("cannot read: {e}")))?;
    let turned = gui::transpose(file, found.line, &bytes)?;
    let id_row = found.line;
    let mut source = read_text(file, &turned[..], None, opts, &mut |mut launch| {
        launch.line = id_row;
        sink(launch)
    })
    .map_err(|e| gui::turned_back_error(e, id_row))?;
    source.notes.push(
        "the export is transposed (one column per launch), as the GUI's Transpose button \
         writes it; it was read turned back"
            .into(),
    );
    source.notes.extend(found.errors_note);
    source.notes.extend(skipped_lines_note(found.skipped));
    Ok(source)
}

/// ncu's text output, from its first launch header on (see [`text_output`]).
fn read_text_output(
    file: &str,
    first: (u64, &str),
    (skipped, errors_note): (u64, Option<String>),
    input: impl BufRead,
    sink: &mut dyn FnMut(Launch) -> Result<()>,
) -> Result<Source> {
    let (mut notes, _) = text_output::read(file, first, skipped, input, sink)?;
    notes.extend(errors_note);
    Ok(Source {
        page: Page::Text,
        notes,
    })
}

/// Which page the header is, and where each of its columns goes.
fn page_layout(file: &str, found: &HeaderLine, notes: &mut Vec<String>) -> Result<(Layout, Page)> {
    let header_line = found.line;
    let header = &parse_header(file, header_line, &found.text)?;
    if gui::is_header(&found.text) {
        let (layout, page) = gui::layout(file, header_line, header, notes)?;
        Ok((Layout::Raw(layout), page))
    } else if header.iter().any(|h| h == b"Metric Name") {
        if header.iter().any(|h| h == b"Invocations") {
            notes.push(super::row::summary_note(None));
        }
        let layout = details::layout(file, header_line, header)?;
        Ok((Layout::Details(layout), Page::Details))
    } else {
        let layout = raw::layout(file, header_line, header, notes)?;
        Ok((Layout::Raw(layout), Page::Raw))
    }
}

/// The first chunk, on the calling thread: it decides the number style and holds the
/// raw page's units row. Returns the style and the lines it skipped.
fn first_chunk<R: BufRead>(
    file: &str,
    layout: &mut Layout,
    chunks: &mut ChunkReader<R>,
    bytes: usize,
    state: &mut Assembler,
    notes: &mut Vec<String>,
) -> Result<(NumberStyle, u64)> {
    let first = chunks.next_chunk(file, bytes)?;
    let Some(first) = first else {
        return Err(Error::in_file(
            file,
            "the export has a header but no kernel launch rows",
        ));
    };
    let mut out = parse_chunk(file, layout, &first, None, true);
    if let Some(e) = out.error.take() {
        return Err(e);
    }
    let style = decide_style(&out.launches);
    notes.extend(style_note(style));
    if let (Layout::Raw(r), Some(units)) = (layout, out.units.take()) {
        r.set_units(&units);
    }
    for p in &mut out.launches {
        convert_pending(file, p, style)?;
    }
    notes.append(&mut out.notes);
    let skipped = out.skipped;
    state.take(out)?;
    Ok((style, skipped))
}

/// The note for the lines of ncu messages and program output read past, if any.
fn skipped_lines_note(skipped: u64) -> Option<String> {
    (skipped > 0).then(|| {
        format!("skipped {skipped} line(s) of ncu messages and program output around the CSV")
    })
}

/// Takes the bar off the terminal however reading ends, errors included.
struct ClearOnDrop(indicatif::ProgressBar);

impl Drop for ClearOnDrop {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

fn progress_bar(size: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(size),
        indicatif::ProgressDrawTarget::stderr_with_hz(4),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "gpulint: {bar:20} {binary_bytes}/{binary_total_bytes}, {binary_bytes_per_sec}, {eta} left",
        )
        .expect("valid template"),
    );
    bar
}

fn read_serial<R: BufRead>(
    file: &str,
    layout: &Layout,
    style: NumberStyle,
    chunk_bytes: usize,
    chunks: &mut ChunkReader<R>,
    state: &mut Assembler,
) -> Result<u64> {
    let mut skipped = 0;
    while let Some(chunk) = chunks.next_chunk(file, chunk_bytes)? {
        let out = parse_chunk(file, layout, &chunk, Some(style), false);
        skipped += out.skipped;
        state.take(out)?;
    }
    Ok(skipped)
}

/// A reader thread cuts chunks, `jobs` workers parse them, and this thread puts the
/// results back in order. Channels are bounded, so only a few chunks are in memory.
fn read_parallel<R: BufRead + Send>(
    file: &str,
    layout: &Layout,
    style: NumberStyle,
    (jobs, chunk_bytes): (usize, usize),
    mut chunks: ChunkReader<R>,
    state: &mut Assembler,
) -> Result<u64> {
    std::thread::scope(|scope| {
        let (chunk_tx, chunk_rx) = mpsc::sync_channel::<(u64, Result<Chunk>)>(jobs);
        let chunk_rx = Arc::new(Mutex::new(chunk_rx));
        let (out_tx, out_rx) = mpsc::sync_channel::<(u64, ChunkOut)>(jobs * 2);
        scope.spawn(move || {
            loop {
                let seq = chunks.seq;
                let (next, done) = match chunks.next_chunk(file, chunk_bytes) {
                    Ok(Some(c)) => (Ok(c), false),
                    Ok(None) => return,
                    Err(e) => (Err(e), true),
                };
                // A closed channel means the consumer stopped on an error.
                if chunk_tx.send((seq, next)).is_err() || done {
                    return;
                }
            }
        });
        for _ in 0..jobs {
            let chunk_rx = Arc::clone(&chunk_rx);
            let out_tx = out_tx.clone();
            scope.spawn(move || {
                loop {
                    let Ok(Ok((seq, next))) = chunk_rx.lock().map(|rx| rx.recv()) else {
                        return;
                    };
                    let out = match next {
                        Ok(chunk) => parse_chunk(file, layout, &chunk, Some(style), false),
                        Err(e) => ChunkOut {
                            error: Some(e),
                            ..ChunkOut::default()
                        },
                    };
                    if out_tx.send((seq, out)).is_err() {
                        return;
                    }
                }
            });
        }
        // Only the threads hold channel ends now, so an early return below unblocks them.
        drop((chunk_rx, out_tx));
        let out_rx = out_rx;
        // The first chunk was sequence 0 and is taken already.
        let mut next = 1u64;
        let mut waiting: BTreeMap<u64, ChunkOut> = BTreeMap::new();
        let mut skipped = 0;
        for (seq, out) in &out_rx {
            waiting.insert(seq, out);
            while let Some(out) = waiting.remove(&next) {
                next += 1;
                skipped += out.skipped;
                state.take(out)?;
            }
        }
        Ok(skipped)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_bar_ends_at_the_file_size() {
        let text = b"program output\n\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n\"1\",\"k\"\n\"2\",\"k\"";
        let mut input = std::io::BufReader::new(&text[..]);
        let Ok(Start::Csv(found)) = find_header("f", &mut input) else {
            panic!("a CSV header")
        };
        assert_eq!((found.line, found.skipped), (2, 1));
        let bar = indicatif::ProgressBar::hidden();
        bar.set_position(found.bytes);
        let mut chunks = ChunkReader {
            input,
            next_line: found.line + 1,
            seq: 0,
            bar: Some(bar.clone()),
        };
        let mut firsts = Vec::new();
        while let Some(chunk) = chunks.next_chunk("f", 4).unwrap() {
            firsts.push(chunk.first_line);
        }
        assert_eq!(bar.position(), text.len() as u64);
        // Chunks of 4 bytes grow to whole lines: one line each, numbered from the file.
        assert_eq!(firsts, vec![3, 4, 5]);
    }
}
