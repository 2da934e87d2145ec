//! Progress on standard error for long work: at a terminal a bar redrawn in place, otherwise a
//! plain line now and then, so a log or a pipe hears from a job whose frames take minutes.

use std::io::{IsTerminal as _, Write as _};
use std::time::{Duration, Instant};

/// Without a terminal, a progress line at most this often (one per finished frame when frames are
/// slower): a log or a pipe hears from a long job, without a line per quick frame.
pub const PROGRESS_LINE_INTERVAL: Duration = Duration::from_secs(10);

/// Progress of `total` frames on standard error: at a terminal a bar redrawn in place with `\r`
/// (for more than one frame); otherwise a plain line when [`PROGRESS_LINE_INTERVAL`] has passed
/// since the last (or the start), so a log hears from slow frames and not from quick ones.
pub struct Progress {
    name: String,
    total: u32,
    terminal: bool,
    started: Instant,
    last_line: Instant,
    drawn: bool,
}

impl Progress {
    /// Progress of `total` frames named `name`.
    pub fn new(name: &str, total: u32) -> Progress {
        let now = Instant::now();
        let terminal = std::io::stderr().is_terminal();
        Progress { name: name.to_owned(), total, terminal, started: now, last_line: now, drawn: false }
    }

    /// `done` frames are finished.
    pub fn step(&mut self, done: u32) {
        if self.terminal {
            if self.total > 1 {
                let _ = write!(std::io::stderr(), "\r{}", progress_bar(&self.name, done, self.total));
                let _ = std::io::stderr().flush();
                self.drawn = true;
            }
        } else if let Some(line) = self.line_at(done, Instant::now()) {
            super::output::say(&line);
        }
    }

    /// The line for a log when `done` frames are finished at `now`, if one is due.
    fn line_at(&mut self, done: u32, now: Instant) -> Option<String> {
        if now.duration_since(self.last_line) < PROGRESS_LINE_INTERVAL {
            return None;
        }
        self.last_line = now;
        let elapsed = now.duration_since(self.started).as_secs_f64();
        Some(format!("{}: {done}/{} frames, {elapsed:.0} s", self.name, self.total))
    }

    /// Ends the bar's line.
    pub fn end(&self) {
        if self.drawn {
            let _ = writeln!(std::io::stderr());
        }
    }
}

/// `name [#########-----------] 12/30`.
pub fn progress_bar(name: &str, done: u32, total: u32) -> String {
    const WIDTH: u32 = 30;
    let filled = (done.min(total) * WIDTH).checked_div(total).unwrap_or(WIDTH) as usize;
    format!("{name} [{}{}] {done}/{total}", "#".repeat(filled), "-".repeat(WIDTH as usize - filled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_bar_fills_in_proportion() {
        assert_eq!(progress_bar("s", 0, 30), format!("s [{}] 0/30", "-".repeat(30)));
        assert_eq!(progress_bar("s", 15, 30), format!("s [{}{}] 15/30", "#".repeat(15), "-".repeat(15)));
        assert_eq!(progress_bar("s", 30, 30), format!("s [{}] 30/30", "#".repeat(30)));
    }

    #[test]
    fn without_a_terminal_a_line_comes_only_after_the_interval() {
        let mut p = Progress::new("s warm-up", 20);
        let t0 = p.started;
        assert_eq!(p.line_at(1, t0 + Duration::from_secs(3)), None);
        assert_eq!(
            p.line_at(2, t0 + Duration::from_secs(11)).as_deref(),
            Some("s warm-up: 2/20 frames, 11 s")
        );
        assert_eq!(p.line_at(3, t0 + Duration::from_secs(15)), None, "4 s after the last line");
        // A frame of minutes: a line after each.
        assert_eq!(
            p.line_at(4, t0 + Duration::from_secs(200)).as_deref(),
            Some("s warm-up: 4/20 frames, 200 s")
        );
    }
}
