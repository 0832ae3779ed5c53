//! `--format concise`: one line per finding, `file:line: severity[CODE] slug: ...`.

use std::fmt::Write;

use super::{Report, short_name};

pub fn render(r: &Report) -> String {
    let mut out = String::new();
    for f in r.findings {
        let launches = launch_list(f);
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

/// "launch 3", "launches 3,7,9 (3x)", or with more than are listed, "launches 3,7,…
/// (10000x)".
pub fn launch_list(f: &crate::rules::engine::Finding) -> String {
    if f.launch_count <= 1 || f.launches.is_empty() {
        format!("launch {}", f.launch)
    } else if f.launches.len() as u64 == f.launch_count {
        format!("launches {} ({}x)", join(&f.launches), f.launch_count)
    } else {
        format!("launches {},… ({}x)", join(&f.launches), f.launch_count)
    }
}
