//! One error type for everything that can go wrong with user input or the environment.
//! Every message names the input and, where known, the row, column and field.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: Option<u64>,
    pub column: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub location: Option<Location>,
    pub message: String,
}

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            location: None,
            message: message.into(),
        }
    }

    pub fn in_file(file: &str, message: impl Into<String>) -> Self {
        Error {
            location: Some(Location {
                file: file.to_string(),
                line: None,
                column: None,
            }),
            message: message.into(),
        }
    }

    pub fn at(file: &str, line: u64, column: Option<u64>, message: impl Into<String>) -> Self {
        Error {
            location: Some(Location {
                file: file.to_string(),
                line: Some(line),
                column,
            }),
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(loc) = &self.location {
            write!(f, "{}", loc.file)?;
            if let Some(line) = loc.line {
                write!(f, ":{line}")?;
                if let Some(col) = loc.column {
                    write!(f, ":{col}")?;
                }
            }
            write!(f, ": ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
