//! Text that comes from a profile or a baseline (kernel, device and rule names, notes) is
//! data from elsewhere: profiles are shared files. Before any report prints it, control
//! characters become visible escapes, so a name cannot end a line, move the cursor or
//! colour a terminal, and a name cannot begin with what a CI runner reads as a workflow
//! command (`::error ...`, `##[error]`). ncu's own names never hold any of these, so a
//! real profile reads the same.

use std::borrow::Cow;

/// `s` made safe to print anywhere: see the module docs. Borrowed when nothing changes.
pub fn printable(s: &str) -> Cow<'_, str> {
    let needs_escape = s.chars().any(escaped);
    let starts_like_command = {
        let t = s.trim_start();
        t.starts_with("::") || t.starts_with("##[")
    };
    if !needs_escape && !starts_like_command {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    if starts_like_command {
        out.push('\\');
    }
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if escaped(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A path made printable: a file name may hold a newline, or begin like a workflow
/// command, as well as a kernel name can; bytes that are not UTF-8 show as U+FFFD.
pub fn path(p: &std::path::Path) -> String {
    printable(&p.to_string_lossy()).into_owned()
}

/// `text` cut to at most `max` characters, its end replaced by `…` where it was cut, so
/// that a cut never reads as the whole.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// Replaces `s` with its printable form, in place.
pub fn make_printable(s: &mut String) {
    if let Cow::Owned(clean) = printable(s) {
        *s = clean;
    }
}

/// Control characters (C0, DEL, C1) and the bidirectional overrides that reorder what a
/// reader sees ("Trojan Source").
fn escaped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clipped_text_ends_in_an_ellipsis_and_only_where_cut() {
        assert_eq!(clip("out[i] += in[i] * k;", 40), "out[i] += in[i] * k;");
        assert_eq!(clip("out[i] += in[i] * k;", 12), "out[i] += i…");
        assert_eq!(clip("out[i] += in[i] * k;", 12).chars().count(), 12);
        assert_eq!(clip("αβγδε", 3), "αβ…");
    }

    #[test]
    fn real_names_are_untouched() {
        for name in [
            "void transpose_tiled<0>(const float *, float *, int)",
            "cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(T1::Params)",
            "NVIDIA H200",
        ] {
            assert!(matches!(printable(name), Cow::Borrowed(_)), "{name}");
        }
    }

    #[test]
    fn control_characters_and_command_prefixes_are_escaped() {
        assert_eq!(
            printable("k\n::error file=x::pwned\u{1b}[31m"),
            "k\\n::error file=x::pwned\\u{1b}[31m"
        );
        assert_eq!(printable("::warning ::x"), "\\::warning ::x");
        assert_eq!(printable("  ##[error]x"), "\\  ##[error]x");
        assert_eq!(printable("a\u{202e}b\u{9b}c"), "a\\u{202e}b\\u{9b}c");
        assert_eq!(printable("tab\there"), "tab\\there");
    }
}
