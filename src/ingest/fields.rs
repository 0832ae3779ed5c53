//! Splitting rows into fields. ncu writes every field in double quotes, one row per
//! line, with no quotes inside: such a line splits with `memchr` several times faster
//! than a general CSV tokenizer. A chunk with any other line goes to the csv crate.

/// A row's fields, from either splitter.
pub(crate) trait Row {
    fn field(&self, i: usize) -> Option<&[u8]>;
    fn count(&self) -> usize;
    /// A field as text, empty when the column is absent or the row too short.
    fn text(&self, column: Option<usize>) -> std::borrow::Cow<'_, str> {
        column
            .and_then(|c| self.field(c))
            .map(super::text)
            .unwrap_or_default()
    }
    fn to_record(&self) -> csv::ByteRecord {
        (0..self.count()).filter_map(|i| self.field(i)).collect()
    }
}

impl Row for csv::ByteRecord {
    fn field(&self, i: usize) -> Option<&[u8]> {
        self.get(i)
    }
    fn count(&self) -> usize {
        self.len()
    }
}

/// One line, split by [`split_simple`].
pub(crate) struct SimpleRow<'a> {
    pub line: &'a [u8],
    pub bounds: &'a [(usize, usize)],
}

impl Row for SimpleRow<'_> {
    fn field(&self, i: usize) -> Option<&[u8]> {
        self.bounds.get(i).map(|&(a, b)| &self.line[a..b])
    }
    fn count(&self) -> usize {
        self.bounds.len()
    }
}

/// Splits a line (without its line end) into field bounds, if it is simple: fields
/// either quoted with no quote inside, or unquoted with no quote at all. Returns false
/// for anything else (an escaped quote, a field that goes on past the line end), which
/// the caller hands to the csv crate.
pub(crate) fn split_simple(line: &[u8], bounds: &mut Vec<(usize, usize)>) -> bool {
    bounds.clear();
    let n = line.len();
    if n == 0 {
        return false;
    }
    let mut i = 0;
    loop {
        let end = if line.get(i) == Some(&b'"') {
            let start = i + 1;
            let Some(len) = memchr::memchr(b'"', &line[start..]) else {
                return false;
            };
            bounds.push((start, start + len));
            start + len + 1
        } else {
            match memchr::memchr2(b',', b'"', &line[i..]) {
                Some(len) if line[i + len] == b'"' => return false,
                Some(len) => {
                    bounds.push((i, i + len));
                    i + len
                }
                None => {
                    bounds.push((i, n));
                    return true;
                }
            }
        };
        // After a field: the line ends, or a comma starts the next field.
        match line.get(end) {
            None => return true,
            Some(b',') => {
                i = end + 1;
                if i == n {
                    bounds.push((n, n));
                    return true;
                }
            }
            Some(_) => return false,
        }
    }
}

/// The columns a raw-page row is read for: the launch's ID, name and shape, and the
/// metrics the rules use (about 50 of a `--set full` row's 2,238).
pub(crate) struct Wanted {
    /// Sorted column numbers.
    columns: Vec<usize>,
    /// Per column, its place in `columns`, or `u32::MAX` for a column not read.
    slot: Vec<u32>,
}

impl Wanted {
    pub(crate) fn new(mut columns: Vec<usize>) -> Wanted {
        columns.sort_unstable();
        columns.dedup();
        let mut slot = vec![u32::MAX; columns.last().map_or(0, |c| c + 1)];
        for (i, &c) in columns.iter().enumerate() {
            slot[c] = i as u32;
        }
        Wanted { columns, slot }
    }
}

/// One line, split by [`split_wanted`]: only the wanted fields have bounds.
pub(crate) struct SparseRow<'a> {
    pub line: &'a [u8],
    /// Per wanted column, its field's bounds (when the row is long enough to have it).
    pub bounds: &'a [(usize, usize)],
    pub wanted: &'a Wanted,
    pub fields: usize,
}

impl Row for SparseRow<'_> {
    fn field(&self, i: usize) -> Option<&[u8]> {
        let slot = *self.wanted.slot.get(i)? as usize;
        (i < self.fields).then(|| {
            let (a, b) = self.bounds[slot];
            &self.line[a..b]
        })
    }
    fn count(&self) -> usize {
        self.fields
    }
    fn to_record(&self) -> csv::ByteRecord {
        unreachable!("a sparse row is never the units row: the first chunk is split whole")
    }
}

/// Bit masks of the quotes, commas and line ends in 64 bytes, 16 at a time in vector
/// registers (`wide` picks SSE2, NEON or plain code for the target).
#[inline]
fn masks(block: &[u8; 64]) -> (u64, u64, u64) {
    use wide::u8x16;
    let (quote, comma, newline) = (u8x16::splat(b'"'), u8x16::splat(b','), u8x16::splat(b'\n'));
    let (mut q, mut c, mut n) = (0u64, 0u64, 0u64);
    for (k, part) in block.chunks_exact(16).enumerate() {
        let v = u8x16::from(<[u8; 16]>::try_from(part).expect("16 bytes"));
        q |= (v.simd_eq(quote).to_bitmask() as u64) << (16 * k);
        c |= (v.simd_eq(comma).to_bitmask() as u64) << (16 * k);
        n |= (v.simd_eq(newline).to_bitmask() as u64) << (16 * k);
    }
    (q, c, n)
}

/// Bit i set when an odd number of bits up to and including i are set.
#[inline]
fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

/// Splits the first line of `text` (up to its `\n`, or all of it) when it is all quoted
/// fields with no quote inside (`"a","b",...`, as ncu writes), 64 bytes at a time,
/// keeping the bounds of the `wanted` fields only: what [`split_simple`] does field by
/// field, without visiting the 2,000 fields no rule reads, and finding the line's end on
/// the same pass. Returns the number of fields and the line's length (without its `\n`),
/// or `None` for any other line (the caller falls back).
pub(crate) fn split_wanted(
    text: &[u8],
    wanted: &Wanted,
    bounds: &mut Vec<(usize, usize)>,
) -> Option<(usize, usize)> {
    bounds.clear();
    bounds.resize(wanted.columns.len(), (0, 0));
    if text.first() != Some(&b'"') {
        return None;
    }
    let mut next = 0; // the next wanted column, by its place in `wanted.columns`
    let mut fields = 0; // opening quotes before this block
    // Carried from the previous block: inside a field, a closing quote or a separating
    // comma in its last byte (the line's start counts as a comma).
    let (mut inside, mut close_before, mut comma_before) = (0u64, 0u64, 1u64);
    let mut block = [0u8; 64];
    let mut line_len = text.len();
    for (b, chunk) in text.chunks(64).enumerate() {
        let mut valid = if chunk.len() == 64 {
            block.copy_from_slice(chunk);
            !0
        } else {
            block = [0; 64];
            block[..chunk.len()].copy_from_slice(chunk);
            (1u64 << chunk.len()) - 1
        };
        let (quotes, commas, newlines) = masks(&block);
        let ends_here = newlines & valid != 0;
        if ends_here {
            let at = (newlines & valid).trailing_zeros();
            valid = (1u64 << at) - 1;
            line_len = b * 64 + at as usize;
        }
        let quotes = quotes & valid;
        // Set from an opening quote up to, not including, its closing quote.
        let open_span = (prefix_xor(quotes) ^ inside) & valid;
        let opening = quotes & open_span;
        let closing = quotes & !open_span;
        let outside = !open_span & !quotes & valid;
        // Outside fields: only commas, each right after a closing quote; and every
        // opening quote right after a comma. Anything else is not ncu's form.
        if outside & !commas != 0
            || outside & !((closing << 1) | close_before) != 0
            || opening & !((outside << 1) | comma_before) != 0
        {
            return None;
        }
        let in_block = opening.count_ones() as usize;
        while next < wanted.columns.len() && wanted.columns[next] < fields + in_block {
            let mut bits = opening;
            for _ in 0..wanted.columns[next] - fields {
                bits &= bits - 1;
            }
            let start = b * 64 + bits.trailing_zeros() as usize + 1;
            let end = start + memchr::memchr(b'"', &text[start..])?;
            bounds[next] = (start, end);
            next += 1;
        }
        fields += in_block;
        inside = ((open_span >> 63) & 1).wrapping_neg();
        close_before = closing >> 63;
        comma_before = outside >> 63;
        if ends_here {
            break;
        }
    }
    // The line ends after a closing quote, outside every field.
    let ends_closed = line_len >= 2 && text[line_len - 1] == b'"' && inside == 0;
    ends_closed.then_some((fields, line_len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{any, prop_assert_eq, proptest};

    fn by_csv(line: &[u8]) -> Vec<Vec<u8>> {
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(line);
        let mut rec = csv::ByteRecord::new();
        if !r.read_byte_record(&mut rec).unwrap() {
            return Vec::new();
        }
        rec.iter().map(<[u8]>::to_vec).collect()
    }

    fn by_simple(line: &[u8]) -> Option<Vec<Vec<u8>>> {
        let mut bounds = Vec::new();
        split_simple(line, &mut bounds)
            .then(|| bounds.iter().map(|&(a, b)| line[a..b].to_vec()).collect())
    }

    #[test]
    fn ncu_rows_are_simple() {
        let line =
            br#""0","1104","zoo","copy(const float *, float *)","(256, 1, 1)","","8,388,608""#;
        let got = by_simple(line).expect("simple");
        assert_eq!(got, by_csv(line));
        assert_eq!(got[3], b"copy(const float *, float *)");
        assert_eq!(got[5], b"");
        assert_eq!(by_simple(b"a,,b,").unwrap(), by_csv(b"a,,b,"));
    }

    #[test]
    fn anything_else_is_left_to_the_csv_crate() {
        for line in [
            &br#""a""b",c"#[..],
            br#""unterminated,x"#,
            br#"a"b,c"#,
            br#""a"x,b"#,
        ] {
            assert_eq!(by_simple(line), None, "{}", String::from_utf8_lossy(line));
        }
    }

    fn by_wanted(line: &[u8], columns: &[usize]) -> Option<(usize, Vec<Option<Vec<u8>>>)> {
        let wanted = Wanted::new(columns.to_vec());
        let mut bounds = Vec::new();
        let (fields, len) = split_wanted(line, &wanted, &mut bounds)?;
        assert_eq!(len, line.len());
        let row = SparseRow {
            line,
            bounds: &bounds,
            wanted: &wanted,
            fields,
        };
        Some((
            fields,
            columns
                .iter()
                .map(|c| row.field(*c).map(<[u8]>::to_vec))
                .collect(),
        ))
    }

    #[test]
    fn wanted_fields_of_an_ncu_row() {
        let line =
            br#""0","1104","zoo","copy(const float *, float *)","(256, 1, 1)","","8,388,608""#;
        let (fields, got) = by_wanted(line, &[6, 3, 5, 9]).expect("ncu's form");
        assert_eq!(fields, 7);
        let want: Vec<Option<&[u8]>> = vec![
            Some(b"8,388,608"),
            Some(b"copy(const float *, float *)"),
            Some(b""),
            None,
        ];
        assert_eq!(
            got,
            want.iter()
                .map(|f| f.map(<[u8]>::to_vec))
                .collect::<Vec<_>>()
        );
        // A row far longer than a block, its wanted fields across block seams.
        let long: Vec<String> = (0..300)
            .map(|i| format!("\"{}\"", "x".repeat(i % 70)))
            .collect();
        let line = long.join(",");
        let (fields, got) = by_wanted(line.as_bytes(), &[0, 63, 64, 150, 299]).unwrap();
        assert_eq!(fields, 300);
        for (c, f) in [0, 63, 64, 150, 299].iter().zip(got) {
            assert_eq!(f.unwrap(), "x".repeat(c % 70).into_bytes());
        }
    }

    #[test]
    fn a_line_ends_at_its_line_end() {
        let wanted = Wanted::new(vec![0, 1]);
        let mut bounds = Vec::new();
        for first in [
            r#""a","bc""#.to_string(),
            format!(r#""{}","b""#, "x".repeat(70)),
        ] {
            let text = format!("{first}\n\"d\",\"e\"\n");
            let (fields, len) = split_wanted(text.as_bytes(), &wanted, &mut bounds).unwrap();
            assert_eq!((fields, len), (2, first.len()));
            let rest = &text.as_bytes()[len + 1..];
            assert_eq!(split_wanted(rest, &wanted, &mut bounds), Some((2, 7)));
        }
        // A field may not run on past the line's end.
        assert_eq!(
            split_wanted(b"\"a\",\"b\n\",\"c\"", &wanted, &mut bounds),
            None
        );
    }

    #[test]
    fn anything_but_quoted_fields_is_declined() {
        for line in [
            &br#""a""b","c""#[..],
            br#""a",b"#,
            br#"a,"b""#,
            br#""a",,"b""#,
            br#""a","#,
            br#""a" ,"b""#,
            br#""unterminated,"x"#,
            br#""""#.repeat(40).as_slice(),
            b"",
        ] {
            assert_eq!(
                by_wanted(line, &[0, 1]),
                None,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    proptest! {
        /// Where the wanted-field splitter takes a line, its fields are the csv crate's.
        #[test]
        fn wanted_fields_agree_with_the_csv_crate(
            fields in proptest::collection::vec("[a-z ,\"]{0,40}", 1..12),
            quote in any::<bool>(),
            columns in proptest::collection::vec(0usize..14, 0..6),
        ) {
            let line = fields
                .iter()
                .map(|f| if quote { format!("\"{f}\"") } else { f.clone() })
                .collect::<Vec<_>>()
                .join(",");
            if let Some((count, got)) = by_wanted(line.as_bytes(), &columns) {
                let csv = by_csv(line.as_bytes());
                prop_assert_eq!(count, csv.len());
                for (c, f) in columns.iter().zip(got) {
                    prop_assert_eq!(f, csv.get(*c).cloned());
                }
            }
        }

        /// ncu's own form is always taken.
        #[test]
        fn quoted_rows_are_always_taken(
            fields in proptest::collection::vec("[a-z0-9 ,.()*]{0,90}", 1..40),
            columns in proptest::collection::vec(0usize..45, 0..8),
        ) {
            let line = fields.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(",");
            let (count, got) = by_wanted(line.as_bytes(), &columns).expect("ncu's form");
            prop_assert_eq!(count, fields.len());
            for (c, f) in columns.iter().zip(got) {
                prop_assert_eq!(f, fields.get(*c).map(|f| f.clone().into_bytes()));
            }
        }

        /// Where the fast splitter takes a line, it reads what the csv crate reads.
        #[test]
        fn agrees_with_the_csv_crate(fields in proptest::collection::vec("[a-z ,\"]{0,6}", 1..8), quote in any::<bool>()) {
            let line = fields
                .iter()
                .map(|f| if quote { format!("\"{f}\"") } else { f.clone() })
                .collect::<Vec<_>>()
                .join(",");
            if let Some(got) = by_simple(line.as_bytes()) {
                prop_assert_eq!(got, by_csv(line.as_bytes()));
            }
        }

        #[test]
        fn quoted_fields_without_quotes_are_always_simple(fields in proptest::collection::vec("[a-z0-9 ,.()*]{0,12}", 1..20)) {
            let line = fields.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(",");
            let got = by_simple(line.as_bytes());
            prop_assert_eq!(got, Some(by_csv(line.as_bytes())));
        }
    }
}
