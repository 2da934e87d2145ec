//! Where the binary's text goes: one place writes standard output (a closed pipe ends the command
//! quietly instead of panicking), one place words errors (each cause said once).

use std::io::{ErrorKind, Write};

/// What a subcommand leaves for standard output, and its exit code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Text for standard output (written as is).
    pub stdout: String,
    /// The process exit code (0 success; 1 failure; 3 a rejected block or script).
    pub code: u8,
}

impl Outcome {
    /// Success with `text` and a final newline.
    pub fn text(text: impl Into<String>) -> Self {
        let mut stdout = text.into();
        if !stdout.ends_with('\n') {
            stdout.push('\n');
        }
        Outcome { stdout, code: 0 }
    }

    /// The same output with exit code `code`.
    pub fn with_code(self, code: u8) -> Self {
        Outcome { code, ..self }
    }
}

/// Writes `text` to `out` and flushes. A reader that went away (`head -1`, a closed pipe) is not
/// an error: it has read what it wanted, so `Ok` is returned and the rest is dropped.
pub fn write_all_or_closed(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// One line on standard error; a closed standard error is ignored (there is nowhere left to say
/// anything).
pub fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The error and its causes joined by `: `, leaving out a cause whose text the message already
/// holds (an error that prints its source, as many do, would otherwise say it twice: "No such file
/// or directory (os error 2): No such file or directory (os error 2)").
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let cause = cause.to_string();
        if text.contains(&cause) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&cause);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose reader has gone.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_pipe_ends_the_output_quietly_and_other_errors_are_kept() {
        assert!(write_all_or_closed(&mut ClosedPipe, "x\n").is_ok());
        let mut full: &mut [u8] = &mut [0u8; 1];
        let e = write_all_or_closed(&mut full, "too long").expect_err("no space");
        assert_eq!(e.kind(), ErrorKind::WriteZero);
    }

    #[test]
    fn a_cause_already_in_the_message_is_said_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("scene.toml: cannot read: {0}")]
        struct Echoing(#[source] std::io::Error);
        let e = anyhow::Error::from(Echoing(ErrorKind::NotFound.into())).context("loading the scene");
        assert_eq!(error_text(&e), "loading the scene: scene.toml: cannot read: entity not found");
    }

    #[test]
    fn outcome_text_ends_with_one_newline() {
        assert_eq!(Outcome::text("a").stdout, "a\n");
        assert_eq!(Outcome::text("a\n").stdout, "a\n");
        assert_eq!(Outcome::text("a").with_code(3).code, 3);
    }
}
