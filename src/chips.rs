//! The metrics each GPU chip has, as ncu 2025.3.1 lists them (`ncu --query-metrics --chip
//! C`, turned into data by scripts/chip-metrics.py). `gpulint run` asks ncu only for
//! metrics that exist on the chip it profiles: ncu refuses a whole run over one unknown
//! name.

mod table {
    include!("chips/table.rs");
}

/// One chip as ncu names it (`gh100`, `ga102`, `gb202`, ...).
#[derive(Debug, Clone, Copy)]
pub struct Chip {
    pub name: &'static str,
    /// Base metric names, sorted, one per line.
    names: &'static str,
}

impl Chip {
    /// Whether a metric (`base.rollup.submetric` or a base name) exists on this chip.
    pub fn has(&self, metric: &str) -> bool {
        let base = metric.split('.').next().unwrap_or(metric);
        sorted_lines(self.names).binary_search(&base).is_ok()
    }
}

/// The lines of one of the tables' name lists, split once per list (several chips share
/// a list) and kept: `has` is asked thousands of times.
fn sorted_lines(names: &'static str) -> &'static [&'static str] {
    static SPLIT: std::sync::OnceLock<Vec<(usize, Vec<&'static str>)>> = std::sync::OnceLock::new();
    let split = SPLIT.get_or_init(|| {
        let mut out: Vec<(usize, Vec<&'static str>)> = Vec::new();
        for (_, list) in table::CHIPS {
            if !out.iter().any(|(at, _)| *at == list.as_ptr() as usize) {
                out.push((list.as_ptr() as usize, list.lines().collect()));
            }
        }
        out
    });
    split
        .iter()
        .find(|(at, _)| *at == names.as_ptr() as usize)
        .map_or(&[], |(_, lines)| lines.as_slice())
}

/// Every chip ncu supports, by name.
pub fn all() -> impl Iterator<Item = Chip> {
    table::CHIPS
        .iter()
        .map(|(name, names)| Chip { name, names })
}

/// A chip by name, case-insensitive.
pub fn find(name: &str) -> Option<Chip> {
    all().find(|c| c.name.eq_ignore_ascii_case(name.trim()))
}

/// The chip of the first device in ncu's `--query-metrics` answer for the local GPU,
/// whose first line reads `Device NVIDIA H200 (GH100)`.
pub fn from_query_output(text: &str) -> Option<Chip> {
    let line = text.lines().find(|l| l.starts_with("Device "))?;
    let open = line.rfind('(')?;
    let close = line[open..].find(')')? + open;
    find(&line[open + 1..close])
}

// ncu's own lists, which the tests check the copy against (shared with tests/chips.rs).
#[cfg(test)]
#[path = "../tests/common/ncu_lists.rs"]
mod ncu_lists;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chip_ncu_lists_is_known() {
        let names: Vec<&str> = all().map(|c| c.name).collect();
        assert_eq!(names.len(), 28);
        for c in [
            "gh100", "ga102", "gb202", "tu117", "ga10b", "gb20b", "ad104",
        ] {
            assert!(names.contains(&c), "{c}");
        }
    }

    #[test]
    fn names_differ_between_generations() {
        let gh100 = find("GH100").unwrap();
        let gb202 = find("gb202").unwrap();
        assert!(gh100.has("dram__bytes_read.sum"));
        assert!(!gb202.has("dram__bytes_read.sum"));
        assert!(gb202.has("dram__bytes_op_read.sum"));
        assert!(!find("ga10b").unwrap().has("dram__bytes.sum.peak_sustained"));
    }

    /// gpulint's copy of each chip's list holds every metric ncu lists for that chip.
    #[test]
    fn the_copy_of_each_list_agrees_with_ncus() {
        let lists = ncu_lists::ncu_lists();
        assert_eq!(lists.len(), 28);
        for (chip, names) in &lists {
            let copy = find(chip).unwrap();
            for name in names
                .iter()
                .filter(|n| n.contains("__") && !n.contains('.'))
            {
                assert!(copy.has(name), "{chip}: {name} missing from src/chips");
            }
        }
    }

    #[test]
    fn the_local_chip_is_read_from_the_query_header() {
        let text = "Device NVIDIA H200 (GH100)\n-----\nMetric Name  Metric Type\n";
        assert_eq!(from_query_output(text).map(|c| c.name), Some("gh100"));
        assert!(from_query_output("==ERROR== No supported GPU found\n").is_none());
    }
}
