//! `--format concise`: one line per finding, `file:line: severity[CODE] slug: ...`.

use std::fmt::Write;

use super::{Report, short_name};

pub fn render(r: &Report) -> String {
    let mut out = String::new();
    for f in r.findings {
        let launches = if f.launches.is_empty() {
            format!("launch {}", f.launch)
        } else {
            format!("launches {}", join(&f.launches))
        };
        let _ = writeln!(
            out,
            "{}:{}: {}[{}] {} {} {}: {}",
            f.file,
            f.line,
            f.severity.as_str(),
            f.code,
            f.rule,
            short_name(&f.kernel),
            launches,
            f.message
        );
    }
    out
}

pub fn join(ids: &[u64]) -> String {
    ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}
