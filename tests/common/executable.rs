//! Scripts a test writes and then runs: shared by the integration tests (tests/common) and
//! the launch tracer cache's unit tests (src/profile/ncu/tracer/cache.rs, through `#[path]`).

use std::os::unix::fs::PermissionsExt;

/// Writes a script that a test then runs, executable. Written by this process, its file
/// would be open for writing while another test's thread forks: that child holds it until
/// it execs, and running the script then fails with ETXTBSY ("text file busy"), as CI once
/// saw. So `cp` writes it, in a process of its own.
pub fn write_executable(path: &std::path::Path, text: &str) {
    let draft = path.with_extension("draft");
    std::fs::write(&draft, text).unwrap();
    let copied = std::process::Command::new("cp")
        .arg(&draft)
        .arg(path)
        .status()
        .unwrap();
    assert!(copied.success());
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
