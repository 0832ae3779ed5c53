//! The launch tracer's stall samples (`gpulint run --source`): CUPTI's PC sampling of the
//! user's kernels over the whole traced run, one row per instruction and stall reason with
//! its source file and line (launch_tracer.cpp, `GPULINT_STALL_OUT`). They add to the
//! traced run's blocks what ncu's page gives as "Warp Stall Sampling (All Samples)" and
//! its `stall_*` columns, but over every launch, where the page samples one.

use std::collections::HashMap;

use super::traced::{SourceTexts, whole_field};
use super::{SourceBlock, SourceLine, same_signature, toolkit_header};
use crate::error::{Error, Result};

/// ncu's page's name (`stall_long_sb` less its prefix) for a CUPTI stall reason
/// (`smsp__pcsamp_warps_issue_stalled_long_scoreboard`), as the notes name them.
fn page_reason(cupti: &str) -> String {
    let reason = cupti
        .strip_prefix("smsp__pcsamp_warps_issue_stalled_")
        .unwrap_or(cupti);
    match reason {
        "long_scoreboard" => "long_sb",
        "short_scoreboard" => "short_sb",
        "lg_throttle" => "lg",
        "mio_throttle" => "mio",
        "math_pipe_throttle" => "math",
        "dispatch_stall" => "dispatch",
        "no_instructions" => "no_inst",
        "imc_miss" => "imc",
        "tex_throttle" => "tex",
        "sleeping" => "sleep",
        other => other,
    }
    .to_string()
}

/// One kernel's samples per line: (file, line) -> reason -> samples.
type Sampled = HashMap<(String, u64), HashMap<String, f64>>;

/// One row: an instruction's samples for one reason.
struct Row {
    pc: u64,
    file: String,
    line: u64,
    reason: String,
    samples: f64,
}

/// Adds the tracer's stall rows to `blocks`, the kernels named as `names` (mangled to the
/// trace's name) names them: each line's samples and top reason, a line the counters did
/// not list added with its text. A sample on a CUDA header's line (an inlined intrinsic)
/// also counts on the user's line sampled before it in the kernel's code. Kernels with no
/// block (not counted) are left to ncu. Returns how many blocks got samples; `origin`
/// names the rows in errors.
pub fn add(
    blocks: &mut [SourceBlock],
    text: &str,
    origin: &str,
    names: &HashMap<String, String>,
) -> Result<usize> {
    let mut texts = SourceTexts::default();
    let mut added = 0;
    for (mangled, rows) in rows_by_kernel(text, origin)? {
        let name = names.get(&mangled).map_or(mangled.as_str(), String::as_str);
        let Some(block) = blocks
            .iter_mut()
            .find(|b| b.function == name || same_signature(&b.function, name))
        else {
            continue;
        };
        let sampled = per_line(rows);
        if sampled.is_empty() {
            continue;
        }
        for ((file, line), reasons) in sampled {
            let at = match (block.lines.iter()).position(|l| l.file == file && l.line == line) {
                Some(at) => at,
                None => {
                    let text = texts.line(&file, line);
                    block.lines.push(SourceLine::at(&file, line, text));
                    block.lines.len() - 1
                }
            };
            let l = &mut block.lines[at];
            l.stall_samples = reasons.values().sum();
            l.top_stall =
                (reasons.into_iter()).max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        }
        block.stalls_over_run = true;
        added += 1;
    }
    Ok(added)
}

/// The rows of each kernel (by its mangled name), every process's block read.
fn rows_by_kernel(text: &str, origin: &str) -> Result<HashMap<String, Vec<Row>>> {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| Error::at(origin, 1, None, format!("stall samples' header: {e}")))?
        .clone();
    if header.iter().collect::<Vec<_>>() != ["function", "pc", "file", "line", "reason", "samples"]
    {
        return Err(Error::at(
            origin,
            1,
            None,
            "not the launch tracer's stall samples: the header should be \
             function,pc,file,line,reason,samples",
        ));
    }
    let mut kernels: HashMap<String, Vec<Row>> = HashMap::new();
    for (n, record) in reader.records().enumerate() {
        let row = n as u64 + 2;
        let record = record.map_err(|e| Error::at(origin, row, None, format!("{e}")))?;
        if record.get(0) == Some("function") {
            continue; // the next process's header
        }
        let whole = |i: usize| whole_field(&record, &header, i, origin, row);
        let parsed = Row {
            pc: whole(1)?,
            file: crate::printable::printable(record.get(2).unwrap_or("")).to_string(),
            line: whole(3)?,
            reason: page_reason(record.get(4).unwrap_or("")),
            samples: whole(5)? as f64,
        };
        let function = record.get(0).unwrap_or("").to_string();
        kernels.entry(function).or_default().push(parsed);
    }
    Ok(kernels)
}

/// One kernel's rows summed per line and reason, in the order of their instructions; a
/// header line's samples also on the user's line before them.
fn per_line(mut rows: Vec<Row>) -> Sampled {
    rows.sort_by(|a, b| a.pc.cmp(&b.pc).then(a.reason.cmp(&b.reason)));
    let mut sampled = Sampled::new();
    let mut callers_line: Option<(String, u64)> = None;
    for r in rows {
        if r.line == 0 || r.file.is_empty() {
            continue;
        }
        let mut add = |key: (String, u64)| {
            *sampled
                .entry(key)
                .or_default()
                .entry(r.reason.clone())
                .or_default() += r.samples;
        };
        add((r.file.clone(), r.line));
        if !toolkit_header(&r.file) {
            callers_line = Some((r.file, r.line));
        } else if let Some(caller) = &callers_line {
            add(caller.clone());
        }
    }
    sampled
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "function,pc,file,line,reason,samples";
    const STALLED: &str = "smsp__pcsamp_warps_issue_stalled_";

    fn names() -> HashMap<String, String> {
        [("_Z4tileOv".to_string(), "tile()".to_string())]
            .into_iter()
            .collect()
    }

    fn block() -> SourceBlock {
        SourceBlock {
            file: "/src/k.cu".into(),
            function: "tile()".into(),
            lines: vec![SourceLine::at("/src/k.cu", 11, "x[i] = y[i];".into())],
            stalls_over_run: false,
        }
    }

    /// Each line gets its samples over all reasons and the top reason by ncu's name; a
    /// line the counters did not list is added, and a header's line counts on the user's
    /// line before it.
    #[test]
    fn samples_land_on_lines_with_their_top_reason() {
        let text = format!(
            "{HEADER}\n\
             \"_Z4tileOv\",16,\"/src/k.cu\",11,{STALLED}long_scoreboard,30\n\
             \"_Z4tileOv\",16,\"/src/k.cu\",11,{STALLED}selected,5\n\
             \"_Z4tileOv\",32,\"/src/k.cu\",12,{STALLED}wait,4\n\
             \"_Z4tileOv\",48,\"/usr/local/cuda/include/sm_60_atomic_functions.hpp\",7,{STALLED}lg_throttle,6\n\
             \"_Z4tileOv\",64,\"\",0,{STALLED}wait,9\n\
             \"_Z5otherv\",0,\"/src/k.cu\",3,{STALLED}wait,2\n"
        );
        let mut blocks = vec![block()];
        assert_eq!(add(&mut blocks, &text, "stalls", &names()).unwrap(), 1);
        let mut seen: Vec<(u64, f64, String)> = (blocks[0].lines.iter())
            .map(|l| {
                let top = l.top_stall.clone().map(|t| t.0).unwrap_or_default();
                (l.line, l.stall_samples, top)
            })
            .collect();
        seen.sort_by_key(|s| s.0);
        assert_eq!(
            seen,
            [
                (7, 6.0, "lg".to_string()),
                (11, 35.0, "long_sb".to_string()),
                (12, 10.0, "lg".to_string()),
            ]
        );
    }

    /// LU's rows from the launch tracer on the H200 (fixtures/h200-traced): the lines with
    /// the most stall samples are those of ncu's page of the same program (lud_internal's
    /// 77 then 72, lud_perimeter's 52 then 48 with short scoreboard first), though the page
    /// samples one launch and the tracer every one.
    #[test]
    fn lus_traced_samples_rank_its_lines_as_ncus_page() {
        let read = |name: &str| {
            let path = format!("{}/fixtures/h200-traced/{name}", env!("CARGO_MANIFEST_DIR"));
            std::fs::read_to_string(path).unwrap()
        };
        let trace = crate::ingest::trace::read(&read("trace_lud.csv"), "trace").unwrap();
        let names: HashMap<String, String> = (trace.launches.iter())
            .filter_map(|l| Some((l.mangled.as_deref()?.to_string(), l.name.clone())))
            .collect();
        let mut blocks =
            super::super::traced::read(&read("sass_rows_lud.csv"), "rows", &names).unwrap();
        assert_eq!(
            add(&mut blocks, &read("stall_rows_lud.csv"), "stalls", &names).unwrap(),
            3
        );
        let top = |kernel: &str| {
            let b = blocks
                .iter()
                .find(|b| b.function.starts_with(kernel))
                .unwrap();
            let mut lines: Vec<&SourceLine> = b.lines.iter().collect();
            lines.sort_by(|a, b| b.stall_samples.total_cmp(&a.stall_samples));
            (lines.iter().take(2))
                .map(|l| (l.line, l.top_stall.clone().unwrap().0))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            top("lud_internal").iter().map(|t| t.0).collect::<Vec<_>>(),
            [77, 72]
        );
        let perimeter = top("lud_perimeter");
        assert_eq!(perimeter[0], (52, "short_sb".to_string()));
        assert_eq!(perimeter[1].0, 48);
        // The note says the samples are the run's, not the profiled launch's.
        let internal = (blocks.iter())
            .find(|b| b.function.starts_with("lud_internal"))
            .unwrap();
        let (note, line) = super::super::describe_stalls(internal).unwrap();
        let over_run = "where the warps wait over all its launches: lud.cu:77";
        assert!(note.starts_with(over_run), "{note}");
        assert_eq!(line.line, 77);
    }

    /// A field that is not a whole number, or another file's header, is an error that says
    /// where.
    #[test]
    fn errors_say_where() {
        let bad = format!("{HEADER}\n\"_Z4tileOv\",16,\"/src/k.cu\",11,{STALLED}wait,x\n");
        let e = add(&mut [block()], &bad, "stalls", &names())
            .unwrap_err()
            .to_string();
        assert!(e.contains("stalls:2:6") && e.contains("`samples`"), "{e}");
        let e = add(&mut [block()], "function,pc\n", "stalls", &names())
            .unwrap_err()
            .to_string();
        assert!(e.contains("function,pc,file,line,reason,samples"), "{e}");
    }
}
