//! Every chip ncu 2025.3.1 supports gets a metric list from `gpulint metrics --chip`, and
//! every name on it exists on that chip, checked against ncu's own `--query-metrics --chip`
//! output (fixtures/ncu/query_metrics_all_chips.tar.xz, a copy of the shared captures'
//! archive), not against gpulint's copy.

mod common;

use common::ncu_lists::ncu_lists;

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
