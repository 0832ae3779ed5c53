//! Every chip ncu 2025.3.1 supports gets a metric list from `gpulint metrics --chip`, and
//! every name on it exists on that chip, checked against ncu's own `--query-metrics --chip`
//! output (fixtures/ncu/query_metrics_all_chips.tar.xz, a copy of the shared captures'
//! archive), not against gpulint's copy.

mod common;

use std::collections::{BTreeMap, BTreeSet};

/// chip -> its metric base names, read from the archive of ncu's query output.
fn ncu_lists() -> BTreeMap<String, BTreeSet<String>> {
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

fn metrics(args: &[&str]) -> Vec<String> {
    let mut all = vec!["metrics"];
    all.extend(args);
    let out = common::gpulint(&all);
    assert_eq!(out.status.code(), Some(0), "{}", common::transcript(&out));
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .split(',')
        .map(String::from)
        .collect()
}

#[test]
fn every_chip_gets_only_metrics_it_has() {
    let lists = ncu_lists();
    assert_eq!(lists.len(), 28, "{:?}", lists.keys());
    for (chip, names) in &lists {
        let list = metrics(&["--chip", chip]);
        assert!(list.len() > 30, "{chip}: {list:?}");
        for m in &list {
            let base = m.split('.').next().unwrap();
            assert!(names.contains(base), "{chip}: {m} is not on this chip");
        }
        // gpulint's copy of the list agrees with ncu's.
        let copy = gpulint::chips::find(chip).unwrap();
        for name in names
            .iter()
            .filter(|n| n.contains("__") && !n.contains('.'))
        {
            assert!(copy.has(name), "{chip}: {name} missing from src/chips");
        }
    }
}

#[test]
fn the_h200_list_is_the_default_list() {
    assert_eq!(metrics(&["--chip", "gh100"]), metrics(&[]));
}

#[test]
fn each_generation_gets_its_own_names() {
    let blackwell_rtx = metrics(&["--chip", "gb202"]);
    assert!(blackwell_rtx.contains(&"dram__bytes_op_read.sum".into()));
    assert!(!blackwell_rtx.contains(&"dram__bytes_read.sum".into()));
    // Tegra: no DRAM metric at all; memory throughput comes from L2 and L1.
    let orin = metrics(&["--chip", "ga10b"]);
    assert!(orin.iter().all(|m| !m.starts_with("dram__")), "{orin:?}");
    assert!(orin.contains(&"lts__t_sectors.avg.pct_of_peak_sustained_elapsed".into()));
    let out = common::gpulint(&["metrics", "--chip", "volta"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown chip \"volta\""));
}
