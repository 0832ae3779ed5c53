//! A `__shared__` array's declaration behind a line with bank conflicts, found on the
//! source page or in the file on disk, and the mechanical fix for a conflicted tile: its
//! rows padded by one word.

use super::{SourceBlock, SourceLine};

/// A `__shared__` array's declaration: where it is and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct Declaration {
    pub file: String,
    pub line: u64,
    pub text: String,
    pub name: String,
}

/// The `__shared__` declaration of an array that `line` indexes: among the page's lines
/// of the same file, else in the file itself when it is on disk.
pub fn shared_declaration(block: &SourceBlock, line: &SourceLine) -> Option<Declaration> {
    let declares = regex::Regex::new(r"__shared__\s+[\w:<>, ]*?(\w+)\s*\[").expect("valid");
    let indexed = |name: &str| {
        regex::Regex::new(&format!(r"\b{}\s*\[", regex::escape(name)))
            .is_ok_and(|r| r.is_match(&line.text))
    };
    let found = |file: &str, n: u64, text: &str| {
        let name = declares.captures(text)?.get(1)?.as_str().to_string();
        // A line read from disk is printed as the profile's text is: made printable.
        indexed(&name).then(|| Declaration {
            file: file.to_string(),
            line: n,
            text: crate::printable::printable(text.trim()).into(),
            name,
        })
    };
    first_in_file(block, line, found)
}

/// What `found` (file, line number, text) gives for the first line of `line`'s file that
/// gives something: among the page's lines of that file, else in the file itself when it
/// is on disk (a page may list only the lines with instructions).
pub fn first_in_file<T>(
    block: &SourceBlock,
    line: &SourceLine,
    found: impl Fn(&str, u64, &str) -> Option<T>,
) -> Option<T> {
    let in_page = (block.lines.iter())
        .filter(|l| l.file == line.file)
        .find_map(|l| found(&l.file, l.line, &l.text));
    in_page.or_else(|| {
        let text = std::fs::read_to_string(on_disk(&line.file)?).ok()?;
        text.lines()
            .enumerate()
            .find_map(|(i, t)| found(&line.file, i as u64 + 1, t))
    })
}

/// Where `text` starts on line `line` of `file` (1-based, in characters), when the file is
/// on this disk.
pub fn column_of_text(file: &str, line: u64, text: &str) -> Option<u64> {
    let contents = std::fs::read_to_string(on_disk(file)?).ok()?;
    let on_line = contents
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let at = on_line.find(text)?;
    Some(on_line[..at].chars().count() as u64 + 1)
}

/// Where a file the profile names is on this disk: as named, else the longest tail of its
/// path below the working directory (a profile made in another checkout of the same
/// repository names `/home/ci/repo/src/k.cu`; here it is `src/k.cu`).
pub fn on_disk(file: &str) -> Option<std::path::PathBuf> {
    let path = std::path::Path::new(file);
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    let parts: Vec<&std::ffi::OsStr> = path
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(p) => Some(p),
            _ => None,
        })
        .collect();
    (1..parts.len())
        .map(|skip| parts[skip..].iter().collect::<std::path::PathBuf>())
        .find(|tail| tail.is_file())
}

/// The mechanical fix for a bank-conflicted tile of two or more dimensions: one more word
/// per row of its last dimension, so that a column's elements fall in different banks
/// (`tile[32][32]` -> `tile[32][33]`). `None` for a 1D array, whose conflicts come from its
/// index, not its shape.
pub fn padded_declaration(decl: &Declaration) -> Option<String> {
    let dims = dimensions(decl)?;
    let last = dims.last().filter(|_| dims.len() >= 2)?.clone();
    let width = decl.text[last.clone()].trim();
    let padded = match width.parse::<u64>() {
        Ok(n) => (n + 1).to_string(),
        Err(_) => format!("{width} + 1"),
    };
    Some(format!(
        "{}{padded}{}",
        &decl.text[..last.start],
        &decl.text[last.end..]
    ))
}

/// Where each of the declared array's dimensions is in its declaration's text (the text
/// between each pair of brackets after its name).
pub fn dimensions(decl: &Declaration) -> Option<Vec<std::ops::Range<usize>>> {
    let name = regex::Regex::new(&format!(r"\b{}\s*", regex::escape(&decl.name))).ok()?;
    let mut at = name.find(&decl.text)?.end();
    let bracket = regex::Regex::new(r"^\s*\[([^\]]*)\]").expect("valid");
    let mut dims = Vec::new();
    while let Some(c) = bracket.captures(&decl.text[at..]) {
        let inner = c.get(1)?;
        dims.push(at + inner.start()..at + inner.end());
        at += c.get(0)?.end();
    }
    Some(dims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::source::{Counter, describe_counter};

    fn line(n: u64, text: &str, conflicts: f64) -> SourceLine {
        SourceLine {
            shared_conflicts: conflicts,
            shared_accesses: conflicts,
            ..SourceLine::at("/src/t.cu", n, text.into())
        }
    }

    #[test]
    fn a_conflicted_tile_is_found_by_the_line_that_reads_it_and_padded() {
        let block = SourceBlock {
            file: "/src/t.cu".into(),
            function: "t(const float *, float *, int)".into(),
            lines: vec![
                line(3, "__shared__ float other[64];", 0.0),
                line(4, "__shared__ float tile[TILE][TILE];", 0.0),
                line(9, "tile[threadIdx.y][threadIdx.x] = in[i];", 30.0),
                line(12, "out[j] = tile[threadIdx.x][threadIdx.y + k];", 970.0),
            ],
            stalls_over_run: false,
        };
        let (note, at) = describe_counter(&block, Counter::SharedConflicts).unwrap();
        assert_eq!(at.line, 12);
        assert!(
            note.starts_with("lines with the bank conflicts: t.cu:12 (97% of conflicts)"),
            "{note}"
        );
        let decl = shared_declaration(&block, at).unwrap();
        assert_eq!((decl.line, decl.name.as_str()), (4, "tile"));
        assert_eq!(
            padded_declaration(&decl).as_deref(),
            Some("__shared__ float tile[TILE][TILE + 1];")
        );
        let literal = Declaration {
            text: "__shared__ double t2[32][32];".into(),
            name: "t2".into(),
            ..decl.clone()
        };
        assert_eq!(
            padded_declaration(&literal).as_deref(),
            Some("__shared__ double t2[32][33];")
        );
        let cube = Declaration {
            text: "__shared__ float c[4][32][32];".into(),
            name: "c".into(),
            ..decl.clone()
        };
        assert_eq!(
            padded_declaration(&cube).as_deref(),
            Some("__shared__ float c[4][32][33];")
        );
        // A 1D array's conflicts come from its index: no edit.
        let flat = Declaration {
            text: "__shared__ int sdata[256];".into(),
            name: "sdata".into(),
            ..decl
        };
        assert_eq!(padded_declaration(&flat), None);
        // No line with conflicts: nothing to name.
        let quiet = SourceBlock {
            lines: vec![line(4, "__shared__ float tile[32][33];", 0.0)],
            ..block.clone()
        };
        assert!(describe_counter(&quiet, Counter::SharedConflicts).is_none());
    }

    #[test]
    fn a_file_from_another_checkout_is_found_by_its_tail() {
        // Unit tests run in the crate's folder.
        assert_eq!(
            on_disk("/home/ci/elsewhere/gpulint/samples/corpus/source_lines.cu"),
            Some(std::path::PathBuf::from("samples/corpus/source_lines.cu"))
        );
        assert_eq!(on_disk("/home/ci/elsewhere/no_such_file.cu"), None);
    }

    #[test]
    fn a_declarations_text_is_made_printable() {
        let block = SourceBlock {
            file: "/src/t.cu".into(),
            function: "t()".into(),
            lines: vec![
                line(4, "__shared__ float tile[32][32]; // \u{1b}[2J", 0.0),
                line(9, "x = tile[threadIdx.x][0];", 10.0),
            ],
            stalls_over_run: false,
        };
        let decl = shared_declaration(&block, &block.lines[1]).unwrap();
        assert!(!decl.text.contains('\u{1b}'), "{:?}", decl.text);
    }
}
