//! ncu's own metric lists for every chip it supports, from the archive of its
//! `--query-metrics --chip` output: read by tests/chips.rs, and by src/chips.rs's unit
//! tests (through `#[path]`), which check gpulint's copy against them.

use std::collections::{BTreeMap, BTreeSet};

/// chip -> its metric base names, read from the archive of ncu's query output.
pub fn ncu_lists() -> BTreeMap<String, BTreeSet<String>> {
    let archive = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/ncu/query_metrics_all_chips.tar.xz"
    );
    // Decompressed in Rust (lzma-rs, tar): the tests need nothing beyond the toolchain.
    let mut tarball = Vec::new();
    lzma_rs::xz_decompress(
        &mut std::io::BufReader::new(std::fs::File::open(archive).unwrap()),
        &mut tarball,
    )
    .unwrap();
    let mut lists: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in tar::Archive::new(&tarball[..]).entries().unwrap() {
        let mut entry = entry.unwrap();
        let path = entry.path().unwrap().into_owned();
        if !entry.header().entry_type().is_file() || path.extension().is_none_or(|x| x != "txt") {
            continue;
        }
        let chip = path.file_stem().unwrap().to_string_lossy().into_owned();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut entry, &mut text).unwrap();
        let names = lists.entry(chip).or_default();
        for line in text.lines().skip(4) {
            names.insert(line.split(' ').next().unwrap_or("").to_string());
        }
    }
    lists
}
