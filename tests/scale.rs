//! Streaming ingestion: however an export is cut into chunks and however many threads
//! parse them, the launches, their order, their line numbers and the notes are the same.

mod common;

use common::fixture;
use gpulint::ingest::{self, Launch, ReadOptions};

fn read(rel: &str, opts: &ReadOptions) -> (Vec<Launch>, Vec<String>) {
    let path = fixture(rel);
    let mut launches = Vec::new();
    let source = ingest::stream_path(path.to_str().unwrap(), opts, &mut |l| {
        launches.push(l);
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{rel}: {e}"));
    (launches, source.notes)
}

const EXPORTS: &[&str] = &[
    "h200-zoo/full_raw_base.csv",
    "h200-zoo/full_raw.csv",
    "h200-zoo/full_details.csv",
    "h200-zoo/min_raw.csv",
    "h200-zoo/min_details.csv",
    "h200-zoo/min_raw_stdout_mixed.txt",
    "h200-samples/torch_eager.csv",
    "h200-samples/jax_jit.csv",
];

#[test]
fn chunking_and_threads_change_nothing() {
    for rel in EXPORTS {
        let whole = read(rel, &ReadOptions::default());
        assert!(!whole.0.is_empty(), "{rel}");
        for (jobs, chunk_bytes) in [(1, 4096), (2, 4096), (2, 1), (3, 50_000)] {
            let opts = ReadOptions {
                jobs,
                chunk_bytes,
                ..ReadOptions::default()
            };
            let cut = read(rel, &opts);
            assert_eq!(
                whole.0.len(),
                cut.0.len(),
                "{rel}: jobs {jobs}, chunks of {chunk_bytes} B"
            );
            for (a, b) in whole.0.iter().zip(&cut.0) {
                assert_eq!(a, b, "{rel}: jobs {jobs}, chunks of {chunk_bytes} B");
            }
            assert_eq!(
                whole.1, cut.1,
                "{rel}: notes, jobs {jobs}, chunks of {chunk_bytes} B"
            );
        }
    }
}

#[test]
fn an_error_in_a_late_chunk_names_its_line() {
    // The bad cell sits far past the first chunk; every job count reports the same place.
    let text = std::fs::read_to_string(fixture("h200-zoo/full_raw_base.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let last = lines.len() - 1;
    let header: Vec<&str> = lines[0].split("\",\"").collect();
    let col = header
        .iter()
        .position(|h| h.contains("gpu__time_duration.sum"))
        .unwrap();
    let mut cells: Vec<String> = lines[last].split("\",\"").map(String::from).collect();
    cells[col] = "fast".into();
    lines[last] = cells.join("\",\"");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.csv");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    for jobs in [1, 2] {
        let opts = ReadOptions {
            jobs,
            chunk_bytes: 4096,
            ..ReadOptions::default()
        };
        let err = ingest::stream_path(path.to_str().unwrap(), &opts, &mut |_| Ok(())).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}:{}:{}: metric `gpu__time_duration.sum`: value \"fast\" is not a number",
                path.display(),
                last + 1,
                col + 1
            ),
            "jobs {jobs}"
        );
    }
}

#[test]
fn a_consumer_that_stops_stops_the_threads() {
    // The sink refuses the third launch: the reader and workers must wind down, not hang.
    let path = fixture("h200-zoo/full_details.csv");
    let opts = ReadOptions {
        jobs: 2,
        chunk_bytes: 2048,
        ..ReadOptions::default()
    };
    let mut seen = 0;
    let err = ingest::stream_path(path.to_str().unwrap(), &opts, &mut |_| {
        seen += 1;
        if seen == 3 {
            Err(gpulint::error::Error::new("enough"))
        } else {
            Ok(())
        }
    })
    .unwrap_err();
    assert_eq!(err.message, "enough");
    assert_eq!(seen, 3);
}
