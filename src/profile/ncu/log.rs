//! ncu's log: whether it holds the CSV the run asked for, and ncu's failure modes, each
//! turned into one clear message; how the profiled program ended.

use std::path::Path;

use crate::error::{Error, Result};

/// A log without a CSV header: ncu's own message says what went wrong.
pub(super) fn check_log(log: &Path, status: Option<i32>) -> Result<()> {
    if has_csv_header(log)? {
        return Ok(());
    }
    check_ncu_output(&read_log(log)?, status)
}

/// ncu's log, whole: read when it holds no CSV (an error, so it is short), or for the
/// source pages a `--source` run printed to it (one per sampled launch).
pub(super) fn read_log(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::new(format!("cannot read ncu's output {}: {e}", path.display())))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Whether ncu's log holds a CSV header, read a line at a time.
fn has_csv_header(path: &Path) -> Result<bool> {
    use std::io::BufRead;
    let file = std::fs::File::open(path)
        .map_err(|e| Error::new(format!("cannot read ncu's output {}: {e}", path.display())))?;
    let mut line = Vec::new();
    let mut reader = std::io::BufReader::new(file);
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return Ok(false),
            Ok(_) if line.starts_with(b"\"ID\"") || line.starts_with(b"ID,") => return Ok(true),
            Ok(_) => {}
            Err(e) => {
                return Err(Error::new(format!(
                    "cannot read ncu's output {}: {e}",
                    path.display()
                )));
            }
        }
    }
}

/// Turns ncu's failure modes into one clear message each.
pub fn check_ncu_output(log: &str, status: Option<i32>) -> Result<()> {
    if log.contains("ERR_NVGPUCTRPERM") {
        return Err(Error::new(
            "ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM): run as root, or \
             let all users profile by loading the nvidia module with \
             NVreg_RestrictProfilingToAdminUsers=0; see \
             https://developer.nvidia.com/ERR_NVGPUCTRPERM",
        ));
    }
    let has_rows = log
        .lines()
        .any(|l| l.starts_with("\"ID\"") || l.starts_with("ID,"));
    if has_rows {
        return Ok(());
    }
    if log.contains("No kernels were profiled") {
        return Err(Error::new(
            "no kernel was profiled: the program launched none, or --kernel-name / --launch-skip \
             matched none",
        ));
    }
    let tail: Vec<&str> = log
        .lines()
        .rev()
        .take(8)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let status = status.map_or("killed by a signal".to_string(), |c| {
        format!("exit status {c}")
    });
    Err(Error::new(format!(
        "ncu produced no profile ({status}); its last lines:\n{}",
        if tail.is_empty() {
            "(nothing)".to_string()
        } else {
            tail.join("\n")
        }
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_modes_have_their_own_messages() {
        let perm = check_ncu_output(
            "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission",
            Some(1),
        );
        assert!(
            perm.unwrap_err()
                .message
                .contains("NVreg_RestrictProfilingToAdminUsers=0")
        );
        let none = check_ncu_output("==WARNING== No kernels were profiled.\n", Some(0));
        assert!(none.unwrap_err().message.contains("no kernel was profiled"));
        let crash = check_ncu_output(
            "==PROF== Connected\n==ERROR== The application returned an error code (11).\n",
            None,
        );
        let msg = crash.unwrap_err().message;
        assert!(
            msg.contains("killed by a signal") && msg.contains("error code (11)"),
            "{msg}"
        );
        assert!(check_ncu_output("\"ID\",\"Process ID\",\"Kernel Name\"\n", Some(0)).is_ok());
    }
}
