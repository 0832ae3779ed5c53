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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    proptest! {
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
