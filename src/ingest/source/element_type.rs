//! The declaration of a struct whose accesses the compiler split (split-load), found by the
//! kernel's template arguments and parameter types, and the fix as an edit: the type
//! declared `__align__(N)`.

use std::sync::LazyLock;

use regex::Regex;

use super::declaration::{Declaration, first_in_file};
use super::{SourceBlock, SourceLine};

/// Words of a kernel's signature that name no user type.
const NOT_A_TYPE: [&str; 18] = [
    "void",
    "const",
    "volatile",
    "unsigned",
    "signed",
    "int",
    "char",
    "short",
    "long",
    "float",
    "double",
    "bool",
    "size_t",
    "std",
    "restrict",
    "__restrict__",
    "struct",
    "class",
];

/// The user types a kernel's demangled name mentions, template arguments first, then its
/// parameters' (`copy<Rgb8>(const T1 *, T1 *, unsigned int)` gives `Rgb8`; `shift(const
/// Point *, Point *, int)` gives `Point`).
pub fn named_types(kernel: &str) -> Vec<String> {
    static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z_]\w*").expect("valid"));
    static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^T\d*$").expect("valid"));
    let (word, placeholder) = (&*WORD, &*PLACEHOLDER);
    let (template, params) = match (kernel.find('<'), kernel.rfind('(')) {
        (Some(lt), Some(paren)) if lt < paren => (&kernel[lt..paren], &kernel[paren..]),
        (_, Some(paren)) => ("", &kernel[paren..]),
        _ => ("", ""),
    };
    let mut types: Vec<String> = Vec::new();
    for w in word.find_iter(template).chain(word.find_iter(params)) {
        let w = w.as_str();
        let keyword = NOT_A_TYPE.contains(&w) || w.starts_with("int") || w.starts_with("uint");
        if !keyword && !placeholder.is_match(w) && !types.iter().any(|t| t == w) {
            types.push(w.to_string());
        }
    }
    types
}

/// The first of `types` declared `struct NAME` or `class NAME` without an alignment, in
/// `line`'s file: among the page's lines, else in the file on disk. A type already
/// `__align__`ed or `alignas`ed is not split for want of alignment: none.
pub fn unaligned_declaration(
    block: &SourceBlock,
    line: &SourceLine,
    types: &[String],
) -> Option<Declaration> {
    // Compiled once per type: the file on disk may be read line by line.
    let declarations: Vec<(&String, Regex)> = (types.iter())
        .filter_map(|name| {
            let declares = Regex::new(&format!(
                r"\b(?:struct|class)\s+((?:__align__\s*\(\s*\d+\s*\)|alignas\s*\(\s*\d+\s*\))\s+)?{}\b\s*(?:\{{|$)",
                regex::escape(name)
            ));
            Some((name, declares.ok()?))
        })
        .collect();
    let found = |file: &str, n: u64, text: &str| {
        declarations.iter().find_map(|(name, declares)| {
            let c = declares.captures(text)?;
            c.get(1).is_none().then(|| Declaration {
                file: file.to_string(),
                line: n,
                text: crate::printable::printable(text.trim()).into(),
                name: (*name).clone(),
            })
        })
    };
    first_in_file(block, line, found)
}

/// The declaration with `__align__(bytes)` before the type's name.
pub fn aligned_declaration(decl: &Declaration, bytes: u64) -> Option<String> {
    let keyword = Regex::new(&format!(
        r"\b(struct|class)(\s+){}\b",
        regex::escape(&decl.name)
    ))
    .ok()?;
    let m = keyword.captures(&decl.text)?;
    let whole = m.get(0)?;
    Some(format!(
        "{}{}{}__align__({bytes}) {}{}",
        &decl.text[..whole.start()],
        &m[1],
        &m[2],
        decl.name,
        &decl.text[whole.end()..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(lines: &[(u64, &str)]) -> SourceBlock {
        SourceBlock {
            file: "/src/t.cu".into(),
            function: "k".into(),
            lines: (lines.iter())
                .map(|(n, t)| SourceLine::at("/src/t.cu", *n, (*t).into()))
                .collect(),
            stalls_over_run: false,
        }
    }

    #[test]
    fn a_kernels_types_come_from_its_template_arguments_and_parameters() {
        assert_eq!(
            named_types("void copy_elements<Rgb8>(const T1 *, T1 *, unsigned int)"),
            ["Rgb8"]
        );
        assert_eq!(named_types("shift(const Point *, Point *, int)"), ["Point"]);
        assert_eq!(
            named_types("void k<float, 4>(const float4 *, uint8_t *, size_t)"),
            ["float4"]
        );
        assert!(named_types("k").is_empty());
    }

    #[test]
    fn an_unaligned_struct_gets_its_alignment_and_an_aligned_one_nothing() {
        let page = block(&[
            (30, "struct __align__(4) Rgb8A { uint8_t r, g, b; };"),
            (31, "struct Rgb8 { uint8_t r, g, b; };"),
            (32, "struct Vec3"),
            (40, "if (i < n) out[i] = in[i];"),
        ]);
        let at = &page.lines[3];
        let decl = unaligned_declaration(&page, at, &["Rgb8".into()]).unwrap();
        assert_eq!((decl.line, decl.name.as_str()), (31, "Rgb8"));
        assert_eq!(
            aligned_declaration(&decl, 4).as_deref(),
            Some("struct __align__(4) Rgb8 { uint8_t r, g, b; };")
        );
        // Its brace on the next line.
        let vec3 = unaligned_declaration(&page, at, &["Vec3".into()]).unwrap();
        assert_eq!(
            aligned_declaration(&vec3, 16).as_deref(),
            Some("struct __align__(16) Vec3")
        );
        assert_eq!(unaligned_declaration(&page, at, &["Rgb8A".into()]), None);
        // A use of the name is no declaration.
        let uses = block(&[(5, "struct Rgb8* p = nullptr;"), (9, "x")]);
        assert_eq!(
            unaligned_declaration(&uses, &uses.lines[1], &["Rgb8".into()]),
            None
        );
    }
}
