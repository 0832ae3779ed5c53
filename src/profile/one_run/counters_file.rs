//! The tracer's counters file (launch_tracer_counters.inc writes it): a block per process,
//! its header line, the columns, a row per profiled launch, and the step that stopped it.

use crate::ingest;

/// One process's block of the counters file: the replay passes a launch took, the
/// milliseconds its ranges took (a tracer before the profiling budget wrote none), the
/// kernels whose first launch came after the budget was spent (none written before
/// that count), the columns after `correlation` (the metrics, then the device's
/// attributes), a row per profiled launch, and the step that failed, if one did.
#[derive(Debug, PartialEq)]
pub(super) struct Block {
    pub(super) pid: u64,
    pub(super) passes: u64,
    pub(super) profiling_ms: Option<u64>,
    pub(super) left_by_budget: Option<u64>,
    pub(super) columns: Vec<String>,
    pub(super) rows: Vec<(u64, Vec<String>)>,
    pub(super) stopped: Option<String>,
}

/// The header line of each process's block.
const HEADER: &str = "# gpulint counters 1, ";
const STOPPED: &str = "# stopped: ";

/// Reads the counters file; `Err` says what in it could not be read, by line.
pub(super) fn blocks(text: &str) -> Result<Vec<Block>, String> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut columns_next = false;
    for (n, line) in text.lines().enumerate() {
        let at = |what: String| format!("line {}: {what}", n + 1);
        if let Some(header) = line.strip_prefix(HEADER) {
            let field = |name| ingest::trace::number_field(header, name);
            let (Some(pid), Some(passes)) = (field("process"), field("passes")) else {
                return Err(at(format!(
                    "a block's first line without its process and passes: {line:?}"
                )));
            };
            blocks.push(Block {
                pid,
                passes,
                profiling_ms: field("profiling ms"),
                left_by_budget: field("kernels the budget left"),
                columns: Vec::new(),
                rows: Vec::new(),
                stopped: None,
            });
            columns_next = true;
            continue;
        }
        let Some(block) = blocks.last_mut() else {
            return Err(at("no block's first line before it".into()));
        };
        if let Some(why) = line.strip_prefix(STOPPED) {
            block.stopped = Some(why.to_string());
            continue;
        }
        let mut cells = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes());
        let Some(Ok(record)) = cells.records().next() else {
            return Err(at(format!("not a CSV row: {line:?}")));
        };
        let mut cells = record.iter().map(str::to_string);
        if columns_next {
            if cells.next().as_deref() != Some("correlation") {
                return Err(at("the columns should start with `correlation`".into()));
            }
            block.columns = cells.collect();
            columns_next = false;
            continue;
        }
        let correlation = cells.next().and_then(|c| c.parse::<u64>().ok());
        let values: Vec<String> = cells.collect();
        match correlation {
            Some(c) if values.len() == block.columns.len() => block.rows.push((c, values)),
            _ => {
                return Err(at(format!(
                    "a row should be a correlation id and {} values",
                    block.columns.len()
                )));
            }
        }
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::one_run::COUNTERS;

    #[test]
    fn the_counters_file_reads_per_process() {
        let read = blocks(COUNTERS).unwrap();
        assert_eq!(read.len(), 1);
        assert_eq!((read[0].pid, read[0].passes), (812, 7));
        assert_eq!(read[0].columns.len(), 6);
        assert_eq!(read[0].rows[1].0, 9);
        assert_eq!(read[0].rows[0].1[3], "9");
        assert_eq!(
            read[0].stopped.as_deref(),
            Some("cuptiRangeProfilerStart returned 7")
        );
        // A tracer before the profiling budget wrote no milliseconds; this one does.
        assert_eq!(read[0].profiling_ms, None);
        let timed = COUNTERS.replace("passes 7, ", "passes 7, profiling ms 1234, ");
        let read = blocks(&timed).unwrap();
        assert_eq!((read[0].passes, read[0].profiling_ms), (7, Some(1234)));
        assert_eq!(read[0].left_by_budget, None);
        let left = COUNTERS.replace("launches 2\n", "launches 2, kernels the budget left 3\n");
        assert_eq!(blocks(&left).unwrap()[0].left_by_budget, Some(3));
    }

    #[test]
    fn a_counters_file_that_does_not_read_says_where() {
        let short = COUNTERS.replace("9,2048,32,", "9,2048,");
        assert!(blocks(&short).unwrap_err().starts_with("line 4:"));
        assert!(blocks("5,1,2\n").unwrap_err().starts_with("line 1:"));
        let no_pid = COUNTERS.replace("process 812, ", "");
        assert!(blocks(&no_pid).unwrap_err().starts_with("line 1:"));
    }
}
