//! `-o` writes into what it is given: a regular file (or a new path) is replaced whole; a
//! symbolic link is followed and its target replaced; a FIFO, `/dev/null` and `/dev/stdout`
//! are opened and written, never replaced; `-` is stdout.
// Unix only: symlinks, FIFOs, /dev/stdout and file modes.
#![cfg(unix)]

mod common;

use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Command;

use common::{gpulint, transcript};

const ZOO: &str = "fixtures/h200-zoo/full_raw_base.csv";

/// The concise report of the zoo capture, as stdout gives it.
fn report_on_stdout() -> Vec<u8> {
    let out = gpulint(&["check", ZOO, "--format", "concise"]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(!out.stdout.is_empty());
    out.stdout
}

fn check_to(dest: &str) -> std::process::Output {
    gpulint(&["check", ZOO, "--format", "concise", "-o", dest])
}

#[test]
fn a_regular_file_and_a_new_path_get_the_report() {
    let want = report_on_stdout();
    let dir = common::scratch_dir("o-regular");
    let file = dir.join("report.txt");
    std::fs::write(&file, "old").unwrap();
    let out = check_to(file.to_str().unwrap());
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read(&file).unwrap(), want);
}

/// The link stays a link, and the file it points to gets the report; a link to a file
/// not yet there makes that file.
#[test]
fn a_symlink_is_followed_and_its_target_replaced() {
    let want = report_on_stdout();
    let dir = common::scratch_dir("o-link");
    let (target, link) = (dir.join("target.txt"), dir.join("link.txt"));
    let _ = std::fs::remove_file(&link);
    std::fs::write(&target, "old").unwrap();
    std::os::unix::fs::symlink("target.txt", &link).unwrap();
    let out = check_to(link.to_str().unwrap());
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&target).unwrap(), want);

    let (dangling, absent) = (dir.join("dangling.txt"), dir.join("absent.txt"));
    let _ = std::fs::remove_file(&dangling);
    let _ = std::fs::remove_file(&absent);
    std::os::unix::fs::symlink(&absent, &dangling).unwrap();
    check_to(dangling.to_str().unwrap());
    assert!(
        std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&absent).unwrap(), want);
}

/// A reader of the FIFO gets the whole report, and the FIFO is still a FIFO.
#[test]
fn a_fifo_is_written_into_not_replaced() {
    let want = report_on_stdout();
    let dir = common::scratch_dir("o-fifo");
    let fifo = dir.join("report.fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let out = check_to(fifo.to_str().unwrap());
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert_eq!(reader.join().unwrap(), want);
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

/// `-` and `/dev/stdout` are stdout; `/dev/null` takes the report and stays a device.
/// (Run as root, the earlier gpulint replaced `/dev/null` with a regular file.)
#[test]
fn dash_dev_stdout_and_dev_null_are_written_through() {
    let want = report_on_stdout();
    for dest in ["-", "/dev/stdout"] {
        let out = check_to(dest);
        assert_eq!(out.status.code(), Some(1), "{dest}: {}", transcript(&out));
        assert_eq!(out.stdout, want, "{dest}");
    }
    assert!(!Path::new(env!("CARGO_MANIFEST_DIR")).join("-").exists());
    let out = check_to("/dev/null");
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(out.stdout.is_empty());
    let null = std::fs::symlink_metadata("/dev/null").unwrap().file_type();
    assert!(null.is_char_device());
    let stdout = std::fs::symlink_metadata("/dev/stdout")
        .unwrap()
        .file_type();
    assert!(stdout.is_symlink());
}

/// A shell's process substitution, `-o >(wc -c)`, is a `/dev/fd/N` pipe: written into.
#[test]
fn a_process_substitution_gets_the_report() {
    let want = report_on_stdout();
    let dir = common::scratch_dir("o-procsub");
    let counted = dir.join("count.txt");
    let script = format!(
        "'{}' check {ZOO} --format concise -o >(wc -c > '{}'); wait",
        env!("CARGO_BIN_EXE_gpulint"),
        counted.display()
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("PATH", common::path_without_ncu())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    // wc may finish after bash: wait for its count.
    let start = std::time::Instant::now();
    let count = loop {
        let text = std::fs::read_to_string(&counted).unwrap_or_default();
        if !text.trim().is_empty() || start.elapsed().as_secs() > 10 {
            break text;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(count.trim(), want.len().to_string());
}

/// A replaced file keeps its mode: a script keeps its exec bit.
#[test]
fn a_replaced_file_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = common::scratch_dir("o-mode");
    let file = dir.join("report.sh");
    std::fs::write(&file, "old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o750)).unwrap();
    let out = check_to(file.to_str().unwrap());
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o750);
}

/// gpulint writes over a read-only file exactly when the shell's `>` can (as root it
/// can, as anyone else it cannot), and leaves the file alone when it refuses.
#[test]
fn a_read_only_file_is_written_only_where_the_shell_could() {
    use std::os::unix::fs::PermissionsExt;
    let dir = common::scratch_dir("o-readonly");
    let (probe, file) = (dir.join("probe.txt"), dir.join("report.txt"));
    for f in [&probe, &file] {
        std::fs::write(f, "old").unwrap();
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o444)).unwrap();
    }
    let shell_can = Command::new("sh")
        .arg("-c")
        .arg(format!(": > '{}'", probe.display()))
        .status()
        .unwrap()
        .success();
    let out = check_to(file.to_str().unwrap());
    if shell_can {
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        assert_eq!(std::fs::read(&file).unwrap(), report_on_stdout());
    } else {
        assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
        assert!(transcript(&out).contains("permission denied"));
        assert_eq!(std::fs::read(&file).unwrap(), b"old");
    }
}

/// Run from a terminal (under `script`, a pseudo-terminal), `-o` still writes plain
/// text: colour is for the terminal, not for the file.
#[test]
fn a_report_written_from_a_terminal_has_no_colour() {
    if Command::new("script").arg("--version").output().is_err() {
        println!("SKIPPED: no `script` (util-linux) to make a terminal");
        return;
    }
    let dir = common::scratch_dir("o-tty");
    let (check_file, diff_file) = (dir.join("check.txt"), dir.join("diff.txt"));
    let bin = env!("CARGO_BIN_EXE_gpulint");
    let root = env!("CARGO_MANIFEST_DIR");
    let line = format!(
        "{bin} check {ZOO} -o {}; {bin} diff fixtures/h200-samples/pipeline_base.csv \
         fixtures/h200-samples/pipeline_regressed.csv -o {}; {bin} check {ZOO}",
        check_file.display(),
        diff_file.display()
    );
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(root)
        .env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .env("PATH", common::path_without_ncu())
        .output()
        .unwrap();
    for f in [&check_file, &diff_file] {
        let text = std::fs::read(f).unwrap();
        assert!(!text.is_empty(), "{}", f.display());
        assert!(
            !text.contains(&0x1b),
            "{}: colour codes in the file",
            f.display()
        );
    }
    // The check that printed to the same terminal was coloured: there was a terminal.
    assert!(
        out.stdout.contains(&0x1b),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
