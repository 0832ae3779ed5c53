//! Where a command's report goes: stdout, or the `-o` file, which appears only once the
//! command has succeeded. Each command is handed its `Output`; nothing is held globally.

use std::io::{IsTerminal, Write};

use crate::error::{Error, Result};

pub struct Output {
    /// `-o FILE`: a temporary file beside the destination, renamed over it by `finish`.
    file: Option<(tempfile::NamedTempFile, String)>,
}

impl Output {
    pub fn stdout() -> Output {
        Output { file: None }
    }

    /// The report to `path` instead of stdout; refuses a path that is one of the inputs.
    pub fn to_file(path: &str, inputs: &[String]) -> Result<Output> {
        super::shared::refuse_overwriting_input(path, inputs, "report")?;
        let tmp = crate::atomic_file::temp_beside(std::path::Path::new(path))?;
        Ok(Output {
            file: Some((tmp, path.to_string())),
        })
    }

    /// Whether the report goes to a terminal (what `--color auto` colours).
    pub fn is_terminal(&self) -> bool {
        self.file.is_none() && std::io::stdout().is_terminal()
    }

    /// Writes `text`; a closed pipe (`gpulint ... | head`) is not an error.
    pub fn emit(&mut self, text: &str) -> Result<()> {
        self.emit_with(|out| out.write_all(text.as_bytes()))
    }

    /// Writes through a buffer, as [`Output::emit`].
    pub fn emit_with(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<()> {
        if let Some((tmp, path)) = &mut self.file {
            let mut out = std::io::BufWriter::new(tmp.as_file_mut());
            return write(&mut out)
                .and_then(|_| out.flush())
                .map_err(|e| Error::in_file(path.as_str(), format!("cannot write: {e}")));
        }
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        match write(&mut out).and_then(|_| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                Err(Error::new(format!("cannot write output: {e}")))
            }
            _ => Ok(()),
        }
    }

    /// Puts a redirected report in place (`keep`: the command succeeded), or drops it.
    pub fn finish(self, keep: bool) -> Result<()> {
        match self.file {
            Some((tmp, path)) if keep => {
                crate::atomic_file::persist(tmp, std::path::Path::new(&path))
            }
            _ => Ok(()),
        }
    }
}
