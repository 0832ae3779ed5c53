//! Hostile and broken input: handled when valid, otherwise exit 2 with one line naming
//! the file and the place; never a panic (exit 101), never a hang, never a silent clean run.

mod common;

use std::time::{Duration, Instant};

use common::{fixture, gpulint, transcript};

fn base_text() -> String {
    std::fs::read_to_string(fixture("h200-zoo/min_raw_base.csv")).unwrap()
}

/// Runs check; returns (exit code, stdout, stderr).
fn check(path: &std::path::Path) -> (Option<i32>, String, String) {
    let start = Instant::now();
    let out = gpulint(&["check", path.to_str().unwrap(), "--format", "concise"]);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{}: took {:?}",
        path.display(),
        start.elapsed()
    );
    assert_ne!(
        out.status.code(),
        Some(101),
        "panic on {}: {}",
        path.display(),
        transcript(&out)
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn expect_error(name: &str, bytes: &[u8], want: &str) {
    let path = common::scratch_file(name, bytes);
    let (code, stdout, stderr) = check(&path);
    assert_eq!(code, Some(2), "{name}: {stdout}{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
    assert!(stderr.contains(name), "{name}: {stderr}");
    assert!(stderr.contains(want), "{name}: {stderr} should say {want}");
}

fn expect_read(name: &str, bytes: &[u8], launches: usize) -> (String, String) {
    let path = common::scratch_file(name, bytes);
    let (code, stdout, stderr) = check(&path);
    assert!(
        matches!(code, Some(0) | Some(1)),
        "{name}: {stdout}{stderr}"
    );
    let json = gpulint(&[
        "check",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--exit-zero",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["sources"][0]["launch_count"], launches, "{name}");
    (stdout, stderr)
}

#[test]
fn empty_header_only_and_no_rows() {
    expect_error("empty.csv", b"", "empty");
    expect_error("blank.csv", b"\n\n  \n", "no ncu CSV header");
    let header_only: String = base_text().lines().take(4).collect::<Vec<_>>().join("\n");
    expect_error(
        "header_only.csv",
        header_only.as_bytes(),
        "no kernel launch rows",
    );
}

#[test]
fn a_raw_page_without_its_units_row_is_read_with_a_warning() {
    let full = base_text();
    let text: Vec<&str> = full.lines().collect();
    let without: String = text[..4]
        .iter()
        .chain(&text[5..])
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    let (_, stderr) = expect_read("no_units.csv", without.as_bytes(), 28);
    assert!(
        stderr.contains("warning") && stderr.contains("no units row"),
        "{stderr}"
    );
}

#[test]
fn a_truncated_last_row_is_read_and_said() {
    let text = base_text();
    let cut = &text[..text.len() - 2000];
    let (_, stderr) = expect_read("truncated.csv", cut.as_bytes(), 28);
    assert!(stderr.contains("columns (truncated?)"), "{stderr}");
}

#[test]
fn duplicate_column_names_use_the_first() {
    let text = base_text().replacen("\"c2clink__present\"", "\"ID\"", 1);
    let (_, stderr) = expect_read("duplicate.csv", text.as_bytes(), 28);
    assert!(stderr.contains("appears more than once"), "{stderr}");
}

#[test]
fn garbage_non_utf8_bom_and_crlf() {
    expect_error(
        "garbage.bin",
        &(0..5000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
            .collect::<Vec<_>>(),
        "binary",
    );
    // Non-UTF-8 bytes inside a kernel name are kept, replaced, not fatal.
    let mut bytes = base_text().into_bytes();
    let at = bytes
        .windows(14)
        .position(|w| w == b"copy_coalesced")
        .unwrap();
    bytes[at + 4] = 0xff;
    let (stdout, _) = expect_read("latin1.csv", &bytes, 28);
    assert!(stdout.contains("copy\u{fffd}coalesced") || !stdout.is_empty());
    let crlf = format!("\u{feff}{}", base_text().replace('\n', "\r\n"));
    expect_read("crlf.csv", crlf.as_bytes(), 28);
}

/// What Windows PowerShell writes for `ncu --csv ... > out.csv`: UTF-16 with a byte-order mark.
fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
    let mut bytes = if little_endian {
        vec![0xFF, 0xFE]
    } else {
        vec![0xFE, 0xFF]
    };
    for unit in text.encode_utf16() {
        bytes.extend(if little_endian {
            unit.to_le_bytes()
        } else {
            unit.to_be_bytes()
        });
    }
    bytes
}

#[test]
fn utf16_with_a_byte_order_mark_reads_like_utf8() {
    let findings_of = |name: &str, bytes: &[u8]| {
        let path = common::scratch_file(name, bytes);
        let out = gpulint(&["check", path.to_str().unwrap(), "--format", "concise"]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", transcript(&out));
        String::from_utf8_lossy(&out.stdout).replace(path.to_str().unwrap(), "FILE")
    };
    let text = base_text().replace('\n', "\r\n");
    let utf8 = findings_of("utf8.csv", text.as_bytes());
    assert!(utf8.lines().count() > 10, "{utf8}");
    assert_eq!(findings_of("utf16le.csv", &utf16(&text, true)), utf8);
    assert_eq!(findings_of("utf16be.csv", &utf16(&text, false)), utf8);

    let mut unpaired = utf16(&text, true);
    unpaired.splice(200..200, [0x00, 0xD8]);
    expect_error("unpaired.csv", &unpaired, "byte 200 is not valid UTF-16");
    let odd = &utf16(&text, true)[..301];
    expect_error("odd.csv", odd, "odd length (301 bytes)");
}

#[test]
fn json_or_an_arbitrary_csv_given_as_a_profile() {
    expect_error(
        "profile.json",
        br#"{"kernels": [1, 2]}"#,
        "no ncu CSV header",
    );
    expect_error(
        "sales.csv",
        b"region,units\nnorth,3\nsouth,4\n",
        "no ncu CSV header",
    );
    expect_error("trace.ncu-rep", b"NVR\0\x02\0\0\0\x08\x07", "ncu --import");
}

#[test]
fn a_ten_mebibyte_field_does_not_hang() {
    let text = base_text();
    let big = "x".repeat(10 << 20);
    let huge = text.replacen("\"zoo\"", &format!("\"{big}\""), 1);
    let path = common::scratch_file("huge_field.csv", huge.as_bytes());
    let (code, _, stderr) = check(&path);
    assert!(matches!(code, Some(0) | Some(1)), "{stderr}");
}

#[test]
fn nan_inf_negative_and_non_numeric_values() {
    let lines: Vec<String> = base_text().lines().map(String::from).collect();
    let with = |from: &str, to: &str| {
        let mut l = lines.clone();
        l[5] = l[5].replacen(from, to, 1);
        l.join("\n")
    };
    // nan and n/a mean "not collected": read, never as zero.
    expect_read("nan.csv", with("\"8,388,608\"", "\"nan\"").as_bytes(), 28);
    expect_error(
        "inf.csv",
        with("\"8,388,608\"", "\"inf\"").as_bytes(),
        "not a finite number",
    );
    expect_error(
        "word.csv",
        with("\"8,388,608\"", "\"lots\"").as_bytes(),
        "is not a number",
    );
    // A negative counter is read as given; it can fire nothing absurd and must not panic.
    expect_read(
        "negative.csv",
        with("\"8,388,608\"", "\"-8,388,608\"").as_bytes(),
        28,
    );
}

#[test]
fn a_details_page_with_unknown_sections() {
    let text = std::fs::read_to_string(fixture("h200-zoo/full_details.csv")).unwrap();
    let renamed = text.replace("\"Source Counters\"", "\"Made Up Section\"");
    let path = common::scratch_file("unknown_sections.csv", renamed.as_bytes());
    let out = gpulint(&[
        "check",
        path.to_str().unwrap(),
        "--format",
        "concise",
        "--verbose",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("sections gpulint does not read were skipped: Made Up Section")
    );
}

#[test]
fn an_export_nothing_can_be_judged_on_is_an_error_not_a_clean_run() {
    // Only identity columns: every rule lacks its metrics.
    let text = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Block Size\",\"Grid Size\"\n\
                \"0\",\"1\",\"p\",\"h\",\"k(int)\",\"\",\"\"\n";
    expect_error(
        "bare.csv",
        text.as_bytes(),
        "no rule could judge any of the 1 launch(es)",
    );
    // And which ncu sections would let most rules judge.
    expect_error(
        "bare.csv",
        text.as_bytes(),
        "ncu's `--section LaunchStats --section MemoryWorkloadAnalysis --section Occupancy \
         --section SpeedOfLight` would let 10 of the 24 rules judge",
    );
}

/// A negative and an absurd duration are impossible values: each is left out with a
/// warning naming its line and field, and neither reaches the totals or the ranking.
#[test]
fn impossible_values_are_left_out_with_a_warning() {
    let text = base_text();
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let header: Vec<&str> = lines[3].split("\",\"").collect();
    let col = header
        .iter()
        .position(|c| c.trim_matches('"') == "gpu__time_duration.sum")
        .unwrap();
    let mut set = |line: usize, value: &str| {
        let mut cells: Vec<String> = lines[line].split("\",\"").map(str::to_string).collect();
        let last = cells.len() - 1;
        cells[col] = if col == last {
            format!("{value}\"")
        } else {
            value.into()
        };
        lines[line] = cells.join("\",\"");
    };
    set(5, "-5");
    set(6, "1000000000000000000000000000000");
    let path = common::scratch_file("impossible.csv", lines.join("\n").as_bytes());
    let out = gpulint(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        stderr.contains("impossible.csv: line 6: `gpu__time_duration.sum` of copy_coalesced")
            && stderr.contains("is -5: negative"),
        "{stderr}"
    );
    assert!(
        stderr.contains("line 7: `gpu__time_duration.sum` of copy_strided")
            && stderr.contains("more than a day of kernel time"),
        "{stderr}"
    );
    assert!(stdout.starts_with("profile: 28 launch(es)"), "{stdout}");
    // By word: the scratch file's random name may hold "-5" (gpulint-test-file-5vANiI).
    assert!(
        !stdout.contains("-0.0 us") && !stdout.split_whitespace().any(|w| w.starts_with("-5")),
        "{stdout}"
    );
    let total: f64 = stdout
        .lines()
        .next()
        .unwrap()
        .split(", ")
        .nth(1)
        .unwrap()
        .trim_end_matches(" us of GPU time")
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(total < 30_000.0, "{total}");
}
